//! `shax compare`: the evaluations of several runs side by side, lined up by
//! the run's clock (the trainer's CPU hours by default: on a shared machine
//! wall-clock hours are not comparable).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::bail;
use shax_train::{EloLine, RunPaths, read_elo};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Run directories.
    #[arg(required = true)]
    runs: Vec<PathBuf>,
    /// The clock to line the runs up by: `cpu` (the trainer process's CPU hours) or `wall`.
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "wall"])]
    clock: String,
    /// One JSON object per evaluation instead of the table.
    #[arg(long)]
    json: bool,
}

/// The name a run goes by in the table: its folder's name.
fn run_name(run: &Path) -> String {
    run.file_name().map_or_else(
        || run.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let mut rows: Vec<(f64, String, EloLine)> = Vec::new();
    for r in &a.runs {
        let paths = RunPaths::new(r);
        if !paths.config().is_file() {
            bail!("{} is not a run directory (no config.toml)", r.display());
        }
        let lines = read_elo(&paths);
        if lines.is_empty() {
            eprintln!("warning: {} has no evaluation yet", r.display());
        }
        for l in lines {
            let hours = if a.clock == "cpu" {
                l.cpu_hours
            } else {
                l.hours
            };
            rows.push((hours, run_name(r), l));
        }
    }
    rows.sort_by(|x, y| x.0.total_cmp(&y.0).then_with(|| x.1.cmp(&y.1)));
    let mut out = super::stdout();
    if a.json {
        for (hours, run, l) in &rows {
            let mut v = serde_json::to_value(l)?;
            v["run"] = serde_json::json!(run);
            v["clock_hours"] = serde_json::json!(hours);
            writeln!(out, "{v}")?;
        }
        return Ok(());
    }
    writeln!(
        out,
        "{:>9}  {:<24} {:>9}  {:>20}  scores [Elo 95%]",
        format!("{} h", a.clock),
        "run",
        "step",
        "Elo [95%]"
    )?;
    for (hours, run, l) in &rows {
        let scores: Vec<String> = l
            .results
            .iter()
            .map(|r| {
                // Lines written before intervals were kept have none.
                let interval = if r.elo_low == 0.0 && r.elo_high == 0.0 {
                    String::new()
                } else {
                    format!(" [{:+.0}, {:+.0}]", r.elo_low, r.elo_high)
                };
                format!("{} {:.1}%{interval}", r.opponent, 100.0 * r.score)
            })
            .collect();
        writeln!(
            out,
            "{hours:>9.2}  {run:<24} {:>9}  {:>6.0} [{:>5.0}, {:>5.0}]  {}",
            l.step,
            l.elo,
            l.elo_low,
            l.elo_high,
            scores.join(", ")
        )?;
    }
    Ok(())
}

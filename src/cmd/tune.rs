//! `shax tune-eval`: fits the alpha-beta evaluation's weights to the games of
//! self-play shards, prints them beside the preset's (and as Rust, for
//! `crates/shax-search/src/eval/weights.rs`) and writes a weights file that
//! `alphabeta:eval=<file>` plays with.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::bail;
use shax_search::eval::{LINEAR_TERMS, Weights, weights_file_text, weights_for};
use shax_train::{RunPaths, TuneData, TuneReport, fit_weights, list_shards};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Run directories (their shards), folders of shards or shard files, all of one preset.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Only the games of networks at this training step or later (stronger play).
    #[arg(long, default_value_t = 0)]
    min_step: u64,
    /// Share of the search's root value in the target, the rest the game's result.
    #[arg(long, default_value_t = 0.0)]
    search_value: f64,
    /// Rounds of the fit (the scale `k` is refitted before each).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Adam steps per round.
    #[arg(long, default_value_t = 300)]
    steps: usize,
    /// Write the fitted weights to this weights file, to be tried as
    /// `alphabeta:eval=<file>` (e.g. in `shax arena` or `shax match`).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The shard files `p` names: a run directory's, a folder's, or the file.
fn shard_files(p: &Path) -> Vec<PathBuf> {
    let run = RunPaths::new(p);
    if run.is_run() {
        list_shards(&run.shards())
    } else if p.is_dir() {
        list_shards(p)
    } else {
        vec![p.to_path_buf()]
    }
}

pub fn run(a: Args) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&a.search_value) {
        bail!("--search-value {} is not between 0 and 1", a.search_value);
    }
    let mut files = Vec::new();
    for p in &a.shards {
        if !p.exists() {
            bail!("{} does not exist", p.display());
        }
        files.extend(shard_files(p));
    }
    eprintln!("reading {} shards", files.len());
    let data = TuneData::read(&files, a.min_step, a.search_value)?;
    let preset = data.preset.expect("data has positions");
    eprintln!(
        "{:?}: {} games, {} positions fitted, {} held out (every tenth game)",
        preset,
        data.games,
        data.train.len(),
        data.held_out.len()
    );
    let start = *weights_for(&shax_core::Rules::preset(preset));
    let r = fit_weights(&data, &start, a.rounds, a.steps);
    print_report(&mut super::stdout(), &r)?;
    if let Some(out) = &a.out {
        let text = format!(
            "# shax tune-eval: {preset:?}, {} games, held-out loss {:.5} (the preset's {:.5})\n{}",
            data.games,
            r.after.1,
            r.before.1,
            weights_file_text(&r.fitted)
        );
        shax_nn::write_atomic(out, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}

fn print_report(out: &mut dyn Write, r: &TuneReport) -> io::Result<()> {
    writeln!(
        out,
        "loss (mean squared error of sigmoid(k * eval) against the result):\n  \
         preset's weights: {:.5} fitted games, {:.5} held out\n  \
         fitted weights:   {:.5} fitted games, {:.5} held out (k = {:.5} per centi-piece)",
        r.before.0, r.before.1, r.after.0, r.after.1, r.k
    )?;
    writeln!(out, "\n| weight | preset | fitted |\n|---|---|---|")?;
    let (s, f) = (r.start.linear(), r.fitted.linear());
    for (i, name) in LINEAR_TERMS.iter().enumerate() {
        writeln!(out, "| {name} | {} | {} |", s[i], f[i])?;
    }
    writeln!(out, "\n{}", rust_literal(&r.fitted))
}

/// The weights as a Rust expression for `weights.rs`.
fn rust_literal(w: &Weights) -> String {
    format!("{w:#?}")
}

//! `shax bench uct`: plain UCT simulations per second on one thread, against
//! the reference point of OpenSpiel's C++ MCTSBot with random rollouts.

use std::io::Write;
use std::time::{Duration, Instant};

use serde::Serialize;
use shax_core::{KeyHistory, Position};
use shax_search::Uct;

/// OpenSpiel's C++ MCTSBot with random rollouts on nine-mens-morris, on the
/// project's 2-core reference machine with one core busy (issue 3).
const OPENSPIEL_NMM_SIMS_PER_SEC: f64 = 18_000.0;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// One rule set (preset or rules TOML); all four presets when absent.
    #[arg(long)]
    rules: Option<String>,
    /// Simulations per search (each search starts a fresh tree at the starting position).
    #[arg(long, default_value_t = 10_000)]
    sims: u64,
    /// Seconds per rule set.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Row {
    rules: String,
    searches: u64,
    simulations: u64,
    seconds: f64,
    sims_per_sec: f64,
    rollout_actions_per_sim: f64,
    tree_nodes_per_search: f64,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    super::bench::check_seconds(a.seconds)?;
    if a.sims == 0 || a.sims > 100_000_000 {
        anyhow::bail!("--sims must be 1 to 100000000, got {}", a.sims);
    }
    let budget = Duration::from_secs_f64(a.seconds);
    let rows: Vec<Row> = super::bench::rule_sets(a.rules.as_deref())?
        .into_iter()
        .map(|rules| measure(rules, a.sims, budget))
        .collect();
    let nmm = rows
        .iter()
        .find(|r| r.rules == "nine-mens-morris")
        .map(|r| r.sims_per_sec / OPENSPIEL_NMM_SIMS_PER_SEC);
    let mut out = super::stdout();
    if a.json {
        let v = serde_json::json!({
            "bench": "uct",
            "sims_per_search": a.sims,
            "openspiel_mctsbot_nmm_sims_per_sec": OPENSPIEL_NMM_SIMS_PER_SEC,
            "nmm_ratio_to_openspiel": nmm,
            "rows": rows,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        table(&mut out, &rows, nmm, a.sims)?;
    }
    Ok(())
}

/// Searches of `sims` simulations from the starting position of `rules`, a
/// fresh tree each, for `budget`.
fn measure(rules: shax_core::Rules, sims_per_search: u64, budget: Duration) -> Row {
    let start = Position::new(rules);
    let history = KeyHistory::new(&start);
    let mut uct = Uct::new(None);
    let (mut searches, mut sims, mut actions, mut nodes) = (0u64, 0u64, 0u64, 0u64);
    let t = Instant::now();
    while t.elapsed() < budget {
        let (_, s) = uct
            .search(&start, &history, sims_per_search, None, searches)
            .expect("the starting position is not over");
        searches += 1;
        sims += s.simulations;
        actions += s.rollout_actions;
        nodes += s.tree_nodes as u64;
    }
    let secs = t.elapsed().as_secs_f64();
    Row {
        rules: rules.name(),
        searches,
        simulations: sims,
        seconds: secs,
        sims_per_sec: sims as f64 / secs,
        rollout_actions_per_sim: actions as f64 / sims as f64,
        tree_nodes_per_search: nodes as f64 / searches as f64,
    }
}

fn table(out: &mut impl Write, rows: &[Row], nmm: Option<f64>, sims: u64) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<18} {:>9} {:>12} {:>12} {:>15} {:>12}",
        "rules", "searches", "simulations", "sims/s", "rollout acts/sim", "tree nodes"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<18} {:>9} {:>12} {:>12.0} {:>15.1} {:>12.0}",
            r.rules,
            r.searches,
            r.simulations,
            r.sims_per_sec,
            r.rollout_actions_per_sim,
            r.tree_nodes_per_search
        )?;
    }
    if let Some(x) = nmm {
        writeln!(
            out,
            "nine-mens-morris: {x:.1}x OpenSpiel MCTSBot's ~{OPENSPIEL_NMM_SIMS_PER_SEC:.0} sims/s"
        )?;
    }
    writeln!(
        out,
        "(one thread; {sims} simulations per search from the starting position, c = 2)"
    )
}

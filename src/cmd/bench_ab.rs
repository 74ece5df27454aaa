//! `shax bench alphabeta`: alpha-beta nodes per second on fixed positions.

use std::io::Write;
use std::time::Instant;

use serde::Serialize;
use shax_core::{KeyHistory, Position, Rules};
use shax_search::{Limits, Player, Registry, mix_seed};

use super::bench::rule_sets;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// One rule set (preset or rules TOML); all four presets when absent.
    #[arg(long)]
    rules: Option<String>,
    /// The alpha-beta spec to measure (its budget is replaced by --depth).
    #[arg(long, default_value = "alphabeta")]
    player: String,
    /// Search depth in turns for every position.
    #[arg(long, default_value_t = 5)]
    depth: u32,
    /// Positions per rule set: random games cut after 4 to 60 actions (seeded).
    #[arg(long, default_value_t = 24)]
    positions: usize,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Row {
    rules: String,
    player: String,
    depth: u32,
    positions: usize,
    nodes: u64,
    seconds: f64,
    nodes_per_sec: f64,
    median_nodes_per_sec: f64,
    median_ms: f64,
}

/// Random positions of `rules`, the same for every build: random play
/// (by [`mix_seed`]) cut at 4 to 60 actions, unfinished.
fn positions(rules: Rules, n: usize) -> Vec<(Position, KeyHistory)> {
    let mut out = Vec::with_capacity(n);
    let mut attempt = 0u64;
    while out.len() < n {
        attempt += 1;
        let cut = 4 + mix_seed(attempt, 1) % 57;
        let mut pos = Position::new(rules);
        let mut hist = KeyHistory::new(&pos);
        for i in 0..cut {
            if hist.outcome(&pos).is_some() {
                break;
            }
            let legal = pos.legal_actions();
            let a = legal[(mix_seed(attempt, i + 2) % legal.len() as u64) as usize];
            pos.play_unchecked(a);
            hist.push(a, &pos);
        }
        if hist.outcome(&pos).is_none() {
            out.push((pos, hist));
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn run(a: Args) -> anyhow::Result<()> {
    if !(1..=12).contains(&a.depth) {
        anyhow::bail!("--depth must be 1 to 12, got {}", a.depth);
    }
    if !(1..=10_000).contains(&a.positions) {
        anyhow::bail!("--positions must be 1 to 10000, got {}", a.positions);
    }
    let mut rows = Vec::new();
    for rules in rule_sets(a.rules.as_deref())? {
        let mut player: Box<dyn Player> = Registry::classic().build_str(&a.player)?;
        if !player.spec().starts_with("alphabeta") {
            anyhow::bail!("--player must be an alphabeta spec, got '{}'", a.player);
        }
        let limits = Limits {
            depth: Some(a.depth),
            ..Limits::NONE
        };
        let (mut nodes, mut secs, mut rates, mut times) = (0, 0.0, Vec::new(), Vec::new());
        for (i, (pos, hist)) in positions(rules, a.positions).iter().enumerate() {
            player.reset();
            let t = Instant::now();
            player.choose(pos, hist, &limits, i as u64);
            let s = t.elapsed().as_secs_f64();
            let n = player.info().map_or(0, |i| i.nodes);
            nodes += n;
            secs += s;
            rates.push(n as f64 / s.max(1e-9));
            times.push(s * 1e3);
        }
        rows.push(Row {
            rules: rules.name(),
            player: player.spec(),
            depth: a.depth,
            positions: a.positions,
            nodes,
            seconds: secs,
            nodes_per_sec: nodes as f64 / secs.max(1e-9),
            median_nodes_per_sec: median(rates),
            median_ms: median(times),
        });
    }
    let mut out = super::stdout();
    if a.json {
        let v = serde_json::json!({ "bench": "alphabeta", "rows": rows });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    writeln!(
        out,
        "{:<18} {:>5} {:>12} {:>9} {:>12} {:>14} {:>10}",
        "rules", "depth", "nodes", "seconds", "nodes/s", "median nodes/s", "median ms"
    )?;
    for r in &rows {
        writeln!(
            out,
            "{:<18} {:>5} {:>12} {:>9.3} {:>12.3e} {:>14.3e} {:>10.2}",
            r.rules,
            r.depth,
            r.nodes,
            r.seconds,
            r.nodes_per_sec,
            r.median_nodes_per_sec,
            r.median_ms
        )?;
    }
    writeln!(
        out,
        "({}; one thread; each position searched from an empty table)",
        rows.first().map_or("", |r| r.player.as_str())
    )?;
    Ok(())
}

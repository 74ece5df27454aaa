//! `shax bench`: what this machine does (KataGo's `benchmark` is the model).

use std::io::Write;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use shax_core::{Depth, KeyHistory, Position, Preset, Rules, perft, play_out};

#[derive(clap::Subcommand, Debug)]
pub enum Bench {
    /// Rules core speed: perft leaves per second and random games per second, one thread.
    Rules(RulesArgs),
    /// Alpha-beta nodes per second at a fixed depth on fixed positions, one thread.
    Alphabeta(super::bench_ab::Args),
    /// Plain UCT (random rollouts) simulations per second, one thread.
    Uct(super::bench_uct::Args),
    /// Network evaluations per second per batch size, against the matmul peak.
    Nn(super::bench_mcts::NnArgs),
    /// Neural MCTS simulations per second with many games in flight, against the pure network rate.
    Mcts(super::bench_mcts::MctsArgs),
    /// Trainer steps and positions per second per batch size (forward, backward, Adam).
    Train(super::bench_train::Args),
    /// Requests per second and latency of `POST /v1/move` under concurrent clients.
    Serve(super::serve::BenchArgs),
}

#[derive(clap::Args, Debug)]
pub struct RulesArgs {
    /// One rule set (preset or rules TOML); all four presets when absent.
    #[arg(long)]
    rules: Option<String>,
    /// Perft depth in plies.
    #[arg(long, default_value_t = 7)]
    depth: u32,
    /// Seconds of random games per rule set.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(b: Bench) -> anyhow::Result<()> {
    match b {
        Bench::Rules(a) => rules(a),
        Bench::Alphabeta(a) => super::bench_ab::run(a),
        Bench::Uct(a) => super::bench_uct::run(a),
        Bench::Nn(a) => super::bench_mcts::nn(a),
        Bench::Mcts(a) => super::bench_mcts::mcts(a),
        Bench::Train(a) => super::bench_train::run(a),
        Bench::Serve(a) => super::serve::bench(a),
    }
}

/// Checks a `--seconds` value.
pub fn check_seconds(s: f64) -> anyhow::Result<()> {
    if !(s > 0.0 && s <= 3600.0) {
        anyhow::bail!("--seconds must be above 0 and at most 3600, got {s}");
    }
    Ok(())
}

/// The rule sets a bench covers: the one named, or all four presets.
pub fn rule_sets(spec: Option<&str>) -> anyhow::Result<Vec<Rules>> {
    Ok(match spec {
        Some(spec) => vec![Rules::load(spec)?],
        None => Preset::ALL.iter().map(|&p| Rules::preset(p)).collect(),
    })
}

#[derive(Serialize)]
struct RulesRow {
    rules: String,
    perft_depth: u32,
    perft_leaves: u64,
    perft_seconds: f64,
    perft_leaves_per_sec: f64,
    games: u64,
    games_per_sec: f64,
    actions_per_game: f64,
    actions_per_sec: f64,
}

fn rules(a: RulesArgs) -> anyhow::Result<()> {
    check_seconds(a.seconds)?;
    if a.depth > 12 {
        anyhow::bail!("--depth must be at most 12, got {}", a.depth);
    }
    let budget = Duration::from_secs_f64(a.seconds);
    let rows: Vec<RulesRow> = rule_sets(a.rules.as_deref())?
        .into_iter()
        .map(|rules| measure_rules(rules, a.depth, budget))
        .collect();
    let mut out = super::stdout();
    if a.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "bench": "rules", "rows": rows }))?
        )?;
    } else {
        rules_table(&mut out, &rows)?;
    }
    Ok(())
}

/// Perft to `depth` from the start, then random games for `budget`, on one thread.
fn measure_rules(rules: Rules, depth: u32, budget: Duration) -> RulesRow {
    let start = Position::new(rules);
    let t = Instant::now();
    let leaves = perft(&start, depth, Depth::Plies);
    let perft_seconds = t.elapsed().as_secs_f64();

    let mut rng = SmallRng::seed_from_u64(1);
    let mut history = KeyHistory::new(&start);
    let (mut games, mut actions) = (0u64, 0u64);
    let t = Instant::now();
    while t.elapsed() < budget {
        for _ in 0..64 {
            let (_, n) = play_out(&start, &mut history, |_, legal| {
                legal[rng.random_range(0..legal.len())]
            });
            games += 1;
            actions += n as u64;
        }
    }
    let secs = t.elapsed().as_secs_f64();
    RulesRow {
        rules: rules.name(),
        perft_depth: depth,
        perft_leaves: leaves,
        perft_seconds,
        perft_leaves_per_sec: leaves as f64 / perft_seconds,
        games,
        games_per_sec: games as f64 / secs,
        actions_per_game: actions as f64 / games as f64,
        actions_per_sec: actions as f64 / secs,
    }
}

fn rules_table(out: &mut impl Write, rows: &[RulesRow]) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<18} {:>5} {:>14} {:>9} {:>14} {:>11} {:>13} {:>13}",
        "rules",
        "depth",
        "perft leaves",
        "seconds",
        "leaves/s",
        "games/s",
        "actions/game",
        "actions/s"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<18} {:>5} {:>14} {:>9.3} {:>14.3e} {:>11.0} {:>13.1} {:>13.3e}",
            r.rules,
            r.perft_depth,
            r.perft_leaves,
            r.perft_seconds,
            r.perft_leaves_per_sec,
            r.games_per_sec,
            r.actions_per_game,
            r.actions_per_sec
        )?;
    }
    writeln!(
        out,
        "(one thread; perft uses bulk counting and a transposition table)"
    )
}

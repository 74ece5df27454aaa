//! `shax arena`: a match between two player specs, with Elo and game records.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;
use shax_core::Rules;
use shax_train::{
    ArenaConfig, ArenaResult, ColorStats, FinishedGame, GameHook, GameResult, run_arena,
    write_records,
};

use super::partial::PartialRecords;
use super::players::registry;
use super::progress::with_scored_progress;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rules: a preset name or a rules TOML file.
    #[arg(long, default_value = "shax")]
    rules: String,
    /// Player A's spec (random, greedy, alphabeta:depth=4, alphabeta:ms=200, mcts:sims=1000, ...).
    #[arg(long)]
    a: String,
    /// Player B's spec.
    #[arg(long)]
    b: String,
    /// Games; each random opening is played once with each colour.
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// Worker threads; 0: one per core.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Master seed: the same seed gives the same games, whatever the thread count (with one
    /// game in flight; with more, for the same threads and games in flight).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Games each thread keeps going at once, the network players' leaves of all
    /// of them in one network call (1 to 1024). Much faster for `net:` players at
    /// one leaf per call; the times per decision are then shares of pooled calls.
    #[arg(long, default_value_t = 1)]
    games_in_flight: usize,
    /// Random actions that open every game (0 to 40).
    #[arg(long, default_value_t = 4)]
    openings: u32,
    /// Print one JSON object instead of the report.
    #[arg(long)]
    json: bool,
    /// Game records (JSON lines); default runs/arena-<UTC time>-<pid>.jsonl.
    /// While the match runs, each game is appended to `<out>.partial` as it ends.
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let rules = Rules::load(&args.rules)?;
    let out = match args.out {
        Some(p) => p,
        None => default_path("arena", "jsonl")?,
    };
    let keep = Arc::new(Keeper::new(&out));
    let r = with_scored_progress(
        "arena",
        args.games.into(),
        keep.half_points.clone(),
        |progress| {
            let cfg = ArenaConfig {
                games: args.games,
                threads: args.threads,
                seed: args.seed,
                opening_plies: args.openings,
                games_in_flight: args.games_in_flight,
                progress,
                on_game: Some(keep.hook()),
                ..ArenaConfig::new(rules, &args.a, &args.b)
            };
            run_arena(&cfg, &registry(rules))
        },
    )?;
    write_records(&out, &r.records).with_context(|| format!("writing {}", out.display()))?;
    keep.partial.finished();
    let mut w = super::stdout();
    if args.json {
        let mut v = serde_json::to_value(&r)?;
        v["records"] = serde_json::Value::String(out.display().to_string());
        writeln!(w, "{v}")?;
    } else {
        report(&mut w, &r)?;
        writeln!(w, "records: {}", out.display())?;
    }
    Ok(())
}

/// Keeps a running match's games as they end (in `<out>.partial`) and counts
/// A's points for the progress line.
struct Keeper {
    partial: PartialRecords,
    half_points: Arc<AtomicU64>,
}

impl Keeper {
    fn new(out: &Path) -> Keeper {
        Keeper {
            partial: PartialRecords::beside(out),
            half_points: Arc::new(AtomicU64::new(0)),
        }
    }

    fn hook(self: &Arc<Self>) -> GameHook {
        let me = self.clone();
        GameHook(Arc::new(move |g: FinishedGame<'_>| me.keep(&g)))
    }

    fn keep(&self, g: &FinishedGame<'_>) {
        self.half_points.fetch_add(
            match g.a_result {
                GameResult::Win => 2,
                GameResult::Draw => 1,
                GameResult::Loss => 0,
            },
            Ordering::Relaxed,
        );
        self.partial.keep(g.record);
    }
}

/// `runs/<what>-<UTC time>-<process id>.<ext>`, the folder created. The
/// process id keeps apart two commands started in the same millisecond, which
/// would otherwise share one partial file and one set of records.
pub fn default_path(what: &str, ext: &str) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all("runs").context("creating runs/")?;
    Ok(PathBuf::from(format!(
        "runs/{what}-{}-{}.{ext}",
        super::utc_stamp(true),
        std::process::id()
    )))
}

fn line(w: &mut dyn Write, name: &str, s: &ColorStats) -> io::Result<()> {
    writeln!(
        w,
        "  {name:<11} {:>5} games   W {:>5}   D {:>5}   L {:>5}",
        s.games, s.wins, s.draws, s.losses
    )
}

/// The lines every match report shares: A's results by colour and in
/// total, the score with its Elo and interval, how the games ended.
pub fn print_results(
    w: &mut dyn Write,
    white: &ColorStats,
    black: &ColorStats,
    score: f64,
    (elo, low, high): (f64, f64, f64),
    reasons: &std::collections::BTreeMap<String, u64>,
) -> io::Result<()> {
    line(w, "A as white", white)?;
    line(w, "A as black", black)?;
    let total = ColorStats {
        games: white.games + black.games,
        wins: white.wins + black.wins,
        draws: white.draws + black.draws,
        losses: white.losses + black.losses,
    };
    line(w, "A total", &total)?;
    writeln!(
        w,
        "  score of A {score:.3} ({:.1}%)   Elo {elo:+.0}  [95%: {low:+.0}, {high:+.0}]",
        100.0 * score
    )?;
    let reasons: Vec<String> = reasons.iter().map(|(k, v)| format!("{k} {v}")).collect();
    writeln!(w, "  endings: {}", reasons.join(", "))
}

fn report(w: &mut dyn Write, r: &ArenaResult) -> io::Result<()> {
    writeln!(
        w,
        "arena: A = {}  vs  B = {}   rules {}, {} games, {} threads, seed {}, {} random opening actions",
        r.a, r.b, r.rules, r.tally.games, r.threads, r.seed, r.opening_plies
    )?;
    print_results(
        w,
        &r.tally.a_white,
        &r.tally.a_black,
        r.tally.score,
        (r.tally.elo, r.tally.elo_low, r.tally.elo_high),
        &r.tally.reasons,
    )?;
    writeln!(
        w,
        "  {:.1} actions/game, {:.2} s, {:.2} games/s",
        r.tally.actions_per_game, r.seconds, r.games_per_sec
    )?;
    writeln!(
        w,
        "  time per decision: A {:.2} ms (longest {:.1} ms), B {:.2} ms (longest {:.1} ms){}",
        r.tally.a_think.mean_ms,
        r.tally.a_think.max_ms,
        r.tally.b_think.mean_ms,
        r.tally.b_think.max_ms,
        if r.games_in_flight > 1 {
            format!(
                " (network players: their share of calls pooled over {} games)",
                r.games_in_flight
            )
        } else {
            String::new()
        }
    )
}

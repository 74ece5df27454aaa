//! `shax match`: engine against engine over the engine protocol (like
//! cutechess-cli): random openings played once with each colour, a budget
//! passed through `go`, every action refereed, Elo with its interval and
//! game records.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Serialize;
use shax_core::{Color, Rules};
use shax_train::elo::elo_interval;
use shax_train::{
    GameRecord, GameResult, GameSummary, MatchTally, ThinkStats, a_color, openings, write_records,
};

use super::partial::PartialRecords;
use super::progress::with_progress;
use crate::referee::{Engine, EngineSpec, Refereed, referee_game};

/// Most random opening actions (as in `shax arena`).
const MAX_OPENING: u32 = 40;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Engine A's command line (split on whitespace), e.g. "target/release/shax engine".
    #[arg(long)]
    a_cmd: String,
    /// An option for engine A, `Name=Value` (sent as `setoption name Name value Value`); repeatable.
    #[arg(long, value_name = "NAME=VALUE")]
    a_option: Vec<String>,
    /// Engine B's command line.
    #[arg(long)]
    b_cmd: String,
    /// An option for engine B, `Name=Value`; repeatable.
    #[arg(long, value_name = "NAME=VALUE")]
    b_option: Vec<String>,
    /// Rules: a preset name or a rules TOML file (sent to both engines as the Rules option).
    #[arg(long, default_value = "shax")]
    rules: String,
    /// Games; each random opening is played once with each colour.
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// Random actions that open every game (0 to 40).
    #[arg(long, default_value_t = 4)]
    opening_plies: u32,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// `go movetime MS` for every decision.
    #[arg(long)]
    movetime: Option<u64>,
    /// `go nodes N` for every decision.
    #[arg(long)]
    nodes: Option<u64>,
    /// `go depth N` for every decision.
    #[arg(long)]
    depth: Option<u32>,
    /// Milliseconds an engine may take for one decision before it forfeits
    /// the game; default: movetime + 2000, or 60000 without a movetime.
    #[arg(long)]
    timeout_ms: Option<u64>,
    /// Games played at once (each with its own pair of engine processes).
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Print one JSON object instead of the report.
    #[arg(long)]
    json: bool,
    /// Game records (JSON lines); default runs/match-<UTC time>-<pid>.jsonl. While the
    /// match runs, each game is appended to `<out>.partial` as it ends.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// A game an engine lost by a fault.
#[derive(Clone, Debug, Serialize)]
pub struct Forfeit {
    /// Game number (0-based; A is White in the even ones).
    pub game: usize,
    /// `A` or `B`.
    pub engine: String,
    /// The colour it played.
    pub color: String,
    /// Short reason (also the record's `reason`).
    pub reason: String,
    /// What it did.
    pub detail: String,
}

/// The result of a match.
#[derive(Clone, Debug, Serialize)]
pub struct MatchResult {
    pub rules: String,
    pub a: String,
    pub b: String,
    pub go: String,
    #[serde(flatten)]
    pub tally: MatchTally,
    pub forfeits: Vec<Forfeit>,
    pub opening_plies: u32,
    pub seed: u64,
    pub concurrency: usize,
    pub seconds: f64,
}

fn engine_spec(label: &str, cmd: &str, options: &[String]) -> anyhow::Result<EngineSpec> {
    if cmd.split_whitespace().next().is_none() {
        bail!("--{}-cmd is empty", label.to_ascii_lowercase());
    }
    let options = options
        .iter()
        .map(|o| match o.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
            _ => bail!(
                "--{}-option '{o}': expected Name=Value",
                label.to_ascii_lowercase()
            ),
        })
        .collect::<anyhow::Result<_>>()?;
    Ok(EngineSpec {
        label: label.to_string(),
        cmd: cmd.to_string(),
        options,
    })
}

fn describe(s: &EngineSpec) -> String {
    let mut d = s.cmd.clone();
    for (k, v) in &s.options {
        d.push_str(&format!(" {k}={v}"));
    }
    d
}

fn go_line(args: &Args) -> anyhow::Result<String> {
    let mut go = "go".to_string();
    let check = |what: &str, v: u64, max: u64| {
        if !(1..=max).contains(&v) {
            bail!("--{what} must be 1 to {max}, got {v}");
        }
        Ok(())
    };
    if let Some(d) = args.depth {
        check("depth", d.into(), 64)?;
        go.push_str(&format!(" depth {d}"));
    }
    if let Some(n) = args.nodes {
        check("nodes", n, 1_000_000_000)?;
        go.push_str(&format!(" nodes {n}"));
    }
    if let Some(ms) = args.movetime {
        check("movetime", ms, 3_600_000)?;
        go.push_str(&format!(" movetime {ms}"));
    }
    Ok(go)
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let rules = Rules::load(&args.rules)?;
    let a = engine_spec("A", &args.a_cmd, &args.a_option)?;
    let b = engine_spec("B", &args.b_cmd, &args.b_option)?;
    let go = go_line(&args)?;
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.opening_plies > MAX_OPENING {
        bail!(
            "--opening-plies must be 0 to {MAX_OPENING}, got {}",
            args.opening_plies
        );
    }
    if !(1..=256).contains(&args.concurrency) {
        bail!("--concurrency must be 1 to 256, got {}", args.concurrency);
    }
    let timeout = Duration::from_millis(
        args.timeout_ms
            .unwrap_or(args.movetime.map_or(60_000, |m| m + 2_000))
            .max(1),
    );
    let setup = Setup {
        rules,
        rules_arg: args.rules.clone(),
        a,
        b,
        go,
        timeout,
        lines: openings(
            rules,
            (args.games as usize).div_ceil(2),
            args.opening_plies,
            args.seed,
        ),
        games: args.games as usize,
        seed: args.seed,
    };
    let out = match &args.out {
        Some(p) => p.clone(),
        None => super::arena::default_path("match", "jsonl")?,
    };
    let partial = PartialRecords::beside(&out);
    let t = Instant::now();
    let played = with_progress("match", args.games.into(), |p| {
        play_all(&setup, args.concurrency, p.as_deref(), &partial)
    })?;
    let r = summarize(&setup, &args, played, t.elapsed().as_secs_f64());
    let records: Vec<GameRecord> = r.1;
    write_records(&out, &records).with_context(|| format!("writing {}", out.display()))?;
    partial.finished();
    let mut w = super::stdout();
    if args.json {
        let mut v = serde_json::to_value(&r.0)?;
        v["records"] = serde_json::Value::String(out.display().to_string());
        writeln!(w, "{v}")?;
    } else {
        report(&mut w, &r.0)?;
        writeln!(w, "records: {}", out.display())?;
    }
    Ok(())
}

/// Everything the workers share.
struct Setup {
    rules: Rules,
    rules_arg: String,
    a: EngineSpec,
    b: EngineSpec,
    go: String,
    timeout: Duration,
    lines: Vec<Vec<shax_core::Action>>,
    games: usize,
    /// The openings' seed, in every record.
    seed: u64,
}

/// Plays every game on `concurrency` workers, each with its own two engines.
/// Each game's record is kept in `partial` as it ends.
fn play_all(
    s: &Setup,
    concurrency: usize,
    progress: Option<&AtomicU64>,
    partial: &PartialRecords,
) -> anyhow::Result<Vec<Refereed>> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Refereed>>> = Mutex::new((0..s.games).map(|_| None).collect());
    let errors: Mutex<Vec<String>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..concurrency.min(s.games) {
            scope.spawn(|| {
                if let Err(e) = worker(s, &next, &stop, &results, (progress, partial)) {
                    stop.store(true, Ordering::Relaxed);
                    errors.lock().expect("errors lock").push(e);
                }
            });
        }
    });
    if let Some(e) = errors.into_inner().expect("errors lock").into_iter().next() {
        bail!("{e}");
    }
    Ok(results
        .into_inner()
        .expect("results lock")
        .into_iter()
        .map(|r| r.expect("every game played"))
        .collect())
}

fn worker(
    s: &Setup,
    next: &AtomicUsize,
    stop: &AtomicBool,
    results: &Mutex<Vec<Option<Refereed>>>,
    (progress, partial): (Option<&AtomicU64>, &PartialRecords),
) -> Result<(), String> {
    let names = (describe(&s.a), describe(&s.b));
    let mut ea = Engine::start(&s.a, &s.rules_arg)?;
    let mut eb = Engine::start(&s.b, &s.rules_arg)?;
    while !stop.load(Ordering::Relaxed) {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= s.games {
            break;
        }
        let a_white = a_color(i) == Color::White;
        let (w, b) = if a_white {
            (&mut ea, &mut eb)
        } else {
            (&mut eb, &mut ea)
        };
        let r = referee_game(s.rules, &s.lines[i / 2], w, b, &s.go, s.timeout);
        if let Some((side, _)) = &r.fault {
            // The engine at fault may be hung or gone: start it afresh.
            if (*side == Color::White) == a_white {
                ea = Engine::start(&s.a, &s.rules_arg)?;
            } else {
                eb = Engine::start(&s.b, &s.rules_arg)?;
            }
        }
        partial.keep(&game_record(s, i, &r, (&names.0, &names.1)));
        let mut all = results.lock().expect("results lock");
        all[i] = Some(r);
        eprintln!("  match: {}", running_tally(&all));
        drop(all);
        if let Some(p) = progress {
            p.fetch_add(1, Ordering::Relaxed);
        }
    }
    Ok(())
}

/// A game's winner: the opponent of an engine at fault, else the rules'.
fn winner(g: &Refereed) -> Option<Color> {
    match &g.fault {
        Some((side, _)) => Some(side.opponent()),
        None => g.game.outcome().and_then(|o| o.winner),
    }
}

/// The games finished so far, from A's side: `n games, W-D-L, score`.
fn running_tally(all: &[Option<Refereed>]) -> String {
    let (mut w, mut d, mut l) = (0, 0, 0);
    for (i, g) in all.iter().enumerate() {
        if let Some(g) = g {
            match GameResult::of(winner(g), a_color(i)) {
                GameResult::Win => w += 1,
                GameResult::Draw => d += 1,
                GameResult::Loss => l += 1,
            }
        }
    }
    let n = w + d + l;
    let e = elo_interval(w, d, l);
    format!(
        "{n} games, A {w}-{d}-{l} ({:.1}%), Elo {:+.0} [{:+.0}, {:+.0}]",
        100.0 * (w as f64 + 0.5 * d as f64) / n.max(1) as f64,
        e.elo,
        e.low,
        e.high
    )
}

fn think(t: (u64, f64, f64)) -> ThinkStats {
    ThinkStats {
        decisions: t.0,
        mean_ms: if t.0 > 0 { 1e3 * t.1 / t.0 as f64 } else { 0.0 },
        max_ms: 1e3 * t.2,
    }
}

/// Game `i`'s record (a forfeit is recorded as a loss of the engine at
/// fault).
fn game_record(s: &Setup, i: usize, g: &Refereed, (an, bn): (&str, &str)) -> GameRecord {
    let (white, black) = if a_color(i) == Color::White {
        (an, bn)
    } else {
        (bn, an)
    };
    let opening = s.lines[i / 2].len().min(g.game.len());
    let mut rec = GameRecord::new(&g.game, opening, white, black, s.seed);
    if let Some((side, f)) = &g.fault {
        rec.winner = side.opponent().name().to_string();
        rec.reason = f.reason().to_string();
    }
    rec
}

/// Game `i`'s forfeit, if an engine lost it by a fault.
fn forfeit(i: usize, g: &Refereed) -> Option<Forfeit> {
    let (side, f) = g.fault.as_ref()?;
    Some(Forfeit {
        game: i,
        engine: if *side == a_color(i) { "A" } else { "B" }.to_string(),
        color: side.name().to_string(),
        reason: f.reason().to_string(),
        detail: f.to_string(),
    })
}

/// Tallies the games from A's side and builds their records.
fn summarize(
    s: &Setup,
    args: &Args,
    played: Vec<Refereed>,
    seconds: f64,
) -> (MatchResult, Vec<GameRecord>) {
    let (an, bn) = (describe(&s.a), describe(&s.b));
    let mut r = MatchResult {
        rules: s.rules.name(),
        a: an.clone(),
        b: bn.clone(),
        go: s.go.clone(),
        tally: MatchTally::default(),
        forfeits: Vec::new(),
        opening_plies: args.opening_plies,
        seed: args.seed,
        concurrency: args.concurrency,
        seconds,
    };
    let mut records = Vec::with_capacity(played.len());
    for (i, g) in played.into_iter().enumerate() {
        let rec = game_record(s, i, &g, (&an, &bn));
        r.forfeits.extend(forfeit(i, &g));
        let (a, b) = (
            think(g.think[a_color(i).index()]),
            think(g.think[a_color(i).opponent().index()]),
        );
        r.tally.add(GameSummary {
            a_color: a_color(i),
            winner: winner(&g),
            reason: &rec.reason,
            actions: g.game.len(),
            think: (&a, &b),
        });
        records.push(rec);
    }
    (r, records)
}

fn report(w: &mut dyn Write, r: &MatchResult) -> io::Result<()> {
    writeln!(
        w,
        "match: rules {}, {} games, '{}'",
        r.rules, r.tally.games, r.go
    )?;
    writeln!(w, "  A = {}", r.a)?;
    writeln!(w, "  B = {}", r.b)?;
    super::arena::print_results(
        w,
        &r.tally.a_white,
        &r.tally.a_black,
        r.tally.score,
        (r.tally.elo, r.tally.elo_low, r.tally.elo_high),
        &r.tally.reasons,
    )?;
    for f in &r.forfeits {
        writeln!(
            w,
            "  game {}: engine {} ({}) {}",
            f.game, f.engine, f.color, f.detail
        )?;
    }
    writeln!(
        w,
        "  {:.1} actions/game, {:.1} s; time per decision: A {:.1} ms (longest {:.0}), B {:.1} ms (longest {:.0})",
        r.tally.actions_per_game,
        r.seconds,
        r.tally.a_think.mean_ms,
        r.tally.a_think.max_ms,
        r.tally.b_think.mean_ms,
        r.tally.b_think.max_ms
    )
}

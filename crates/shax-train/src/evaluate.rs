//! Evaluation of a run's checkpoints: matches against the best checkpoint so
//! far and the baselines, one Elo refit over every evaluation of the run,
//! gating (`best.txt`), `elo.jsonl` and the evaluation's TensorBoard values.

use std::fs;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use shax_search::{Limits, mix_seed};

use crate::arena::{ArenaConfig, run_arena};
use crate::checkpoints::TrainState;
use crate::config::TrainConfig;
use crate::elo::Results;
use crate::paths::RunPaths;
use crate::run::{Log, RunError, io};
use crate::shard::write_atomic;
use crate::tb::{TbWriter, sanitize_tag};

/// One opponent's result in an evaluation.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EvalResult {
    /// The opponent: a baseline spec or the best checkpoint's label (`step-N`).
    pub opponent: String,
    /// Whether the opponent is the best checkpoint so far (gating).
    #[serde(default)]
    pub vs_best: bool,
    /// Games.
    pub games: u64,
    /// The network's wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// The network's losses.
    pub losses: u64,
    /// The network's score, 0 to 1.
    pub score: f64,
    /// The network's Elo over the opponent in this match, with its 95%
    /// interval (absent from lines written before they were logged).
    #[serde(default)]
    pub elo: f64,
    /// Lower end of the interval.
    #[serde(default)]
    pub elo_low: f64,
    /// Upper end of the interval.
    #[serde(default)]
    pub elo_high: f64,
}

/// One line of `elo.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EloLine {
    /// The checkpoint's step.
    pub step: u64,
    /// Its name on the ladder, `step-N`.
    pub player: String,
    /// Its Elo (random = 0), from a Bradley-Terry fit over every evaluation so far.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub elo_low: f64,
    /// Upper end.
    pub elo_high: f64,
    /// The matches.
    pub results: Vec<EvalResult>,
    /// The best checkpoint's step after this evaluation (gating).
    pub best_step: u64,
    /// Wall-clock hours of the run when the checkpoint was written.
    #[serde(default)]
    pub hours: f64,
    /// CPU hours of the trainer's process by then (compare runs on a shared
    /// machine by these).
    #[serde(default)]
    pub cpu_hours: f64,
}

/// Mixed into the run's seed for the evaluations' openings.
const EVAL_SEED: u64 = 0x6576_616c; // "eval"

/// The name of the checkpoint of `step` on the run's ladder.
pub fn ladder_name(step: u64) -> String {
    format!("step-{step}")
}

/// The lines of `elo.jsonl` (unreadable lines skipped: a line cut by a kill).
pub fn read_elo(paths: &RunPaths) -> Vec<EloLine> {
    fs::read_to_string(paths.elo())
        .map(|t| {
            t.lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn elo_has_step(paths: &RunPaths, step: u64) -> bool {
    read_elo(paths).iter().any(|l| l.step == step)
}

/// Whether an evaluation is due at `step`: every `eval.every_checkpoints`
/// checkpoints, and at the run's last step.
pub(crate) fn eval_due(cfg: &TrainConfig, step: u64) -> bool {
    let every = cfg.eval.every_checkpoints;
    if every == 0 || step == 0 {
        return false;
    }
    let index = step.div_ceil(cfg.train.steps_per_checkpoint);
    index.is_multiple_of(every) || step >= cfg.run.total_steps
}

/// The best checkpoint so far (`best.txt`), if it is still complete: its
/// step and network.
pub(crate) fn read_best(paths: &RunPaths) -> Option<(u64, PathBuf)> {
    let text = fs::read_to_string(paths.best()).ok()?;
    let step: u64 = text.trim().parse().ok()?;
    let dir = paths.checkpoint(step);
    dir.is_complete().then(|| (step, dir.net()))
}

pub(crate) fn write_tb_eval(tb: &mut TbWriter, line: &EloLine) {
    tb.scalar("eval/elo", line.elo as f32, line.step);
    for r in &line.results {
        // Lines written before `vs_best` existed mark the best by its label.
        let name = if r.vs_best || r.opponent.starts_with("step-") {
            "best".to_string()
        } else {
            sanitize_tag(&r.opponent)
        };
        tb.scalar(&format!("eval/score_vs_{name}"), r.score as f32, line.step);
    }
    tb.flush();
}

/// The spec of the network at `net` as the evaluations play it.
fn net_spec(cfg: &TrainConfig, net: &std::path::Path) -> String {
    format!(
        "net:{},sims={}{}",
        net.display(),
        cfg.eval.sims,
        if cfg.eval.gumbel { ",gumbel" } else { "" }
    )
}

/// Plays the checkpoint of `step` against the best so far and the baselines,
/// refits the ladder over every evaluation, appends to `elo.jsonl`, logs.
pub(crate) fn evaluate(
    paths: &RunPaths,
    cfg: &TrainConfig,
    state: &TrainState,
    tb: &mut TbWriter,
    log: &mut Log,
) -> Result<EloLine, RunError> {
    let step = state.step;
    let t = Instant::now();
    let best = read_best(paths).filter(|(s, _)| *s != step);
    let results = play_matches(paths, cfg, step, best.as_ref())?;
    let promote = match (cfg.eval.gating, results.iter().find(|r| r.vs_best)) {
        (true, Some(r)) => r.score >= cfg.eval.gating_threshold,
        _ => true,
    };
    let best_step = if promote {
        write_atomic(&paths.best(), format!("{step}\n").as_bytes()).map_err(io(&paths.best()))?;
        step
    } else {
        best.map_or(step, |b| b.0)
    };
    let mut line = EloLine {
        step,
        player: ladder_name(step),
        elo: 0.0,
        elo_low: 0.0,
        elo_high: 0.0,
        results,
        best_step,
        hours: state.elapsed_secs / 3600.0,
        cpu_hours: state.cpu_secs / 3600.0,
    };
    (line.elo, line.elo_low, line.elo_high) = refit(&read_elo(paths), &line);
    append_elo(paths, &line)?;
    write_tb_eval(tb, &line);
    let scores: Vec<String> = line
        .results
        .iter()
        .map(|r| {
            format!(
                "{} {:.0}% (Elo {:+.0} [{:+.0}, {:+.0}])",
                r.opponent,
                100.0 * r.score,
                r.elo,
                r.elo_low,
                r.elo_high
            )
        })
        .collect();
    log.line(&format!(
        "eval step {step}: Elo {:.0} [{:.0}, {:.0}] | {} | best step-{best_step} | {:.0}s",
        line.elo,
        line.elo_low,
        line.elo_high,
        scores.join(", "),
        t.elapsed().as_secs_f64()
    ));
    Ok(line)
}

/// The evaluation's matches: against the best checkpoint (if another) and
/// each baseline.
fn play_matches(
    paths: &RunPaths,
    cfg: &TrainConfig,
    step: u64,
    best: Option<&(u64, PathBuf)>,
) -> Result<Vec<EvalResult>, RunError> {
    let registry = shax_nn::registry(cfg.rules);
    let player = net_spec(cfg, &paths.checkpoint(step).net());
    let mut opponents: Vec<(String, String, bool)> = Vec::new();
    if let Some((s, net)) = best {
        opponents.push((ladder_name(*s), net_spec(cfg, net), true));
    }
    for b in &cfg.eval.baselines {
        opponents.push((b.clone(), b.clone(), false));
    }
    let mut results = Vec::new();
    for (name, spec, vs_best) in opponents {
        let a = ArenaConfig {
            games: cfg.eval.games,
            threads: cfg.eval.threads,
            // One set of openings (and game seeds) for every evaluation of the
            // run, against every opponent: scores differ by the networks only.
            seed: mix_seed(cfg.run.seed, EVAL_SEED),
            opening_plies: cfg.eval.opening_plies,
            limits: Limits::NONE,
            games_in_flight: cfg.eval.games_in_flight,
            ..ArenaConfig::new(cfg.rules, &player, &spec)
        };
        let r = run_arena(&a, &registry)?;
        results.push(EvalResult {
            opponent: name,
            vs_best,
            games: r.tally.games,
            wins: r.tally.a_wins,
            draws: r.tally.draws,
            losses: r.tally.b_wins,
            score: r.tally.score,
            elo: r.tally.elo,
            elo_low: r.tally.elo_low,
            elo_high: r.tally.elo_high,
        });
    }
    Ok(results)
}

/// `line`'s Elo and 95% interval from one fit over every evaluation so far
/// and this one, random at 0.
fn refit(previous: &[EloLine], line: &EloLine) -> (f64, f64, f64) {
    let mut all = Results::default();
    for l in previous.iter().chain(std::iter::once(line)) {
        for r in &l.results {
            all.add(
                &l.player,
                &r.opponent,
                r.score * r.games as f64,
                r.games as f64,
            );
        }
    }
    all.fit("random")
        .into_iter()
        .find(|(name, _)| *name == line.player)
        .map_or((0.0, 0.0, 0.0), |(_, r)| {
            let (lo, hi) = r.interval();
            (r.elo, lo, hi)
        })
}

fn append_elo(paths: &RunPaths, line: &EloLine) -> Result<(), RunError> {
    let mut f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(paths.elo())
        .map_err(io(&paths.elo()))?;
    let json = serde_json::to_string(line).unwrap_or_default();
    writeln!(f, "{json}").map_err(io(&paths.elo()))?;
    f.sync_all().map_err(io(&paths.elo()))
}

//! A training run: its directory, checkpoints, the generation loop of
//! `shax train`, the worker loop of `shax selfplay`, evaluation and resume.
//!
//! ```text
//! <run>/config.toml                the resolved config (read back on resume and by workers)
//! <run>/checkpoints/step-000000200/ net.bpk + net.meta.toml, optim.bpk, state.json
//! <run>/shards/*.shard             finished games (shard.rs)
//! <run>/tb/events.out.tfevents.*   TensorBoard
//! <run>/elo.jsonl                  one line per evaluation
//! <run>/best.txt                   the best checkpoint so far (gating)
//! <run>/train.log                  the log
//! ```
//!
//! A checkpoint is written into a hidden temporary folder and renamed into
//! place: a folder named `step-N` is always complete. TensorBoard values of
//! step N are written after checkpoint N and also kept in its `state.json`; on
//! resume the event files are read and the values of the newest checkpoint
//! written again only if they are missing, so steps have no gap and no duplicate.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::{Deserialize, Serialize};
use shax_nn::{CheckpointError, CheckpointMeta, NetWeights, load_checkpoint, save_checkpoint};
use shax_search::{Limits, Registry, mix_seed};

use crate::arena::{ArenaConfig, ArenaError, run_arena};
use crate::config::{ConfigError, TrainConfig, config_path};
use crate::elo::fit_bradley_terry;
use crate::replay::{Augmenter, ReplayWindow};
use crate::selfplay::{SelfPlayStats, Worker, play_generation};
use crate::shard::{list_shards, write_atomic, write_shard};
use crate::tb::{TbWriter, read_dir_values, sanitize_tag};
use crate::trainer::{TrainError, Trainer};

/// Why a run could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The config is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A new run's directory exists already.
    #[error("run directory {0} exists; pass --resume to continue it, or choose another --run-dir")]
    Exists(PathBuf),
    /// A run to resume or follow has no config or no checkpoint.
    #[error("{0} is not a run directory with a complete checkpoint ({1})")]
    NotARun(PathBuf, String),
    /// A file could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// A checkpoint could not be written or read.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A training step failed.
    #[error(transparent)]
    Train(#[from] TrainError),
    /// Self-play failed.
    #[error("self-play: {0}")]
    SelfPlay(String),
    /// An evaluation match could not run.
    #[error("evaluation: {0}")]
    Eval(#[from] ArenaError),
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> RunError + '_ {
    move |e| RunError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Where a run's messages go: log lines and progress.
pub trait Observer {
    /// A log line.
    fn line(&mut self, line: &str);
    /// Training progress: `step` of `total`.
    fn progress(&mut self, _step: u64, _total: u64) {}
}

/// Writes lines to the observer and to the run's `train.log`.
struct Log<'a> {
    observer: &'a mut dyn Observer,
    file: Option<fs::File>,
}

impl Log<'_> {
    fn line(&mut self, s: &str) {
        self.observer.line(s);
        if let Some(f) = &mut self.file {
            let _ = writeln!(f, "{} {s}", unix_secs());
        }
    }
}

fn unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn unix_millis() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// The paths of a run directory.
#[derive(Clone, Debug)]
pub struct RunPaths {
    /// The run directory.
    pub root: PathBuf,
}

impl RunPaths {
    /// The paths under `root`.
    pub fn new(root: &Path) -> RunPaths {
        RunPaths {
            root: root.to_path_buf(),
        }
    }
    /// `config.toml`.
    pub fn config(&self) -> PathBuf {
        config_path(&self.root)
    }
    /// `checkpoints/`.
    pub fn checkpoints(&self) -> PathBuf {
        self.root.join("checkpoints")
    }
    /// `shards/`.
    pub fn shards(&self) -> PathBuf {
        self.root.join("shards")
    }
    /// `tb/`.
    pub fn tb(&self) -> PathBuf {
        self.root.join("tb")
    }
    /// `elo.jsonl`.
    pub fn elo(&self) -> PathBuf {
        self.root.join("elo.jsonl")
    }
    /// `best.txt`.
    pub fn best(&self) -> PathBuf {
        self.root.join("best.txt")
    }
    /// `train.log`.
    pub fn log(&self) -> PathBuf {
        self.root.join("train.log")
    }
    /// The checkpoint folder of `step`.
    pub fn checkpoint(&self, step: u64) -> PathBuf {
        self.checkpoints().join(format!("step-{step:09}"))
    }
}

/// The network record inside a checkpoint folder.
pub fn checkpoint_net(dir: &Path) -> PathBuf {
    dir.join("net.bpk")
}

/// The complete checkpoints of a run, `(step, folder)`, oldest first.
pub fn list_checkpoints(run: &Path) -> Vec<(u64, PathBuf)> {
    let dir = RunPaths::new(run).checkpoints();
    let mut out: Vec<(u64, PathBuf)> = fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let step = name.strip_prefix("step-")?.parse().ok()?;
                    Some((step, e.path()))
                })
                .filter(|(_, p)| p.join("state.json").is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// What a checkpoint's `state.json` holds besides the network and optimizer.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TrainState {
    /// Format version of this file.
    pub version: u32,
    /// Training steps done.
    pub step: u64,
    /// Wall-clock seconds of the run so far (over all resumes).
    pub elapsed_secs: f64,
    /// Training samples drawn so far.
    pub samples_trained: u64,
    /// The TensorBoard scalars of this step (written again on resume if missing).
    pub scalars: BTreeMap<String, f32>,
    /// The value predictions of this interval (the histogram), sampled.
    pub value_predictions: Vec<f32>,
}

const STATE_VERSION: u32 = 1;

fn save_checkpoint_dir(
    paths: &RunPaths,
    trainer: &Trainer,
    cfg: &TrainConfig,
    state: &TrainState,
) -> Result<PathBuf, RunError> {
    let fin = paths.checkpoint(state.step);
    let tmp = paths.checkpoints().join(format!(
        ".tmp-step-{:09}-{}",
        state.step,
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).map_err(io(&tmp))?;
    let meta = CheckpointMeta {
        model: cfg.model.clone(),
        rules: cfg.rules,
        step: state.step,
        created_unix: unix_secs(),
    };
    save_checkpoint(&checkpoint_net(&tmp), trainer.network(), &meta)?;
    let optim = tmp.join("optim.bpk");
    write_atomic(&optim, &trainer.optimizer_bytes()?).map_err(io(&optim))?;
    let st = tmp.join("state.json");
    let json = serde_json::to_vec_pretty(state).map_err(|e| RunError::Io {
        path: st.clone(),
        message: e.to_string(),
    })?;
    write_atomic(&st, &json).map_err(io(&st))?;
    fs::copy(paths.config(), tmp.join("config.toml")).map_err(io(&tmp))?;
    if fin.exists() {
        fs::remove_dir_all(&fin).map_err(io(&fin))?;
    }
    fs::rename(&tmp, &fin).map_err(io(&fin))?;
    Ok(fin)
}

fn read_state(dir: &Path) -> Result<TrainState, RunError> {
    let p = dir.join("state.json");
    let text = fs::read(&p).map_err(io(&p))?;
    serde_json::from_slice(&text).map_err(|e| RunError::Io {
        path: p,
        message: e.to_string(),
    })
}

/// Options of [`train`].
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// The run directory.
    pub run_dir: PathBuf,
    /// The config of a new run (ignored on resume: the run's own is used).
    pub config: TrainConfig,
    /// Continue the run in `run_dir` from its newest complete checkpoint.
    pub resume: bool,
    /// Play the games in this process (false: trainer only, shards come from `shax selfplay`).
    pub selfplay: bool,
    /// Stop (as if killed) after this many checkpoints in this call (tests).
    pub stop_after_checkpoints: Option<u64>,
}

/// What a call of [`train`] did.
#[derive(Clone, Debug, Default)]
pub struct TrainSummary {
    /// The step reached.
    pub step: u64,
    /// Checkpoints written in this call.
    pub checkpoints: u64,
    /// Evaluations run in this call.
    pub evaluations: u64,
    /// Positions in the replay window at the end.
    pub window: u64,
    /// Self-play positions per second (self-play phases only).
    pub selfplay_positions_per_sec: f64,
    /// Training samples per second (training phases only).
    pub train_samples_per_sec: f64,
}

/// Runs (or resumes) training: self-play and training in one process, a
/// synchronous generation loop (play until the configured ratio of training
/// samples to new positions allows the next `steps_per_checkpoint` steps,
/// train them, checkpoint, log, evaluate every M checkpoints, repeat).
/// `registry` builds the evaluation players (it must know `net:`).
///
/// # Errors
///
/// [`RunError`] naming what failed; a run directory that exists without
/// `resume` is [`RunError::Exists`].
pub fn train(
    opts: &TrainOptions,
    registry: &Registry,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<TrainSummary, RunError> {
    let paths = RunPaths::new(&opts.run_dir);
    let (cfg, mut trainer, mut state) = if opts.resume {
        let cfg = TrainConfig::load(&paths.config())
            .map_err(|e| RunError::NotARun(paths.root.clone(), e.to_string()))?;
        let (step, dir) = list_checkpoints(&paths.root).pop().ok_or_else(|| {
            RunError::NotARun(paths.root.clone(), "no complete checkpoint".into())
        })?;
        let state = read_state(&dir)?;
        let device = cfg.backend.training_device();
        let ck = load_checkpoint(&checkpoint_net(&dir), Some(&cfg.rules), &device)?;
        let optim = fs::read(dir.join("optim.bpk")).map_err(io(&dir))?;
        let trainer = Trainer::resume(
            &cfg.model,
            &cfg.train,
            cfg.run.total_steps,
            cfg.backend,
            ck.net,
            optim,
            step,
        )?;
        (cfg, trainer, state)
    } else {
        if paths.root.exists() {
            return Err(RunError::Exists(paths.root.clone()));
        }
        let cfg = opts.config.clone();
        for d in [paths.checkpoints(), paths.shards(), paths.tb()] {
            fs::create_dir_all(&d).map_err(io(&d))?;
        }
        write_atomic(&paths.config(), cfg.to_toml().as_bytes()).map_err(io(&paths.config()))?;
        let trainer = Trainer::new(
            &cfg.model,
            &cfg.train,
            cfg.run.total_steps,
            cfg.backend,
            cfg.run.seed,
        );
        let state = TrainState {
            version: STATE_VERSION,
            ..TrainState::default()
        };
        save_checkpoint_dir(&paths, &trainer, &cfg, &state)?;
        (cfg, trainer, state)
    };
    let log_file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(paths.log())
        .ok();
    let mut log = Log {
        observer,
        file: log_file,
    };
    log.line(&format!(
        "{} run {} at step {} of {} ({}; network {} params; {} self-play)",
        if opts.resume { "resuming" } else { "starting" },
        paths.root.display(),
        trainer.step,
        cfg.run.total_steps,
        cfg.rules.name(),
        trainer.num_params(),
        if opts.selfplay {
            format!(
                "{} workers x {} games",
                cfg.workers(),
                cfg.selfplay.games_in_flight
            )
        } else {
            "external".to_string()
        }
    ));
    let mut window = ReplayWindow::new();
    let mut warn = |s: String| log.line(&s);
    window.refresh(&paths.shards(), &cfg.rules, &cfg.train, &mut warn);
    log.line(&format!(
        "replay window: {} positions of {} on disk",
        window.len(),
        window.total()
    ));
    let mut tb = TbWriter::open(&paths.tb()).map_err(io(&paths.tb()))?;
    if opts.resume {
        repair_tensorboard(&paths, &state, &mut tb, &mut log);
    }
    let mut summary = TrainSummary {
        step: trainer.step,
        ..TrainSummary::default()
    };
    // Resume: an evaluation due at the newest checkpoint that did not finish.
    if opts.resume && eval_due(&cfg, state.step) && !elo_has_step(&paths, state.step) {
        evaluate(&paths, &cfg, state.step, registry, &mut tb, &mut log)?;
        summary.evaluations += 1;
    }
    let mut workers: Vec<Worker> = if opts.selfplay {
        (0..cfg.workers())
            .map(|i| {
                Worker::new(
                    cfg.rules,
                    &cfg.selfplay,
                    mix_seed(cfg.run.seed, trainer.step * 1024 + i as u64 + 1),
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut rng = SmallRng::seed_from_u64(mix_seed(cfg.run.seed, trainer.step + 7));
    let aug = Augmenter::new();
    let spc = cfg.train.steps_per_checkpoint;
    let batch = cfg.train.batch_size;
    let started = Instant::now();
    let base_elapsed = state.elapsed_secs;
    let (mut sp_positions, mut sp_secs, mut tr_samples, mut tr_secs) = (0u64, 0f64, 0u64, 0f64);
    let mut interval_start = Instant::now();
    let mut checkpoints = 0u64;
    while trainer.step < cfg.run.total_steps && !stop.load(Ordering::Relaxed) {
        let elapsed = base_elapsed + started.elapsed().as_secs_f64();
        if cfg.run.hours > 0.0 && elapsed >= cfg.run.hours * 3600.0 {
            log.line(&format!("time limit of {} hours reached", cfg.run.hours));
            break;
        }
        let next = (trainer.step + spc).min(cfg.run.total_steps);
        let need = ((next as f64 * batch as f64 / cfg.train.samples_per_position).ceil() as u64)
            .max(batch as u64);
        // Self-play (or wait for external workers) until the data allows the next steps.
        let sp_start = Instant::now();
        let mut waited = 0u64;
        let mut fresh = SelfPlayStats::default();
        let mut warn = |s: String| log.line(&s);
        fresh.merge(&window.refresh(&paths.shards(), &cfg.rules, &cfg.train, &mut warn));
        while window.total() < need && !stop.load(Ordering::Relaxed) {
            if opts.selfplay {
                let weights = worker_weights(&paths, &cfg, &trainer)?;
                let (shards, _) = play_generation(
                    &mut workers,
                    &weights,
                    cfg.backend,
                    trainer.step,
                    need - window.total(),
                    stop,
                )
                .map_err(RunError::SelfPlay)?;
                for (i, s) in shards.iter().enumerate() {
                    let name = format!(
                        "{:013}-{}-{i:02}-s{}.shard",
                        unix_millis(),
                        std::process::id(),
                        trainer.step
                    );
                    let p = paths.shards().join(name);
                    write_shard(&p, s).map_err(|e| RunError::Io {
                        path: p.clone(),
                        message: e.to_string(),
                    })?;
                }
            } else {
                if waited.is_multiple_of(60) {
                    log.line(&format!(
                        "waiting for shards from `shax selfplay` ({} of the {need} positions step {next} needs)",
                        window.total()
                    ));
                }
                waited += 1;
                std::thread::sleep(std::time::Duration::from_millis(500));
            }
            let mut warn = |s: String| log.line(&s);
            let f = window.refresh(&paths.shards(), &cfg.rules, &cfg.train, &mut warn);
            fresh.merge(&f);
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let sp_wall = sp_start.elapsed().as_secs_f64();
        if opts.selfplay {
            sp_positions += fresh.positions;
            sp_secs += sp_wall;
        }
        // Train.
        let tr_start = Instant::now();
        let (mut lp, mut lv, mut n) = (0f64, 0f64, 0u64);
        let mut preds = Vec::new();
        let mut lr = trainer.lr();
        while trainer.step < next && !stop.load(Ordering::Relaxed) {
            let examples = window.sample(&mut rng, batch);
            let b = aug.batch(&examples, &mut rng);
            lr = trainer.lr();
            let l = trainer.train_step(&b)?;
            lp += f64::from(l.policy);
            lv += f64::from(l.value);
            n += 1;
            if preds.len() < 4096 {
                preds.extend_from_slice(&l.predictions[..l.predictions.len().min(256)]);
            }
            log.observer.progress(trainer.step, cfg.run.total_steps);
        }
        if trainer.step < next {
            break; // stopped mid-interval: the last checkpoint stands
        }
        let tr_wall = tr_start.elapsed().as_secs_f64();
        tr_samples += n * batch as u64;
        tr_secs += tr_wall;
        let interval = interval_start.elapsed().as_secs_f64().max(1e-9);
        interval_start = Instant::now();
        let sp_rate_wall = if opts.selfplay {
            sp_wall.max(1e-9)
        } else {
            interval
        };
        let nf = n.max(1) as f64;
        let games = fresh.games.max(1) as f32;
        let mut scalars = BTreeMap::new();
        scalars.insert("loss/policy".to_string(), (lp / nf) as f32);
        scalars.insert("loss/value".to_string(), (lv / nf) as f32);
        scalars.insert("loss/total".to_string(), ((lp + lv) / nf) as f32);
        scalars.insert("train/lr".to_string(), lr as f32);
        scalars.insert(
            "train/samples_per_sec".to_string(),
            (n as f64 * batch as f64 / tr_wall.max(1e-9)) as f32,
        );
        scalars.insert(
            "selfplay/games_per_sec".to_string(),
            (fresh.games as f64 / sp_rate_wall) as f32,
        );
        scalars.insert(
            "selfplay/positions_per_sec".to_string(),
            (fresh.positions as f64 / sp_rate_wall) as f32,
        );
        scalars.insert(
            "selfplay/sims_per_sec".to_string(),
            (fresh.sims as f64 / sp_rate_wall) as f32,
        );
        scalars.insert(
            "selfplay/game_length".to_string(),
            fresh.actions as f32 / games,
        );
        scalars.insert(
            "selfplay/outcome_white".to_string(),
            fresh.white as f32 / games,
        );
        scalars.insert(
            "selfplay/outcome_black".to_string(),
            fresh.black as f32 / games,
        );
        scalars.insert(
            "selfplay/outcome_draw".to_string(),
            fresh.draws as f32 / games,
        );
        scalars.insert("buffer/positions".to_string(), window.len() as f32);
        state = TrainState {
            version: STATE_VERSION,
            step: trainer.step,
            elapsed_secs: base_elapsed + started.elapsed().as_secs_f64(),
            samples_trained: state.samples_trained + n * batch as u64,
            scalars,
            value_predictions: preds,
        };
        save_checkpoint_dir(&paths, &trainer, &cfg, &state)?;
        write_tb_state(&mut tb, &state);
        checkpoints += 1;
        summary.checkpoints += 1;
        log.line(&format!(
            "step {} | loss {:.3} (policy {:.3}, value {:.3}) | lr {:.2e} | {} games, {:.1} positions/s self-play, {:.0} samples/s training | window {}",
            trainer.step,
            (lp + lv) / nf,
            lp / nf,
            lv / nf,
            lr,
            fresh.games,
            fresh.positions as f64 / sp_rate_wall,
            n as f64 * batch as f64 / tr_wall.max(1e-9),
            window.len()
        ));
        if eval_due(&cfg, trainer.step) {
            evaluate(&paths, &cfg, trainer.step, registry, &mut tb, &mut log)?;
            summary.evaluations += 1;
        }
        prune_checkpoints(&paths, &cfg);
        if opts
            .stop_after_checkpoints
            .is_some_and(|k| checkpoints >= k)
        {
            break;
        }
    }
    tb.flush();
    summary.step = trainer.step;
    summary.window = window.len();
    summary.selfplay_positions_per_sec = sp_positions as f64 / sp_secs.max(1e-9);
    summary.train_samples_per_sec = tr_samples as f64 / tr_secs.max(1e-9);
    log.line(&format!(
        "stopped at step {} ({} checkpoints, {} evaluations in this session)",
        summary.step, summary.checkpoints, summary.evaluations
    ));
    Ok(summary)
}

/// Newest checkpoints kept besides the evaluated ones, the best and step 0.
pub const KEEP_NEWEST_CHECKPOINTS: usize = 3;

/// Deletes the checkpoints no one needs: all but step 0, the newest
/// [`KEEP_NEWEST_CHECKPOINTS`], every one an evaluation is due at (the Elo
/// ladder names them) and the best. Failures are ignored (a worker may be reading one).
fn prune_checkpoints(paths: &RunPaths, cfg: &TrainConfig) {
    let all = list_checkpoints(&paths.root);
    let best = read_best(paths).map(|b| b.0);
    let newest = all.len().saturating_sub(KEEP_NEWEST_CHECKPOINTS);
    for (i, (step, dir)) in all.iter().enumerate() {
        if i >= newest || *step == 0 || Some(*step) == best || eval_due(cfg, *step) {
            continue;
        }
        let _ = fs::remove_dir_all(dir);
    }
}

/// The network the workers play with: the newest, or the best with gating.
fn worker_weights(
    paths: &RunPaths,
    cfg: &TrainConfig,
    trainer: &Trainer,
) -> Result<NetWeights, RunError> {
    if cfg.eval.gating
        && let Some(best) = read_best(paths)
    {
        let (_, w) = shax_nn::load_weights(&best.1, Some(&cfg.rules))?;
        return Ok(w);
    }
    Ok(trainer.weights()?)
}

fn write_tb_state(tb: &mut TbWriter, state: &TrainState) {
    for (tag, v) in &state.scalars {
        tb.scalar(tag, *v, state.step);
    }
    tb.histogram(
        "train/value_predictions",
        &state.value_predictions,
        -1.0,
        1.0,
        40,
        state.step,
    );
    tb.flush();
}

/// Writes again the values of the newest checkpoint (and of the newest
/// evaluation) that the event files lack.
fn repair_tensorboard(paths: &RunPaths, state: &TrainState, tb: &mut TbWriter, log: &mut Log) {
    let logged = read_dir_values(&paths.tb());
    let max_step = |tag: &str| {
        logged
            .get(tag)
            .and_then(|v| v.iter().map(|&(s, _)| s).max())
            .unwrap_or(-1)
    };
    if state.step > 0 && max_step("loss/total") < state.step as i64 {
        log.line(&format!(
            "tensorboard: writing the values of step {} again (the run stopped before they were flushed)",
            state.step
        ));
        write_tb_state(tb, state);
    }
    if let Some(last) = read_elo(paths).pop()
        && max_step("eval/elo") < last.step as i64
    {
        write_tb_eval(tb, &last);
    }
}

fn eval_due(cfg: &TrainConfig, step: u64) -> bool {
    let every = cfg.eval.every_checkpoints;
    if every == 0 || step == 0 {
        return false;
    }
    let index = step.div_ceil(cfg.train.steps_per_checkpoint);
    index.is_multiple_of(every) || step >= cfg.run.total_steps
}

/// One opponent's result in an evaluation.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EvalResult {
    /// The opponent: a baseline spec or `step-N`.
    pub opponent: String,
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

fn elo_has_step(paths: &RunPaths, step: u64) -> bool {
    read_elo(paths).iter().any(|l| l.step == step)
}

fn read_best(paths: &RunPaths) -> Option<(u64, PathBuf)> {
    let text = fs::read_to_string(paths.best()).ok()?;
    let step: u64 = text.trim().parse().ok()?;
    let dir = paths.checkpoint(step);
    dir.join("state.json")
        .is_file()
        .then(|| (step, checkpoint_net(&dir)))
}

fn write_tb_eval(tb: &mut TbWriter, line: &EloLine) {
    tb.scalar("eval/elo", line.elo as f32, line.step);
    for r in &line.results {
        let name = if r.opponent.starts_with("step-") {
            "best".to_string()
        } else {
            sanitize_tag(&r.opponent)
        };
        tb.scalar(&format!("eval/score_vs_{name}"), r.score as f32, line.step);
    }
    tb.flush();
}

/// Plays the checkpoint of `step` against the best so far and the baselines,
/// refits the ladder over every evaluation, appends to `elo.jsonl`, logs.
fn evaluate(
    paths: &RunPaths,
    cfg: &TrainConfig,
    step: u64,
    registry: &Registry,
    tb: &mut TbWriter,
    log: &mut Log,
) -> Result<EloLine, RunError> {
    let t = Instant::now();
    let net = checkpoint_net(&paths.checkpoint(step));
    let player = format!(
        "net:{},sims={}{}",
        net.display(),
        cfg.eval.sims,
        if cfg.eval.gumbel { ",gumbel" } else { "" }
    );
    let label = format!("step-{step}");
    let previous = read_elo(paths);
    let best = read_best(paths).filter(|(s, _)| *s != step);
    let mut opponents: Vec<(String, String)> = Vec::new();
    if let Some((s, p)) = &best {
        opponents.push((
            format!("step-{s}"),
            format!(
                "net:{},sims={}{}",
                p.display(),
                cfg.eval.sims,
                if cfg.eval.gumbel { ",gumbel" } else { "" }
            ),
        ));
    }
    for b in &cfg.eval.baselines {
        opponents.push((b.clone(), b.clone()));
    }
    let mut results = Vec::new();
    for (i, (name, spec)) in opponents.iter().enumerate() {
        let a = ArenaConfig {
            rules: cfg.rules,
            a: player.clone(),
            b: spec.clone(),
            games: cfg.eval.games,
            threads: cfg.eval.threads,
            seed: mix_seed(cfg.run.seed, step * 64 + i as u64),
            opening_plies: cfg.eval.opening_plies,
            limits: Limits::NONE,
            progress: None,
        };
        let r = run_arena(&a, registry)?;
        results.push(EvalResult {
            opponent: name.clone(),
            games: r.games,
            wins: r.a_wins,
            draws: r.draws,
            losses: r.b_wins,
            score: r.score,
        });
    }
    // One ladder over every evaluation so far, random at 0.
    let mut names: Vec<String> = Vec::new();
    let index = |n: &str, names: &mut Vec<String>| -> usize {
        names.iter().position(|x| x == n).unwrap_or_else(|| {
            names.push(n.to_string());
            names.len() - 1
        })
    };
    let mut pairs = Vec::new();
    for line in previous.iter().chain(std::iter::once(&EloLine {
        step,
        player: label.clone(),
        elo: 0.0,
        elo_low: 0.0,
        elo_high: 0.0,
        results: results.clone(),
        best_step: 0,
    })) {
        let i = index(&line.player, &mut names);
        for r in &line.results {
            let j = index(&r.opponent, &mut names);
            if i != j {
                pairs.push((i, j, r.score * r.games as f64, r.games as f64));
            }
        }
    }
    let anchor = names.iter().position(|n| n == "random").unwrap_or(0);
    let ratings = fit_bradley_terry(names.len(), &pairs, anchor);
    let me = index(&label, &mut names);
    let (lo, hi) = ratings[me].interval();
    let vs_best = results
        .iter()
        .find(|r| r.opponent.starts_with("step-"))
        .map(|r| r.score);
    let promote = match (cfg.eval.gating, vs_best) {
        (true, Some(s)) => s >= cfg.eval.gating_threshold,
        _ => true,
    };
    let best_step = if promote {
        write_atomic(&paths.best(), format!("{step}\n").as_bytes()).map_err(io(&paths.best()))?;
        step
    } else {
        best.map_or(step, |b| b.0)
    };
    let line = EloLine {
        step,
        player: label,
        elo: ratings[me].elo,
        elo_low: lo,
        elo_high: hi,
        results,
        best_step,
    };
    let mut f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(paths.elo())
        .map_err(io(&paths.elo()))?;
    let json = serde_json::to_string(&line).unwrap_or_default();
    writeln!(f, "{json}").map_err(io(&paths.elo()))?;
    f.sync_all().map_err(io(&paths.elo()))?;
    write_tb_eval(tb, &line);
    let scores: Vec<String> = line
        .results
        .iter()
        .map(|r| format!("{} {:.0}%", r.opponent, 100.0 * r.score))
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

/// Options of [`selfplay`].
#[derive(Clone, Debug)]
pub struct SelfPlayOptions {
    /// The run directory (its `config.toml` and checkpoints).
    pub run_dir: PathBuf,
    /// Worker threads; `None`: the config's.
    pub workers: Option<usize>,
    /// Positions per shard written.
    pub shard_positions: u64,
    /// Stop after this many positions; `None`: until the run's last step is
    /// checkpointed (or `stop`).
    pub max_positions: Option<u64>,
    /// A seed mixed into the run's (give each process its own).
    pub seed: u64,
}

/// Self-play workers only (`shax selfplay`): follow the newest checkpoint of
/// the run (the best one with gating), write shards, until the run's final
/// step is checkpointed, `max_positions` are made, or `stop`.
///
/// # Errors
///
/// [`RunError`] naming what failed.
pub fn selfplay(
    opts: &SelfPlayOptions,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<SelfPlayStats, RunError> {
    let paths = RunPaths::new(&opts.run_dir);
    let mut cfg = TrainConfig::load(&paths.config())
        .map_err(|e| RunError::NotARun(paths.root.clone(), e.to_string()))?;
    if let Some(w) = opts.workers {
        cfg.selfplay.workers = w;
    }
    let seed = mix_seed(cfg.run.seed, opts.seed ^ u64::from(std::process::id()));
    let mut workers: Vec<Worker> = (0..cfg.workers())
        .map(|i| Worker::new(cfg.rules, &cfg.selfplay, mix_seed(seed, i as u64)))
        .collect();
    let mut total = SelfPlayStats::default();
    let mut current: Option<(u64, NetWeights)> = None;
    let mut k = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let newest = if cfg.eval.gating {
            read_best(&paths).or_else(|| {
                list_checkpoints(&paths.root)
                    .pop()
                    .map(|(s, d)| (s, checkpoint_net(&d)))
            })
        } else {
            list_checkpoints(&paths.root)
                .pop()
                .map(|(s, d)| (s, checkpoint_net(&d)))
        };
        let Some((step, net)) = newest else {
            return Err(RunError::NotARun(
                paths.root.clone(),
                "no complete checkpoint".into(),
            ));
        };
        if step >= cfg.run.total_steps {
            observer.line(&format!("the run reached its last step ({step}); stopping"));
            break;
        }
        if current.as_ref().is_none_or(|(s, _)| *s != step) {
            match shax_nn::load_weights(&net, Some(&cfg.rules)) {
                Ok((_, w)) => {
                    observer.line(&format!("playing with the network of step {step}"));
                    current = Some((step, w));
                }
                // Pruned or replaced while being read: look again.
                Err(e) if current.is_some() || list_checkpoints(&paths.root).len() > 1 => {
                    observer.line(&format!(
                        "warning: {e}; looking for the newest checkpoint again"
                    ));
                    std::thread::sleep(std::time::Duration::from_millis(500));
                    continue;
                }
                Err(e) => return Err(e.into()),
            }
        }
        let Some((step, weights)) = &current else {
            continue;
        };
        let (shards, s) = play_generation(
            &mut workers,
            weights,
            cfg.backend,
            *step,
            opts.shard_positions,
            stop,
        )
        .map_err(RunError::SelfPlay)?;
        fs::create_dir_all(paths.shards()).map_err(io(&paths.shards()))?;
        for (i, sh) in shards.iter().enumerate() {
            let name = format!(
                "{:013}-{}-{k}-{i:02}-s{step}.shard",
                unix_millis(),
                std::process::id()
            );
            let p = paths.shards().join(name);
            write_shard(&p, sh).map_err(|e| RunError::Io {
                path: p.clone(),
                message: e.to_string(),
            })?;
        }
        k += 1;
        total.merge(&s);
        total.seconds += s.seconds;
        observer.line(&format!(
            "{} games, {} positions ({:.1} positions/s, {:.0} sims/s)",
            s.games,
            s.positions,
            s.positions as f64 / s.seconds.max(1e-9),
            s.sims as f64 / s.seconds.max(1e-9)
        ));
        if opts.max_positions.is_some_and(|m| total.positions >= m) {
            break;
        }
    }
    Ok(total)
}

/// What `shax inspect` prints about a run directory.
#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    /// The run directory.
    pub run_dir: String,
    /// The rules' name.
    pub rules: String,
    /// The newest complete checkpoint's step.
    pub step: Option<u64>,
    /// Steps the config asks for.
    pub total_steps: u64,
    /// Complete checkpoints.
    pub checkpoints: usize,
    /// Shard files and the positions they hold.
    pub shards: usize,
    /// Positions in the shards (those that read).
    pub positions: u64,
    /// Games in the shards.
    pub games: u64,
    /// The newest evaluation.
    pub newest_elo: Option<EloLine>,
    /// Wall-clock hours so far.
    pub hours: f64,
    /// The resolved config.
    pub config: String,
    /// Event files.
    pub event_files: usize,
}

/// Describes a run directory.
///
/// # Errors
///
/// [`RunError::NotARun`] when it has no readable config.
pub fn inspect_run(run: &Path) -> Result<RunInfo, RunError> {
    let paths = RunPaths::new(run);
    let config = fs::read_to_string(paths.config())
        .map_err(|e| RunError::NotARun(run.to_path_buf(), e.to_string()))?;
    let cfg = TrainConfig::parse(&config, &paths.config().display().to_string())?;
    let ckpts = list_checkpoints(run);
    let newest = ckpts.last();
    let state = newest.and_then(|(_, d)| read_state(d).ok());
    let shards = list_shards(&paths.shards());
    let (mut positions, mut games) = (0u64, 0u64);
    for s in &shards {
        if let Ok(sh) = crate::shard::read_shard(s) {
            positions += sh.positions() as u64;
            games += sh.games.len() as u64;
        }
    }
    Ok(RunInfo {
        run_dir: run.display().to_string(),
        rules: cfg.rules.name(),
        step: newest.map(|c| c.0),
        total_steps: cfg.run.total_steps,
        checkpoints: ckpts.len(),
        shards: shards.len(),
        positions,
        games,
        newest_elo: read_elo(&paths).pop(),
        hours: state.map_or(0.0, |s| s.elapsed_secs / 3600.0),
        config,
        event_files: crate::tb::event_files(&paths.tb()).len(),
    })
}

//! A training run, `shax train`: self-play and training in one process (or
//! training only, with `shax selfplay` workers elsewhere), as a short loop of
//! named steps over a [`Run`]. The run directory's layout is in
//! [`crate::paths`], checkpoints in [`crate::checkpoints`], evaluation in
//! [`crate::evaluate`], the outside workers in [`crate::follow`].
//!
//! TensorBoard values of step N are written after checkpoint N and also kept
//! in its `state.json`; on resume the event files are read and the values of
//! the newest checkpoint written again only if they are missing, so steps have
//! no gap and no duplicate.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use shax_nn::{CheckpointError, load_checkpoint};
use shax_search::mix_seed;

use crate::arena::ArenaError;
use crate::checkpoints::{
    STATE_VERSION, TrainState, prune_checkpoints, read_state, save_checkpoint_dir, worker_weights,
    write_state,
};
use crate::config::{ConfigError, TrainConfig};
use crate::evaluate::{elo_has_step, eval_due, evaluate, read_elo, write_tb_eval};
use crate::paths::{CheckpointDir, RunPaths};
use crate::replay::{Augmenter, ReplayWindow};
use crate::selfplay::{SelfPlayStats, Worker, play_generation};
use crate::shard::{Shard, write_atomic, write_shard};
use crate::starts::StartPositions;
use crate::tb::{TbWriter, read_dir_values};
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
    /// The checkpoint of `run.init` could not start the run.
    #[error("run.init {}: {error}", path.display())]
    Init {
        /// The path as given.
        path: PathBuf,
        /// Why it could not be loaded.
        error: CheckpointError,
    },
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

/// The positions of `selfplay.start_records`, read once for every worker.
///
/// # Errors
///
/// [`RunError::SelfPlay`] naming the file and what is wrong with it.
pub(crate) fn start_positions(cfg: &TrainConfig) -> Result<Option<Arc<StartPositions>>, RunError> {
    let path = &cfg.selfplay.start_records;
    if path.is_empty() {
        return Ok(None);
    }
    let starts = StartPositions::load(Path::new(path), &cfg.rules)
        .map_err(|e| RunError::SelfPlay(format!("selfplay.start_records {e}")))?;
    Ok(Some(Arc::new(starts)))
}

/// An I/O error of `path` as a [`RunError`].
pub(crate) fn io(path: &Path) -> impl Fn(std::io::Error) -> RunError + '_ {
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
pub(crate) struct Log<'a> {
    observer: &'a mut dyn Observer,
    file: Option<fs::File>,
}

impl Log<'_> {
    pub(crate) fn line(&mut self, s: &str) {
        self.observer.line(s);
        if let Some(f) = &mut self.file {
            let _ = writeln!(f, "{} {s}", unix_secs());
        }
    }
}

pub(crate) fn unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
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
    /// Positions per second: played in this process (self-play phases
    /// only), or received from outside workers (over the whole time) when
    /// `external_selfplay`.
    pub selfplay_positions_per_sec: f64,
    /// Whether the positions came from `shax selfplay` workers.
    pub external_selfplay: bool,
    /// Training samples per second (training phases only).
    pub train_samples_per_sec: f64,
}

/// Runs (or resumes) training: self-play and training in one process, a
/// synchronous generation loop (play until the configured ratio of training
/// samples to new positions allows the next `steps_per_checkpoint` steps,
/// train them, checkpoint, log, evaluate every M checkpoints, repeat).
/// Evaluations build their players with [`shax_nn::registry`].
///
/// # Errors
///
/// [`RunError`] naming what failed; a run directory that exists without
/// `resume` is [`RunError::Exists`].
pub fn train(
    opts: &TrainOptions,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<TrainSummary, RunError> {
    let mut run = Run::open(opts, observer)?;
    run.evaluate_missed()?;
    while run.wants_more(stop)? {
        let Some(mut fresh) = run.gather(stop)? else {
            break;
        };
        let (losses, ahead) = run.train_playing_ahead(stop)?;
        if let Some(ahead) = ahead {
            fresh.stats.merge(&ahead.stats);
            fresh.seconds += ahead.seconds;
        }
        let Some(losses) = losses else {
            break; // stopped mid-interval: the last checkpoint stands
        };
        run.checkpoint(&fresh, &losses)?;
        run.evaluate_if_due()?;
        prune_checkpoints(&run.paths, &run.cfg);
        if opts
            .stop_after_checkpoints
            .is_some_and(|k| run.summary.checkpoints >= k)
        {
            break;
        }
    }
    if run.time_up {
        run.evaluate_last()?;
    }
    Ok(run.finish())
}

/// The losses of one interval of training steps.
struct Losses {
    policy: f64,
    value: f64,
    /// The material head's loss, summed (`None` without the head).
    material: Option<f64>,
    /// What was minimised, summed (see [`crate::trainer::StepLoss::total`]).
    total: f64,
    steps: u64,
    lr: f64,
    seconds: f64,
    predictions: Vec<f32>,
}

impl Losses {
    fn mean(&self, sum: f64) -> f64 {
        sum / self.steps.max(1) as f64
    }
}

/// What was gathered for one interval: the new games' statistics, and the
/// seconds it took.
struct Fresh {
    stats: SelfPlayStats,
    seconds: f64,
}

/// A run being trained: everything the loop's steps share.
struct Run<'a> {
    paths: RunPaths,
    cfg: TrainConfig,
    trainer: Trainer,
    state: TrainState,
    window: ReplayWindow,
    tb: TbWriter,
    log: Log<'a>,
    workers: Vec<Worker>,
    rng: SmallRng,
    aug: Augmenter,
    selfplay: bool,
    resumed: bool,
    /// The run stopped at its `run.hours` limit.
    time_up: bool,
    started: Instant,
    base_elapsed: f64,
    /// CPU seconds of the run before this call, and of the process when it began.
    base_cpu: f64,
    cpu_at_start: f64,
    interval_start: Instant,
    summary: TrainSummary,
    /// Positions gathered and their seconds; samples trained and theirs.
    rates: (u64, f64, u64, f64),
}

impl<'a> Run<'a> {
    /// Opens a new run or resumes one, and logs what it is.
    fn open(opts: &TrainOptions, observer: &'a mut dyn Observer) -> Result<Run<'a>, RunError> {
        let paths = RunPaths::new(&opts.run_dir);
        let (cfg, trainer, state) = if opts.resume {
            resume_run(&paths)?
        } else {
            create_run(&paths, &opts.config)?
        };
        let aug = Augmenter::new()
            .with_search_value_weight(cfg.train.search_value_weight)
            .with_encoder(cfg.model.encoder);
        let file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(paths.log())
            .ok();
        let mut log = Log { observer, file };
        log.line(&start_line(opts, &paths, &cfg, &trainer));
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
        let workers = if opts.selfplay {
            let starts = start_positions(&cfg)?;
            (0..cfg.workers())
                .map(|i| {
                    let seed = mix_seed(cfg.run.seed, trainer.step * 1024 + i as u64 + 1);
                    Worker::new(cfg.rules, &cfg.selfplay, starts.clone(), seed)
                })
                .collect()
        } else {
            Vec::new()
        };
        let rng = SmallRng::seed_from_u64(mix_seed(cfg.run.seed, trainer.step + 7));
        Ok(Run {
            summary: TrainSummary {
                step: trainer.step,
                external_selfplay: !opts.selfplay,
                ..TrainSummary::default()
            },
            base_elapsed: state.elapsed_secs,
            base_cpu: state.cpu_secs,
            cpu_at_start: process_cpu_secs(),
            paths,
            cfg,
            trainer,
            state,
            window,
            tb,
            log,
            workers,
            rng,
            aug,
            selfplay: opts.selfplay,
            resumed: opts.resume,
            time_up: false,
            started: Instant::now(),
            interval_start: Instant::now(),
            rates: (0, 0.0, 0, 0.0),
        })
    }

    /// On resume: the evaluation due at the newest checkpoint, if it did not finish.
    fn evaluate_missed(&mut self) -> Result<(), RunError> {
        let step = self.state.step;
        if self.resumed && eval_due(&self.cfg, step) && !elo_has_step(&self.paths, step) {
            self.evaluate_state()?;
        }
        Ok(())
    }

    /// Whether to go on: steps left, not stopped, within `run.hours`.
    fn wants_more(&mut self, stop: &AtomicBool) -> Result<bool, RunError> {
        if self.trainer.step >= self.cfg.run.total_steps || stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        let hours = self.cfg.run.hours;
        if hours > 0.0 && self.elapsed() >= hours * 3600.0 {
            self.log
                .line(&format!("time limit of {hours} hours reached"));
            self.time_up = true;
            self.record_time_spent()?;
            return Ok(false);
        }
        Ok(true)
    }

    /// Writes the run's time so far into the newest checkpoint, which holds
    /// it for a resume: a run that stopped at its time limit stays stopped,
    /// however long its last evaluation took after the checkpoint was written.
    fn record_time_spent(&mut self) -> Result<(), RunError> {
        let dir = self.paths.checkpoint(self.state.step);
        if self.trainer.step != self.state.step || !dir.state().exists() {
            return Ok(());
        }
        self.state.elapsed_secs = self.elapsed();
        self.state.cpu_secs = self.cpu();
        write_state(&dir, &self.state)
    }

    /// Wall-clock seconds of the run so far, over all resumes.
    fn elapsed(&self) -> f64 {
        self.base_elapsed + self.started.elapsed().as_secs_f64()
    }

    /// CPU seconds of the trainer's process over the run so far, over all resumes.
    fn cpu(&self) -> f64 {
        self.base_cpu + (process_cpu_secs() - self.cpu_at_start).max(0.0)
    }

    /// New positions that `steps` training steps call for at the configured
    /// ratio of training samples to new positions (the pace of self-play).
    fn positions_for(&self, steps: u64) -> u64 {
        let samples = steps as f64 * self.cfg.train.batch_size as f64;
        (samples / self.cfg.train.samples_per_position).ceil() as u64
    }

    /// The step the next interval trains to.
    fn next_step(&self) -> u64 {
        (self.trainer.step + self.cfg.train.steps_per_checkpoint).min(self.cfg.run.total_steps)
    }

    /// Plays (or waits for outside workers) until the replay window holds
    /// the positions the next interval's steps need; `None` when stopped.
    fn gather(&mut self, stop: &AtomicBool) -> Result<Option<Fresh>, RunError> {
        let next = self.next_step();
        let need = self
            .positions_for(next)
            .max(self.cfg.train.batch_size as u64);
        let start = Instant::now();
        let mut fresh = self.refresh_window();
        let mut waited = 0u64;
        while self.window.total() < need && !stop.load(Ordering::Relaxed) {
            if self.selfplay {
                self.play(need - self.window.total(), stop)?;
            } else {
                if waited.is_multiple_of(60) {
                    self.log.line(&format!(
                        "waiting for shards from `shax selfplay` ({} of the {need} positions step {next} needs)",
                        self.window.total()
                    ));
                }
                waited += 1;
                std::thread::sleep(std::time::Duration::from_millis(500));
            }
            fresh.merge(&self.refresh_window());
        }
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        Ok(Some(Fresh {
            stats: fresh,
            seconds: start.elapsed().as_secs_f64(),
        }))
    }

    /// Reads new shards into the window; what they held.
    fn refresh_window(&mut self) -> SelfPlayStats {
        let log = &mut self.log;
        let mut warn = |s: String| log.line(&s);
        self.window.refresh(
            &self.paths.shards(),
            &self.cfg.rules,
            &self.cfg.train,
            &mut warn,
        )
    }

    /// Plays a generation of about `positions` positions in this process and
    /// writes its shards.
    fn play(&mut self, positions: u64, stop: &AtomicBool) -> Result<(), RunError> {
        let weights = worker_weights(&self.paths, &self.cfg, &self.trainer)?;
        let (shards, _) = play_generation(
            &mut self.workers,
            &weights,
            self.cfg.backend,
            self.trainer.step,
            positions,
            stop,
        )
        .map_err(RunError::SelfPlay)?;
        self.write_shards(&shards, "")
    }

    /// Writes a generation's shards (`tag` tells generations of one step apart).
    fn write_shards(&self, shards: &[Shard], tag: &str) -> Result<(), RunError> {
        for (i, s) in shards.iter().enumerate() {
            let p = self.paths.shard(&format!("{i:02}{tag}"), self.trainer.step);
            write_shard(&p, s).map_err(|e| RunError::Io {
                path: p.clone(),
                message: e.to_string(),
            })?;
        }
        Ok(())
    }

    /// Trains the next interval while the workers play the positions the one
    /// after it needs, with the network they have (one interval behind, as in
    /// KataGo's and lc0's pipelines): training keeps about one core busy, so without
    /// this every other core would wait. The interval's losses (`None` when
    /// stopped) and what was played ahead (written as shards; the next
    /// `gather` reads them).
    fn train_playing_ahead(
        &mut self,
        stop: &AtomicBool,
    ) -> Result<(Option<Losses>, Option<Fresh>), RunError> {
        // Nothing to play ahead for after the last interval.
        if !self.selfplay || self.next_step() >= self.cfg.run.total_steps {
            return Ok((self.train_interval(stop)?, None));
        }
        let ahead = self.positions_for(self.next_step() - self.trainer.step);
        let weights = worker_weights(&self.paths, &self.cfg, &self.trainer)?;
        let mut workers = std::mem::take(&mut self.workers);
        let (backend, step) = (self.cfg.backend, self.trainer.step);
        let start = Instant::now();
        let (losses, played) = std::thread::scope(|scope| {
            let player = scope.spawn(|| {
                play_generation(&mut workers, &weights, backend, step, ahead, stop)
                    .map(|g| (g, start.elapsed().as_secs_f64()))
            });
            let losses = self.train_interval(stop);
            let played = player
                .join()
                .unwrap_or_else(|_| Err("a self-play worker panicked".into()));
            (losses, played)
        });
        self.workers = workers;
        let ((shards, stats), seconds) = played.map_err(RunError::SelfPlay)?;
        self.write_shards(&shards, "a")?;
        Ok((losses?, Some(Fresh { stats, seconds })))
    }

    /// Trains up to the next checkpoint's step; `None` when stopped before.
    fn train_interval(&mut self, stop: &AtomicBool) -> Result<Option<Losses>, RunError> {
        let next = self.next_step();
        let batch = self.cfg.train.batch_size;
        let start = Instant::now();
        let mut l = Losses {
            policy: 0.0,
            value: 0.0,
            material: None,
            total: 0.0,
            steps: 0,
            lr: self.trainer.lr(),
            seconds: 0.0,
            predictions: Vec::new(),
        };
        while self.trainer.step < next && !stop.load(Ordering::Relaxed) {
            let examples = self.window.sample(&mut self.rng, batch);
            let b = self.aug.batch(&examples, &mut self.rng);
            // The cosine follows steps or run.hours, whichever is further.
            let elapsed = self.elapsed();
            self.trainer.set_elapsed(elapsed, self.cfg.run.hours);
            l.lr = self.trainer.lr();
            let step = self.trainer.train_step(&b)?;
            l.policy += f64::from(step.policy);
            l.value += f64::from(step.value);
            l.total += f64::from(step.total);
            if let Some(m) = step.material {
                *l.material.get_or_insert(0.0) += f64::from(m);
            }
            l.steps += 1;
            if l.predictions.len() < 4096 {
                let n = step.predictions.len().min(256);
                l.predictions.extend_from_slice(&step.predictions[..n]);
            }
            self.log
                .observer
                .progress(self.trainer.step, self.cfg.run.total_steps);
        }
        if self.trainer.step < next {
            return Ok(None);
        }
        l.seconds = start.elapsed().as_secs_f64();
        Ok(Some(l))
    }

    /// Writes the checkpoint of the interval just trained, its TensorBoard
    /// values and its log line.
    fn checkpoint(&mut self, fresh: &Fresh, l: &Losses) -> Result<(), RunError> {
        let batch = self.cfg.train.batch_size as u64;
        let interval = self.interval_start.elapsed().as_secs_f64().max(1e-9);
        self.interval_start = Instant::now();
        // In-process self-play is timed by its own phase; outside workers'
        // positions arrive over the whole interval.
        let gather_secs = if self.selfplay {
            fresh.seconds.max(1e-9)
        } else {
            interval
        };
        self.rates.0 += fresh.stats.positions;
        self.rates.1 += gather_secs;
        self.rates.2 += l.steps * batch;
        self.rates.3 += l.seconds;
        let (elapsed, cpu) = (self.elapsed(), self.cpu());
        let window = self.window.len();
        let scalars = interval_scalars(fresh, gather_secs, l, (batch, window), (elapsed, cpu));
        self.state = TrainState {
            version: STATE_VERSION,
            step: self.trainer.step,
            elapsed_secs: elapsed,
            cpu_secs: cpu,
            samples_trained: self.state.samples_trained + l.steps * batch,
            scalars,
            value_predictions: l.predictions.clone(),
        };
        save_checkpoint_dir(&self.paths, &self.trainer, &self.cfg, &self.state)?;
        write_tb_state(&mut self.tb, &self.state);
        self.summary.checkpoints += 1;
        self.log.line(&format!(
            "step {} | loss {:.3} (policy {:.3}, value {:.3}{}) | lr {:.2e} | {} games, {:.1} positions/s {}, {:.0} samples/s training | window {}",
            self.trainer.step,
            l.mean(l.total),
            l.mean(l.policy),
            l.mean(l.value),
            l.material
                .map(|m| format!(", material {:.3}", l.mean(m)))
                .unwrap_or_default(),
            l.lr,
            fresh.stats.games,
            fresh.stats.positions as f64 / gather_secs,
            if self.selfplay { "self-play" } else { "received" },
            (l.steps * batch) as f64 / l.seconds.max(1e-9),
            self.window.len()
        ));
        Ok(())
    }

    /// Evaluates the checkpoint of the current state and counts it.
    fn evaluate_state(&mut self) -> Result<(), RunError> {
        evaluate(
            &self.paths,
            &self.cfg,
            &self.state,
            &mut self.tb,
            &mut self.log,
        )?;
        self.summary.evaluations += 1;
        Ok(())
    }

    fn evaluate_if_due(&mut self) -> Result<(), RunError> {
        if eval_due(&self.cfg, self.trainer.step) {
            self.evaluate_state()?;
        }
        Ok(())
    }

    /// At the time limit: the last checkpoint's evaluation, unless it had one
    /// (a run that stops on `run.total_steps` evaluates its last as it is due).
    fn evaluate_last(&mut self) -> Result<(), RunError> {
        let step = self.state.step;
        if self.cfg.eval.every_checkpoints > 0 && step > 0 && !elo_has_step(&self.paths, step) {
            self.evaluate_state()?;
        }
        Ok(())
    }

    /// The summary of this call, logged.
    fn finish(mut self) -> TrainSummary {
        self.tb.flush();
        let (positions, gather_secs, samples, train_secs) = self.rates;
        let s = &mut self.summary;
        s.step = self.trainer.step;
        s.window = self.window.len();
        s.selfplay_positions_per_sec = positions as f64 / gather_secs.max(1e-9);
        s.train_samples_per_sec = samples as f64 / train_secs.max(1e-9);
        let line = format!(
            "stopped at step {} ({} checkpoints, {} evaluations in this session)",
            s.step, s.checkpoints, s.evaluations
        );
        self.log.line(&line);
        self.summary
    }
}

/// CPU seconds (user + system, every thread) of this process so far, from
/// `/proc/self/stat` (in USER_HZ = 100 ticks a second); 0 where there is no
/// such file.
fn process_cpu_secs() -> f64 {
    let Ok(stat) = fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // After the command name in parentheses: state is field 3, utime 14, stime 15.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    match (ticks(11), ticks(12)) {
        (Some(u), Some(s)) => (u + s) / 100.0,
        _ => 0.0,
    }
}

/// The first log line: new or resumed, where, how far, what.
fn start_line(opts: &TrainOptions, paths: &RunPaths, cfg: &TrainConfig, t: &Trainer) -> String {
    let from = match (&cfg.run.init, opts.resume) {
        (Some(init), false) => format!(" from the weights of {}", init.display()),
        _ => String::new(),
    };
    format!(
        "{} run {} at step {} of {}{from} ({}; network {} x {}, {} params; {} self-play)",
        if opts.resume { "resuming" } else { "starting" },
        paths.root.display(),
        t.step,
        cfg.run.total_steps,
        cfg.rules.name(),
        cfg.model.hidden,
        cfg.model.blocks,
        t.num_params(),
        if opts.selfplay {
            format!(
                "{} workers x {} games",
                cfg.workers(),
                cfg.selfplay.games_in_flight
            )
        } else {
            "external".to_string()
        }
    )
}

/// A new run: its folders, its config, and checkpoint 0 (random weights, or
/// those of `run.init` with its shape, which the saved config then records;
/// or, when `[model]` asks for that shape grown (more blocks, the material
/// head) and nothing else changed, those weights grown: new blocks start as
/// identities, a new material head from random weights).
fn create_run(
    paths: &RunPaths,
    cfg: &TrainConfig,
) -> Result<(TrainConfig, Trainer, TrainState), RunError> {
    if paths.root.exists() {
        return Err(RunError::Exists(paths.root.clone()));
    }
    let mut cfg = cfg.clone();
    let trainer = match cfg.run.init.clone() {
        Some(init) => {
            let ck = load_init(&init, &cfg)?;
            let net = if cfg.model.grows(&ck.meta.model) {
                let device = cfg.backend.training_device();
                ck.net.grown(&ck.meta.model, &cfg.model, &device)
            } else {
                cfg.model = ck.meta.model.clone();
                ck.net
            };
            Trainer::from_net(
                &cfg.model,
                &cfg.train,
                cfg.run.total_steps,
                cfg.backend,
                net,
                cfg.run.seed,
            )
        }
        None => Trainer::new(
            &cfg.model,
            &cfg.train,
            cfg.run.total_steps,
            cfg.backend,
            cfg.run.seed,
        ),
    };
    let trainer = trainer.with_policy_support(cfg.train.policy_actions.support(&cfg.rules));
    for d in [paths.checkpoints(), paths.shards(), paths.tb()] {
        fs::create_dir_all(&d).map_err(io(&d))?;
    }
    write_atomic(&paths.config(), cfg.to_toml().as_bytes()).map_err(io(&paths.config()))?;
    let state = TrainState {
        version: STATE_VERSION,
        ..TrainState::default()
    };
    save_checkpoint_dir(paths, &trainer, &cfg, &state)?;
    Ok((cfg, trainer, state))
}

/// The checkpoint of `run.init` (a `.bpk` file or a folder holding
/// `net.bpk`), checked against the run's rules, on the training device.
fn load_init(init: &Path, cfg: &TrainConfig) -> Result<shax_nn::Checkpoint, RunError> {
    let device = cfg.backend.training_device();
    let file = CheckpointDir::net_of(init);
    load_checkpoint(&file, Some(&cfg.rules), &device).map_err(|e| RunError::Init {
        path: init.to_path_buf(),
        error: e,
    })
}

/// A run to resume: its own config and newest complete checkpoint. The
/// network's shape is the checkpoint's (a run begun before a model key
/// existed keeps the shape it was trained with).
fn resume_run(paths: &RunPaths) -> Result<(TrainConfig, Trainer, TrainState), RunError> {
    let mut cfg = TrainConfig::load(&paths.config())
        .map_err(|e| RunError::NotARun(paths.root.clone(), e.to_string()))?;
    let (step, dir) = paths
        .list_checkpoints()
        .pop()
        .ok_or_else(|| RunError::NotARun(paths.root.clone(), "no complete checkpoint".into()))?;
    let state = read_state(dir.path())?;
    let device = cfg.backend.training_device();
    let ck = load_checkpoint(&dir.net(), Some(&cfg.rules), &device)?;
    cfg.model = ck.meta.model.clone();
    let optim = fs::read(dir.optim()).map_err(io(dir.path()))?;
    let trainer = Trainer::resume(
        &cfg.model,
        &cfg.train,
        cfg.run.total_steps,
        cfg.backend,
        ck.net,
        optim,
        step,
    )?
    .with_policy_support(cfg.train.policy_actions.support(&cfg.rules));
    Ok((cfg, trainer, state))
}

/// The TensorBoard scalars of one interval (the tags of [`crate::tb::TRAINING_TAGS`]).
fn interval_scalars(
    fresh: &Fresh,
    gather_secs: f64,
    l: &Losses,
    (batch, window): (u64, u64),
    (elapsed, cpu): (f64, f64),
) -> BTreeMap<String, f32> {
    let f = &fresh.stats;
    let games = f.games.max(1) as f64;
    let values = [
        ("loss/policy", l.mean(l.policy)),
        ("loss/value", l.mean(l.value)),
        ("loss/total", l.mean(l.total)),
        ("train/lr", l.lr),
        (
            "train/samples_per_sec",
            (l.steps * batch) as f64 / l.seconds.max(1e-9),
        ),
        ("selfplay/games_per_sec", f.games as f64 / gather_secs),
        (
            "selfplay/positions_per_sec",
            f.positions as f64 / gather_secs,
        ),
        ("selfplay/sims_per_sec", f.sims as f64 / gather_secs),
        ("selfplay/game_length", f.actions as f64 / games),
        ("selfplay/outcome_white", f.white as f64 / games),
        ("selfplay/outcome_black", f.black as f64 / games),
        ("selfplay/outcome_draw", f.draws as f64 / games),
        ("buffer/positions", window as f64),
        ("run/hours", elapsed / 3600.0),
        ("run/cpu_hours", cpu / 3600.0),
    ];
    let material = l.material.map(|m| (crate::tb::MATERIAL_LOSS, l.mean(m)));
    values
        .into_iter()
        .chain(material)
        .map(|(k, v)| (k.to_string(), v as f32))
        .collect()
}

fn write_tb_state(tb: &mut TbWriter, state: &TrainState) {
    for (tag, v) in &state.scalars {
        tb.scalar(tag, *v, state.step);
    }
    tb.histogram(
        crate::tb::VALUE_HISTOGRAM,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_writes_exactly_the_promised_tags() {
        let fresh = Fresh {
            stats: SelfPlayStats::default(),
            seconds: 1.0,
        };
        let l = Losses {
            policy: 1.0,
            value: 1.0,
            material: None,
            total: 2.0,
            steps: 1,
            lr: 0.1,
            seconds: 1.0,
            predictions: Vec::new(),
        };
        let mut tags: Vec<String> = interval_scalars(&fresh, 1.0, &l, (8, 0), (0.0, 0.0))
            .into_keys()
            .collect();
        tags.push(crate::tb::VALUE_HISTOGRAM.to_string());
        tags.sort();
        let mut want: Vec<String> = crate::tb::TRAINING_TAGS.map(String::from).to_vec();
        want.sort();
        assert_eq!(tags, want);
        let l = Losses {
            material: Some(0.5),
            ..l
        };
        let scalars = interval_scalars(&fresh, 1.0, &l, (8, 0), (0.0, 0.0));
        assert_eq!(scalars.get(crate::tb::MATERIAL_LOSS), Some(&0.5));
        // Every tag but the histogram, and the material loss.
        assert_eq!(scalars.len(), crate::tb::TRAINING_TAGS.len());
    }

    /// Busy work shows up in the process's CPU time (on a loaded machine the
    /// work may take many wall-clock seconds: it spins until the clock moves
    /// or a minute has passed).
    #[test]
    fn the_process_cpu_time_grows_with_work() {
        let before = process_cpu_secs();
        if !std::path::Path::new("/proc/self/stat").exists() {
            assert_eq!(before, 0.0);
            return;
        }
        let t = Instant::now();
        let mut x = 0u64;
        while process_cpu_secs() < before + 0.1 && t.elapsed().as_secs() < 60 {
            for _ in 0..1_000_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
        let after = process_cpu_secs();
        assert!(
            after >= before + 0.1,
            "{before} -> {after} in {:?}",
            t.elapsed()
        );
    }
}

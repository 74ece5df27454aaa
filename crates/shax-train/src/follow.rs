//! `shax selfplay`: self-play workers that follow a run from outside the
//! trainer's process. A worker waits for the run to appear (a Slurm array or
//! a Kubernetes Job may start it before the trainer), plays with the newest
//! checkpoint (the best one with gating), writes shards, and stops when the
//! run's last step is checkpointed.

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use shax_nn::NetWeights;
use shax_search::mix_seed;

use crate::checkpoints::followed_checkpoint;
use crate::config::TrainConfig;
use crate::paths::RunPaths;
use crate::run::{Observer, RunError, io, start_positions};
use crate::selfplay::{SelfPlayStats, Worker, play_generation};
use crate::shard::write_shard;

/// How often a waiting worker says that it still waits.
const WAIT_LOG_EVERY: Duration = Duration::from_secs(60);
/// How often a waiting worker looks for the run.
const WAIT_POLL: Duration = Duration::from_millis(500);

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
    /// How long to wait for the run to appear; `None`: as long as it takes.
    pub wait: Option<Duration>,
}

/// Self-play workers only (`shax selfplay`): wait for the run (see
/// [`SelfPlayOptions::wait`]), follow its newest checkpoint (the best one with
/// gating), write shards, until the run's final step is checkpointed,
/// `max_positions` are made, or `stop`.
///
/// # Errors
///
/// [`RunError::NotARun`] when the run did not appear within the wait;
/// otherwise [`RunError`] naming what failed.
pub fn selfplay(
    opts: &SelfPlayOptions,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<SelfPlayStats, RunError> {
    let paths = RunPaths::new(&opts.run_dir);
    if !wait_for_run(&paths, opts.wait, observer, stop)? {
        return Ok(SelfPlayStats::default());
    }
    let mut cfg = TrainConfig::load(&paths.config())
        .map_err(|e| RunError::NotARun(paths.root.clone(), e.to_string()))?;
    if let Some(w) = opts.workers {
        cfg.selfplay.workers = w;
    }
    let seed = mix_seed(cfg.run.seed, opts.seed ^ u64::from(std::process::id()));
    let starts = start_positions(&cfg)?;
    let mut workers: Vec<Worker> = (0..cfg.workers())
        .map(|i| {
            Worker::new(
                cfg.rules,
                &cfg.selfplay,
                starts.clone(),
                mix_seed(seed, i as u64),
            )
        })
        .collect();
    let mut total = SelfPlayStats::default();
    let mut current: Option<(u64, NetWeights)> = None;
    let mut generation = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let Some((step, weights)) = next_network(&paths, &cfg, &mut current, observer)? else {
            break;
        };
        let (shards, s) = play_generation(
            &mut workers,
            &weights,
            cfg.backend,
            step,
            opts.shard_positions,
            stop,
        )
        .map_err(RunError::SelfPlay)?;
        fs::create_dir_all(paths.shards()).map_err(io(&paths.shards()))?;
        for (i, sh) in shards.iter().enumerate() {
            let p = paths.shard(&format!("{generation}-{i:02}"), step);
            write_shard(&p, sh).map_err(|e| RunError::Io {
                path: p.clone(),
                message: e.to_string(),
            })?;
        }
        generation += 1;
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

/// Waits until `paths` holds a run with a complete checkpoint, saying so once
/// a minute. `Ok(false)` when stopped while waiting.
///
/// # Errors
///
/// [`RunError::NotARun`] once `wait` has passed without the run.
fn wait_for_run(
    paths: &RunPaths,
    wait: Option<Duration>,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<bool, RunError> {
    let start = Instant::now();
    let mut said: Option<Instant> = None;
    while !paths.is_run() {
        if stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        if let Some(w) = wait
            && start.elapsed() >= w
        {
            return Err(RunError::NotARun(
                paths.root.clone(),
                format!(
                    "no config and complete checkpoint after waiting {} s (--wait)",
                    w.as_secs()
                ),
            ));
        }
        if said.is_none_or(|t| t.elapsed() >= WAIT_LOG_EVERY) {
            observer.line(&format!(
                "waiting for the run {} to appear (its trainer makes it), {:.0} s so far",
                paths.root.display(),
                start.elapsed().as_secs_f64()
            ));
            said = Some(Instant::now());
        }
        std::thread::sleep(WAIT_POLL);
    }
    Ok(true)
}

/// The network to play the next generation with, loaded when the followed
/// checkpoint changed; `None` once the run reached its last step.
fn next_network(
    paths: &RunPaths,
    cfg: &TrainConfig,
    current: &mut Option<(u64, NetWeights)>,
    observer: &mut dyn Observer,
) -> Result<Option<(u64, NetWeights)>, RunError> {
    loop {
        let Some((step, net)) = followed_checkpoint(paths, cfg) else {
            return Err(RunError::NotARun(
                paths.root.clone(),
                "no complete checkpoint".into(),
            ));
        };
        if step >= cfg.run.total_steps {
            observer.line(&format!("the run reached its last step ({step}); stopping"));
            return Ok(None);
        }
        if let Some((s, w)) = current.as_ref()
            && *s == step
        {
            return Ok(Some((step, w.clone())));
        }
        match shax_nn::load_weights(&net, Some(&cfg.rules)) {
            Ok((_, w)) => {
                observer.line(&format!("playing with the network of step {step}"));
                *current = Some((step, w.clone()));
                return Ok(Some((step, w)));
            }
            // Pruned or replaced while being read: look again.
            Err(e) if current.is_some() || paths.list_checkpoints().len() > 1 => {
                observer.line(&format!(
                    "warning: {e}; looking for the newest checkpoint again"
                ));
                std::thread::sleep(WAIT_POLL);
            }
            Err(e) => return Err(e.into()),
        }
    }
}

//! A run's checkpoints: writing one atomically (network, optimizer state,
//! training state, config), reading the training state back, pruning the ones
//! no one needs, and the network the self-play workers follow.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use shax_nn::{CheckpointMeta, NetWeights, save_checkpoint};

use crate::config::TrainConfig;
use crate::evaluate::{eval_due, read_best};
use crate::paths::{CheckpointDir, RunPaths};
use crate::run::{RunError, io};
use crate::shard::write_atomic;
use crate::trainer::Trainer;

/// What a checkpoint's `state.json` holds besides the network and optimizer.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TrainState {
    /// Format version of this file.
    pub version: u32,
    /// Training steps done.
    pub step: u64,
    /// Wall-clock seconds of the run so far (over all resumes).
    pub elapsed_secs: f64,
    /// CPU seconds of the trainer's process so far (over all resumes; self-play
    /// in other processes not counted). 0 in states written before it was kept.
    #[serde(default)]
    pub cpu_secs: f64,
    /// Training samples drawn so far.
    pub samples_trained: u64,
    /// The TensorBoard scalars of this step (written again on resume if missing).
    pub scalars: BTreeMap<String, f32>,
    /// The value predictions of this interval (the histogram), sampled.
    pub value_predictions: Vec<f32>,
}

/// The version of `state.json` this code writes.
pub(crate) const STATE_VERSION: u32 = 1;

/// Newest checkpoints kept besides the evaluated ones, the best and step 0.
pub const KEEP_NEWEST_CHECKPOINTS: usize = 3;

/// Writes the checkpoint of `state.step` into a hidden folder, then renames
/// it into place (replacing an older one of the same step).
pub(crate) fn save_checkpoint_dir(
    paths: &RunPaths,
    trainer: &Trainer,
    cfg: &TrainConfig,
    state: &TrainState,
) -> Result<PathBuf, RunError> {
    let fin = paths.checkpoint(state.step);
    let tmp_path = paths.checkpoint_tmp(state.step);
    let tmp = CheckpointDir(tmp_path.clone());
    let _ = fs::remove_dir_all(&tmp_path);
    fs::create_dir_all(&tmp_path).map_err(io(&tmp_path))?;
    let meta = CheckpointMeta {
        model: cfg.model.clone(),
        rules: cfg.rules,
        step: state.step,
        created_unix: crate::run::unix_secs(),
    };
    save_checkpoint(&tmp.net(), trainer.network(), &meta)?;
    let optim = tmp.optim();
    write_atomic(&optim, &trainer.optimizer_bytes()?).map_err(io(&optim))?;
    write_state(&tmp, state)?;
    fs::copy(paths.config(), tmp.config()).map_err(io(&tmp_path))?;
    if fin.path().exists() {
        fs::remove_dir_all(fin.path()).map_err(io(fin.path()))?;
    }
    fs::rename(&tmp_path, fin.path()).map_err(io(fin.path()))?;
    Ok(fin.0)
}

/// Writes `state` as the `state.json` of checkpoint `dir`, atomically.
pub(crate) fn write_state(dir: &CheckpointDir, state: &TrainState) -> Result<(), RunError> {
    let st = dir.state();
    let json = serde_json::to_vec_pretty(state).map_err(|e| RunError::Io {
        path: st.clone(),
        message: e.to_string(),
    })?;
    write_atomic(&st, &json).map_err(io(&st))
}

/// The training state of the checkpoint in `dir`.
pub(crate) fn read_state(dir: &Path) -> Result<TrainState, RunError> {
    let p = CheckpointDir(dir.to_path_buf()).state();
    let text = fs::read(&p).map_err(io(&p))?;
    serde_json::from_slice(&text).map_err(|e| RunError::Io {
        path: p,
        message: e.to_string(),
    })
}

/// Deletes the checkpoints no one needs: all but step 0, the newest
/// [`KEEP_NEWEST_CHECKPOINTS`], every one an evaluation is due at (the Elo
/// ladder names them) and the best. Failures are ignored (a worker may be reading one).
pub(crate) fn prune_checkpoints(paths: &RunPaths, cfg: &TrainConfig) {
    let all = paths.list_checkpoints();
    let best = read_best(paths).map(|b| b.0);
    let newest = all.len().saturating_sub(KEEP_NEWEST_CHECKPOINTS);
    for (i, (step, dir)) in all.iter().enumerate() {
        if i >= newest || *step == 0 || Some(*step) == best || eval_due(cfg, *step) {
            continue;
        }
        let _ = fs::remove_dir_all(dir.path());
    }
}

/// The network the workers play with: the best with gating, else the newest.
pub(crate) fn worker_weights(
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

/// The checkpoint a follower plays with: the best with gating (the newest
/// until one is chosen), else the newest; its step and network.
pub(crate) fn followed_checkpoint(paths: &RunPaths, cfg: &TrainConfig) -> Option<(u64, PathBuf)> {
    let newest = || paths.list_checkpoints().pop().map(|(s, d)| (s, d.net()));
    if cfg.eval.gating {
        read_best(paths).or_else(newest)
    } else {
        newest()
    }
}

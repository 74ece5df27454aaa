//! `shax inspect`: what a run directory holds.

use std::fs;
use std::path::Path;

use serde::Serialize;

use crate::checkpoints::read_state;
use crate::config::TrainConfig;
use crate::evaluate::{EloLine, read_elo};
use crate::paths::RunPaths;
use crate::run::RunError;
use crate::shard::list_shards;

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
    let ckpts = paths.list_checkpoints();
    let newest = ckpts.last();
    let state = newest.and_then(|(_, d)| read_state(d.path()).ok());
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

//! The layout of a run directory and of its checkpoint folders: every file
//! and folder name of a run lives here and nowhere else.
//!
//! ```text
//! <run>/config.toml                the resolved config (read back on resume and by workers)
//! <run>/checkpoints/step-000000200/ net.bpk + net.meta.toml, optim.bpk, state.json, config.toml
//! <run>/shards/*.shard             finished games (shard.rs)
//! <run>/tb/events.out.tfevents.*   TensorBoard
//! <run>/elo.jsonl                  one line per evaluation
//! <run>/best.txt                   the best checkpoint so far (gating)
//! <run>/train.log                  the log
//! ```
//!
//! A checkpoint is written into a hidden temporary folder and renamed into
//! place, so a folder named `step-N` with a `state.json` is always complete.

use std::fs;
use std::path::{Path, PathBuf};

use crate::shard::SHARD_EXTENSION;

/// The name of the resolved config, in a run directory and in each checkpoint folder.
pub const CONFIG_FILE: &str = "config.toml";

const STEP_PREFIX: &str = "step-";

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
        self.root.join(CONFIG_FILE)
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
    /// The checkpoint folder of `step` (complete or not).
    pub fn checkpoint(&self, step: u64) -> CheckpointDir {
        CheckpointDir(self.checkpoints().join(format!("{STEP_PREFIX}{step:09}")))
    }
    /// The hidden folder checkpoint `step` is written into before its rename.
    pub fn checkpoint_tmp(&self, step: u64) -> PathBuf {
        self.checkpoints().join(format!(
            ".tmp-{STEP_PREFIX}{step:09}-{}",
            std::process::id()
        ))
    }
    /// A new shard's path: `tag` tells this writer's files apart (milliseconds
    /// and process id come first); `step` is the network that played it.
    pub fn shard(&self, tag: &str, step: u64) -> PathBuf {
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        self.shards().join(format!(
            "{millis:013}-{}-{tag}-s{step}.{SHARD_EXTENSION}",
            std::process::id()
        ))
    }
    /// The complete checkpoints, `(step, folder)`, oldest first.
    pub fn list_checkpoints(&self) -> Vec<(u64, CheckpointDir)> {
        let mut out: Vec<(u64, CheckpointDir)> = fs::read_dir(self.checkpoints())
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .filter_map(|e| {
                        let step = step_of_folder(&e.file_name().to_string_lossy())?;
                        Some((step, CheckpointDir(e.path())))
                    })
                    .filter(|(_, d)| d.is_complete())
                    .collect()
            })
            .unwrap_or_default();
        out.sort_by_key(|c| c.0);
        out
    }
    /// Whether a config and a complete checkpoint are there: a run a worker can follow.
    pub fn is_run(&self) -> bool {
        self.config().is_file() && !self.list_checkpoints().is_empty()
    }
}

/// The step of a checkpoint folder's name (`step-000000200` -> 200).
pub fn step_of_folder(name: &str) -> Option<u64> {
    name.strip_prefix(STEP_PREFIX)?.parse().ok()
}

/// One checkpoint folder of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointDir(pub PathBuf);

impl CheckpointDir {
    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }
    /// The network record (`net.bpk`, its metadata beside it).
    pub fn net(&self) -> PathBuf {
        self.0.join("net.bpk")
    }
    /// The network record a user's path names: a checkpoint folder's
    /// `net.bpk`, or the path itself (a `.bpk` file, shipped or not).
    pub fn net_of(path: &Path) -> PathBuf {
        if path.is_dir() {
            CheckpointDir(path.to_path_buf()).net()
        } else {
            path.to_path_buf()
        }
    }
    /// The optimizer state.
    pub fn optim(&self) -> PathBuf {
        self.0.join("optim.bpk")
    }
    /// The training state (`state.json`), written last: its presence marks a complete folder.
    pub fn state(&self) -> PathBuf {
        self.0.join("state.json")
    }
    /// The resolved config the checkpoint was trained with.
    pub fn config(&self) -> PathBuf {
        self.0.join(CONFIG_FILE)
    }
    /// Whether the folder is complete.
    pub fn is_complete(&self) -> bool {
        self.state().is_file()
    }
}

/// The network record inside a checkpoint folder.
pub fn checkpoint_net(dir: &Path) -> PathBuf {
    CheckpointDir(dir.to_path_buf()).net()
}

/// The complete checkpoints of the run at `run`, `(step, folder)`, oldest first.
pub fn list_checkpoints(run: &Path) -> Vec<(u64, PathBuf)> {
    RunPaths::new(run)
        .list_checkpoints()
        .into_iter()
        .map(|(s, d)| (s, d.0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoint_folders_round_trip_their_step() {
        let p = RunPaths::new(Path::new("r"));
        let dir = p.checkpoint(200);
        let name = dir.path().file_name().unwrap().to_string_lossy();
        assert_eq!(name, "step-000000200");
        assert_eq!(step_of_folder(&name), Some(200));
        assert_eq!(step_of_folder(".tmp-step-000000200-7"), None);
        assert!(p.shard("a", 3).to_string_lossy().ends_with("-a-s3.shard"));
    }
}

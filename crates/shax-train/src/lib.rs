//! Training for the mill games, one job per module:
//!
//! - the self-play trainer [`train`] (`run`), configured by a [`TrainConfig`]
//!   (`config`); its run directory's layout, [`RunPaths`] (`paths`); its
//!   checkpoints (`checkpoints`); evaluation, Elo refit and gating
//!   ([`EloLine`], `evaluate`); the workers that follow a run from outside,
//!   [`selfplay`] (`follow`); [`inspect_run`] (`inspect`);
//! - the pieces it is made of: self-play games ([`Worker`], `selfplay`), the
//!   shard format ([`Shard`], `shard`), the replay window ([`ReplayWindow`],
//!   `replay`), the optimiser step ([`Trainer`], `trainer`), TensorBoard
//!   logging ([`tb`]);
//! - matches: between two player specs ([`run_arena`]), round robins with a
//!   Bradley-Terry fit ([`run_ladder`]), Elo arithmetic and the one refit of
//!   named results ([`elo`]), the game record every match writes
//!   ([`GameRecord`]), and its review by a searching player ([`review_game`]);
//! - difficulty tier calibration ([`calibrate`], `tiers`), which writes the
//!   `shax_bot` manifest;
//! - fitting the alpha-beta evaluation's weights to self-play games
//!   ([`fit_weights`], `tune`).
//!
//! # Examples
//!
//! ```
//! use shax_core::{Preset, Rules};
//! use shax_search::Registry;
//! use shax_train::{ArenaConfig, run_arena};
//!
//! let cfg = ArenaConfig {
//!     games: 4,
//!     ..ArenaConfig::new(Rules::preset(Preset::NineMensMorris), "greedy", "random")
//! };
//! let r = run_arena(&cfg, &Registry::classic()).unwrap();
//! assert_eq!(r.tally.games, 4);
//! assert_eq!(r.tally.a_wins + r.tally.b_wins + r.tally.draws, 4);
//! assert_eq!(r.records.len(), 4);
//! ```

mod arena;
mod bench;
mod checkpoints;
mod config;
pub mod elo;
mod evaluate;
mod follow;
mod inspect;
mod ladder;
mod paths;
mod play;
mod record;
mod replay;
mod review;
mod run;
mod selfplay;
mod shard;
mod starts;
pub mod tb;
#[cfg(test)]
mod testkit;
mod tiers;
mod trainer;
mod tune;

pub use arena::{
    ArenaConfig, ArenaError, ArenaResult, ColorStats, FinishedGame, GameHook, GameResult,
    GameSummary, MAX_IN_FLIGHT, MatchTally, ThinkStats, a_color, openings, run_arena,
};
pub use bench::{DEFAULT_TRAIN_BENCH_BATCHES, TrainBatchFigures, TrainBenchReport, bench_train};
pub use checkpoints::{KEEP_NEWEST_CHECKPOINTS, TrainState};
pub use config::{
    ConfigError, EvalConfig, LrSchedule, Optimizer, PolicyActions, RunConfig, SelfPlayConfig,
    TrainConfig, TrainSection, apply_overrides,
};
pub use elo::{Elo, EloRating, fit_bradley_terry};
pub use evaluate::{EloLine, EvalResult, ladder_name, read_elo};
pub use follow::{SelfPlayOptions, selfplay};
pub use inspect::{RunInfo, inspect_run};
pub use ladder::{LadderConfig, LadderResult, PairResult, Rating, run_ladder};
pub use paths::{
    CONFIG_FILE, CheckpointDir, RunPaths, checkpoint_net, list_checkpoints, step_of_folder,
};
pub use record::{
    GameRecord, RECORD_VERSION, RecordError, RecordsFileError, read_records, write_records,
};
pub use replay::{Augmenter, Batch, ReplayWindow};
pub use review::{ActionReview, GameReview, ReviewError, review_game};
pub use run::{Observer, RunError, TrainOptions, TrainSummary, train};
pub use selfplay::{MAX_GAME_ACTIONS, SelfPlayStats, Worker, play_generation};
pub use shard::{
    DecodeError, Example, GameData, SHARD_EXTENSION, SHARD_MAGIC, SHARD_VERSION, SearchSample,
    Shard, ShardError, decode_shard, encode_shard, list_shards, read_shard, write_shard,
};
pub use starts::StartPositions;
pub use tiers::{
    BeginnerCheck, Calibration, Need, Tally, TiersConfig, TiersError, TiersObserver, calibrate,
    find_checkpoints, out_of_band_path,
};
pub use trainer::{StepLoss, TrainError, Trainer};
pub use tune::{TuneData, TuneError, TuneReport, TuneSample, fit_weights};

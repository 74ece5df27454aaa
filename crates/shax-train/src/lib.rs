//! Training for the mill games: the self-play trainer ([`train`], [`selfplay`],
//! configured by a [`TrainConfig`]), its shard format ([`Shard`]), replay
//! window ([`ReplayWindow`]) and [`Trainer`], TensorBoard logging ([`tb`]);
//! evaluation matches between player specs ([`run_arena`]), round robins
//! with a Bradley-Terry Elo fit ([`run_ladder`]), Elo arithmetic ([`elo`]) and
//! the game record format ([`GameRecord`]) that every match writes.
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
//! assert_eq!(r.games, 4);
//! assert_eq!(r.a_wins + r.b_wins + r.draws, 4);
//! assert_eq!(r.records.len(), 4);
//! ```

mod arena;
mod config;
pub mod elo;
mod ladder;
mod record;
mod replay;
mod run;
mod selfplay;
mod shard;
pub mod tb;
mod trainer;

pub use arena::{
    ArenaConfig, ArenaError, ArenaResult, ColorStats, ThinkStats, openings, run_arena,
};
pub use config::{
    ConfigError, EvalConfig, LrSchedule, Optimizer, RunConfig, SelfPlayConfig, TrainConfig,
    TrainSection, config_path,
};
pub use elo::{Elo, EloRating, fit_bradley_terry};
pub use ladder::{LadderConfig, LadderResult, PairResult, Rating, run_ladder};
pub use record::{GameRecord, RECORD_VERSION, RecordError, write_records};
pub use replay::{Augmenter, Batch, ReplayWindow};
pub use run::{
    EloLine, EvalResult, Observer, RunError, RunInfo, RunPaths, SelfPlayOptions, TrainOptions,
    TrainState, TrainSummary, checkpoint_net, inspect_run, list_checkpoints, read_elo, selfplay,
    train,
};
pub use selfplay::{MAX_GAME_ACTIONS, SelfPlayStats, Worker, play_generation};
pub use shard::{
    Example, GameData, SHARD_EXTENSION, SHARD_MAGIC, SHARD_VERSION, SearchSample, Shard,
    ShardError, decode_shard, encode_shard, list_shards, read_shard, write_shard,
};
pub use trainer::{StepLoss, TrainError, Trainer};

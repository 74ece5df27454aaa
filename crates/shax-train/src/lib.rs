//! Training for the mill games. For now: evaluation matches between player
//! specs ([`run_arena`]), round robins with a Bradley-Terry Elo fit
//! ([`run_ladder`]), Elo arithmetic ([`elo`]) and the game record format
//! ([`GameRecord`]) that every match writes and later tools replay.
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
pub mod elo;
mod ladder;
mod record;

pub use arena::{ArenaConfig, ArenaError, ArenaResult, ColorStats, openings, run_arena};
pub use elo::{Elo, EloRating, fit_bradley_terry};
pub use ladder::{LadderConfig, LadderResult, PairResult, Rating, run_ladder};
pub use record::{GameRecord, RECORD_VERSION, RecordError, write_records};

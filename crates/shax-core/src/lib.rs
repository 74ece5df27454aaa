//! The rules of Shax and the rest of the mill family (`docs/RULES.md`): bitboards,
//! legal actions, play, every draw rule, position strings, notation, perft,
//! the 16 board symmetries and the action <-> policy-index map.
//!
//! Validate at the boundary, then play fast: [`Rules::load`] and
//! [`Position::from_fen`] check their input once and return types that keep
//! their invariants; [`Position::play`] checks an action,
//! [`Position::play_unchecked`] trusts it.
//!
//! # Examples
//!
//! ```
//! use shax_core::{Game, Preset, Rules, Task};
//!
//! let mut game = Game::new(Rules::preset(Preset::NineMensMorris));
//! for a in ["a7", "a1", "d7", "d1"] {
//!     game.play_str(a).unwrap();
//! }
//! game.play_str("g7").unwrap(); // a line: White now removes
//! assert_eq!(game.position().task(), Task::Remove);
//! game.play_str("xa1").unwrap();
//! assert_eq!(game.position().board(shax_core::Color::Black).count(), 1);
//! ```

mod action;
pub mod board;
pub mod fen;
mod game;
mod perft;
mod position;
mod rules;
mod symmetry;
mod zobrist;

pub use action::{Action, ActionList, MAX_ACTIONS, NotationError, POLICY_SIZE};
pub use board::{Bitboard, BoardKind, Color, POINTS, Point, PointError};
pub use fen::{FenError, ParseFenError, Pending, Setup, SetupError};
pub use game::{Game, KeyHistory, PlayError, play_out};
pub use perft::{Depth, perft, perft_divide};
pub use position::{IllegalAction, Outcome, Position, Reason, Task};
pub use rules::{Blocked, FullBoard, NoJare, PlacementLines, Preset, Rules, RulesError};
pub use symmetry::Symmetry;

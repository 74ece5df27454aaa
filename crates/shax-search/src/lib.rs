//! Search for the mill games: the batched [`Evaluator`] interface that the
//! network sits behind, the [`Player`] interface every agent implements, the
//! classic players (`random`, `greedy`, `alphabeta`, plain UCT `mcts`) and the
//! player specs and [`Registry`] that build them from strings.
//!
//! # Examples
//!
//! ```
//! use shax_core::{Game, Rules};
//! use shax_search::{Limits, build_player};
//!
//! let mut game = Game::new(Rules::default());
//! let mut p = build_player("alphabeta:depth=2").unwrap();
//! let a = p.choose_in_game(&game, &Limits::NONE, 1).unwrap();
//! game.play(a).unwrap();
//! ```

mod alphabeta;
pub mod eval;
mod evaluator;
mod greedy;
mod guard;
mod neural;
mod player;
mod puct;
mod random;
mod spec;
mod symmetric;
#[cfg(test)]
mod testkit;
mod uct;

pub use alphabeta::AlphaBeta;
pub use eval::{EvalKind, PIECE, WIN, WIN_BOUND, evaluate, evaluate_basic};
pub use evaluator::{Evaluator, HashedEvaluator, UniformEvaluator, check_buffers};
pub use greedy::GreedyPlayer;
pub use guard::Guard;
pub use neural::{NeuralPlayer, step_pooled};
pub use player::{Limits, Player, SearchInfo, history_of, mix_seed};
pub use puct::{EvalBuffers, GumbelConfig, Puct, PuctConfig, RootStats, run_batched, step_batched};
pub use random::RandomPlayer;
pub use spec::{Builder, Param, ParamValue, PlayerSpec, Registry, SEED, SpecError, build_player};
pub use symmetric::{SYMMETRY_SIZES, SymmetryAverage};
pub use uct::{Uct, UctStats};

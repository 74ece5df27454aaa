//! Search for the mill games: the batched [`Evaluator`] interface that the
//! network sits behind, and the players built on it.

mod evaluator;

pub use evaluator::{Evaluator, UniformEvaluator};

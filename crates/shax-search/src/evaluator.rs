//! The narrow, batched interface between search and a network (lc0's
//! `neural/backend.h`): raw policy logits and a value per position. Search
//! masks the logits to the legal actions itself.

use shax_core::{POLICY_SIZE, Position};

/// Evaluates positions in batches.
///
/// Implementations: the Burn network (`shax-nn`), and [`UniformEvaluator`],
/// the test double that lets search be tested without a network.
pub trait Evaluator {
    /// For each of `positions`, writes [`POLICY_SIZE`] policy logits into
    /// `logits` (row `i` is `logits[i * POLICY_SIZE..(i + 1) * POLICY_SIZE]`,
    /// indexed by [`shax_core::Action::policy_index`]) and a value in `[-1, 1]`
    /// for the player to act into `values[i]`.
    ///
    /// # Panics
    ///
    /// May panic when `logits.len() != positions.len() * POLICY_SIZE` or
    /// `values.len() != positions.len()`.
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]);

    /// The batch size this evaluator is most efficient at; search collects up
    /// to this many leaves per call.
    fn preferred_batch(&self) -> usize {
        64
    }
}

/// A network stand-in: uniform priors and value 0, and it counts its calls.
#[derive(Clone, Debug, Default)]
pub struct UniformEvaluator {
    /// Number of `evaluate` calls so far.
    pub calls: usize,
    /// Number of positions evaluated so far.
    pub positions: usize,
    /// Size of every batch seen, in order.
    pub batch_sizes: Vec<usize>,
}

impl Evaluator for UniformEvaluator {
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        assert_eq!(
            logits.len(),
            positions.len() * POLICY_SIZE,
            "logits buffer size"
        );
        assert_eq!(values.len(), positions.len(), "values buffer size");
        logits.fill(0.0);
        values.fill(0.0);
        self.calls += 1;
        self.positions += positions.len();
        self.batch_sizes.push(positions.len());
    }
}

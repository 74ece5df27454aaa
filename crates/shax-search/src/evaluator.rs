//! The narrow, batched interface between search and a network (lc0's
//! `neural/backend.h`): raw policy logits and a value per position. Search
//! masks the logits to the legal actions itself.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use shax_core::{POLICY_SIZE, Position};

use crate::player::mix_seed;

/// Evaluates positions in batches.
///
/// Implementations: the Burn network (`shax-nn`), and the test doubles that
/// let search be tested without a network: [`UniformEvaluator`] and
/// [`HashedEvaluator`].
pub trait Evaluator {
    /// For each of `positions`, writes [`POLICY_SIZE`] policy logits into
    /// `logits` (row `i` is `logits[i * POLICY_SIZE..(i + 1) * POLICY_SIZE]`,
    /// indexed by [`shax_core::Action::policy_index`]) and a value in `[-1, 1]`
    /// for the player to act into `values[i]`. Only the legal actions'
    /// logits mean anything: search reads no others, and an implementation
    /// may leave them at anything (the CPU network writes `-inf`).
    ///
    /// # Panics
    ///
    /// May panic when `logits.len() != positions.len() * POLICY_SIZE` or
    /// `values.len() != positions.len()`.
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]);

    /// [`Evaluator::evaluate`], and each position's probability of a draw
    /// into `draws[i]`, for a search that gives draws a value of their own
    /// ([`crate::PuctConfig::draw_score`]). An evaluator that does not
    /// estimate draws (a scalar value head, the test doubles) says 0.
    ///
    /// # Panics
    ///
    /// As [`Evaluator::evaluate`], and when `draws.len() != positions.len()`.
    fn evaluate_wdl(
        &mut self,
        positions: &[Position],
        logits: &mut [f32],
        values: &mut [f32],
        draws: &mut [f32],
    ) {
        check_buffers(positions.len(), logits, values, Some(draws));
        self.evaluate(positions, logits, values);
        draws.fill(0.0);
    }

    /// The batch size this evaluator is most efficient at; search collects up
    /// to this many leaves per call.
    fn preferred_batch(&self) -> usize {
        64
    }
}

/// Panics unless the buffers fit `n` positions as [`Evaluator::evaluate`]
/// and [`Evaluator::evaluate_wdl`] ask (`draws` where there are any): the
/// trait's contract, checked in one place by its implementations.
pub fn check_buffers(n: usize, logits: &[f32], values: &[f32], draws: Option<&[f32]>) {
    assert_eq!(logits.len(), n * POLICY_SIZE, "logits buffer size");
    assert_eq!(values.len(), n, "values buffer size");
    if let Some(draws) = draws {
        assert_eq!(draws.len(), n, "draws buffer size");
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
        check_buffers(positions.len(), logits, values, None);
        logits.fill(0.0);
        values.fill(0.0);
        self.calls += 1;
        self.positions += positions.len();
        self.batch_sizes.push(positions.len());
    }
}

/// A network stand-in with opinions: logits and a value drawn from each
/// position's key, different between positions and actions, the same on
/// every call and in every batch. Its clones share the count of calls (an
/// `Arc`), so a test can count what many players asked.
#[derive(Clone, Debug, Default)]
pub struct HashedEvaluator {
    /// `evaluate` calls so far, by this evaluator and its clones.
    pub calls: Arc<AtomicU64>,
}

/// A hash's top bits as a number in `[-1, 1)`.
fn unit(x: u64) -> f32 {
    (x >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
}

impl Evaluator for HashedEvaluator {
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        for (i, p) in positions.iter().enumerate() {
            let row = &mut logits[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
            for (j, l) in row.iter_mut().enumerate() {
                *l = 2.0 * unit(mix_seed(p.key(), j as u64 + 1));
            }
            values[i] = 0.9 * unit(p.key());
        }
        self.calls.fetch_add(1, Ordering::Relaxed);
    }
}

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

/// Several evaluators as one (an ensemble): the mean of their logits, so the
/// priors are the normalised geometric mean of their policies, and the mean
/// of their values. Each call asks every member, so it costs their sum.
pub struct MeanEvaluator {
    members: Vec<Box<dyn Evaluator + Send>>,
    logits: Vec<f32>,
    values: Vec<f32>,
}

impl MeanEvaluator {
    /// The mean of `members` (at least one).
    ///
    /// # Panics
    ///
    /// Panics when `members` is empty.
    pub fn new(members: Vec<Box<dyn Evaluator + Send>>) -> MeanEvaluator {
        assert!(!members.is_empty(), "an ensemble needs a member");
        MeanEvaluator {
            members,
            logits: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl Evaluator for MeanEvaluator {
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        let (first, rest) = self.members.split_first_mut().expect("a member");
        first.evaluate(positions, logits, values);
        self.logits.resize(logits.len(), 0.0);
        self.values.resize(values.len(), 0.0);
        for member in rest.iter_mut() {
            member.evaluate(positions, &mut self.logits, &mut self.values);
            logits
                .iter_mut()
                .zip(&self.logits)
                .for_each(|(a, b)| *a += b);
            values
                .iter_mut()
                .zip(&self.values)
                .for_each(|(a, b)| *a += b);
        }
        let n = self.members.len() as f32;
        logits.iter_mut().for_each(|a| *a /= n);
        values.iter_mut().for_each(|a| *a /= n);
    }

    /// The first member's.
    fn preferred_batch(&self) -> usize {
        self.members[0].preferred_batch()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shax_core::Rules;

    #[test]
    fn an_ensemble_gives_its_members_mean() {
        let positions: Vec<Position> = {
            let mut p = Position::new(Rules::default());
            let mut out = vec![p];
            for _ in 0..3 {
                p.play_unchecked(p.legal_actions()[0]);
                out.push(p);
            }
            out
        };
        let n = positions.len();
        let run = |e: &mut dyn Evaluator| {
            let (mut l, mut v) = (vec![f32::NAN; n * POLICY_SIZE], vec![f32::NAN; n]);
            e.evaluate(&positions, &mut l, &mut v);
            (l, v)
        };
        let (hl, hv) = run(&mut HashedEvaluator::default());
        let mut mean = MeanEvaluator::new(vec![
            Box::new(HashedEvaluator::default()),
            Box::new(UniformEvaluator::default()),
        ]);
        let (ml, mv) = run(&mut mean);
        assert!(ml.iter().zip(&hl).all(|(m, h)| *m == h / 2.0));
        assert!(mv.iter().zip(&hv).all(|(m, h)| *m == h / 2.0));
        assert!(
            hv.iter().any(|v| *v != 0.0),
            "the hashed member has opinions"
        );
        // Twice over: the scratch buffers are reused without leaking into the answer.
        assert_eq!(run(&mut mean), (ml, mv));
        let mut one = MeanEvaluator::new(vec![Box::new(HashedEvaluator::default())]);
        assert_eq!(run(&mut one), (hl, hv));
    }
}

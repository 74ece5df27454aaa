//! Averaging a network over board symmetries (`net:...,syms=K`): each
//! position is evaluated in `K` orientations and the answers are mapped back
//! and averaged, values as they are and policy logits action by action.
//!
//! The network was trained on all 16 orientations of every position, yet it
//! answers each one a little differently; AlphaGo Zero averaged over the
//! 8 symmetries of Go for its strongest play. `K` times the network's work
//! buys a steadier judgement of the same position, where more simulations
//! buy a larger tree of the same judgement. Measured on Morabaraba's master
//! network: +21 Elo at 64 simulations with `K = 8` (2.8 times the time), and
//! level for the master against `alphabeta:depth=4` with `K = 4`
//! (docs/EXPERIMENTS.md), so no tier uses it.

use shax_core::{POLICY_SIZE, Position, Symmetry};

use crate::evaluator::{Evaluator, check_buffers};

/// The symmetries' order: every prefix of length 1, 2, 4, 8 or 16 is a
/// subgroup (by index: swap 8, mirror 4, half turn 2, quarter turn 1), so
/// the average over it is the same for a position and its images under it.
const ORDER: [usize; 16] = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15];

/// The numbers of symmetries an average may take: the subgroups' sizes.
pub const SYMMETRY_SIZES: [usize; 5] = [1, 2, 4, 8, 16];

/// An evaluator's answers averaged over `K` symmetries, a subgroup of the
/// board's (`K` one of [`SYMMETRY_SIZES`]; 1 is the evaluator itself).
pub struct SymmetryAverage<E> {
    inner: E,
    /// Each symmetry and its policy permutation (`perm[i]`: the index of
    /// the image of the action with index `i`).
    syms: Vec<(Symmetry, Vec<u16>)>,
    positions: Vec<Position>,
    logits: Vec<f32>,
    values: Vec<f32>,
    draws: Vec<f32>,
}

impl<E: Evaluator> SymmetryAverage<E> {
    /// `inner` averaged over `k` symmetries, or `None` unless `k` is one of
    /// [`SYMMETRY_SIZES`].
    pub fn new(inner: E, k: usize) -> Option<SymmetryAverage<E>> {
        if !SYMMETRY_SIZES.contains(&k) {
            return None;
        }
        let syms = ORDER[..k]
            .iter()
            .map(|&i| {
                let s = Symmetry::ALL[i];
                (s, s.policy_permutation())
            })
            .collect();
        Some(SymmetryAverage {
            inner,
            syms,
            positions: Vec::new(),
            logits: Vec::new(),
            values: Vec::new(),
            draws: Vec::new(),
        })
    }

    /// Evaluates every image of `positions` in one call of the inner
    /// evaluator, then averages into the caller's buffers.
    fn run(
        &mut self,
        positions: &[Position],
        logits: &mut [f32],
        values: &mut [f32],
        draws: Option<&mut [f32]>,
    ) {
        let n = positions.len();
        check_buffers(n, logits, values, draws.as_deref());
        let k = self.syms.len();
        self.positions.clear();
        for (s, _) in &self.syms {
            self.positions
                .extend(positions.iter().map(|p| s.position(p)));
        }
        self.logits.resize(k * n * POLICY_SIZE, 0.0);
        self.values.resize(k * n, 0.0);
        self.draws.resize(k * n, 0.0);
        if draws.is_some() {
            self.inner.evaluate_wdl(
                &self.positions,
                &mut self.logits,
                &mut self.values,
                &mut self.draws,
            );
        } else {
            self.inner
                .evaluate(&self.positions, &mut self.logits, &mut self.values);
        }
        let scale = 1.0 / k as f32;
        let mean = |v: &[f32], i: usize| (0..k).map(|s| v[s * n + i]).sum::<f32>() * scale;
        for i in 0..n {
            values[i] = mean(&self.values, i);
            let row = &mut logits[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
            row.fill(0.0);
            for (s, (_, perm)) in self.syms.iter().enumerate() {
                let image = &self.logits[(s * n + i) * POLICY_SIZE..(s * n + i + 1) * POLICY_SIZE];
                for (l, &j) in row.iter_mut().zip(perm) {
                    *l += image[j as usize];
                }
            }
            row.iter_mut().for_each(|l| *l *= scale);
        }
        if let Some(draws) = draws {
            for (i, d) in draws.iter_mut().enumerate() {
                *d = mean(&self.draws, i);
            }
        }
    }
}

impl<E: Evaluator> Evaluator for SymmetryAverage<E> {
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        if self.syms.len() == 1 {
            return self.inner.evaluate(positions, logits, values);
        }
        self.run(positions, logits, values, None);
    }

    fn evaluate_wdl(
        &mut self,
        positions: &[Position],
        logits: &mut [f32],
        values: &mut [f32],
        draws: &mut [f32],
    ) {
        if self.syms.len() == 1 {
            return self.inner.evaluate_wdl(positions, logits, values, draws);
        }
        self.run(positions, logits, values, Some(draws));
    }

    fn preferred_batch(&self) -> usize {
        self.inner.preferred_batch()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::HashedEvaluator;
    use crate::testkit::random_positions;
    use shax_core::Preset;

    /// Positions from a few random games of every preset.
    fn positions() -> Vec<Position> {
        Preset::ALL
            .into_iter()
            .flat_map(|preset| random_positions(preset, 2))
            .step_by(7)
            .collect()
    }

    fn answer(e: &mut impl Evaluator, batch: &[Position]) -> (Vec<f32>, Vec<f32>) {
        let mut logits = vec![0.0; batch.len() * POLICY_SIZE];
        let mut values = vec![0.0; batch.len()];
        e.evaluate(batch, &mut logits, &mut values);
        (logits, values)
    }

    #[test]
    fn only_the_subgroup_sizes() {
        for k in 0..=17 {
            let ok = SymmetryAverage::new(HashedEvaluator::default(), k).is_some();
            assert_eq!(ok, [1, 2, 4, 8, 16].contains(&k), "k = {k}");
        }
    }

    #[test]
    fn one_symmetry_is_the_evaluator_itself() {
        let batch = positions();
        let mut plain = HashedEvaluator::default();
        let mut one = SymmetryAverage::new(HashedEvaluator::default(), 1).unwrap();
        assert_eq!(answer(&mut one, &batch), answer(&mut plain, &batch));
    }

    #[test]
    fn two_symmetries_average_the_position_and_its_swapped_image() {
        let batch = positions();
        let swap = Symmetry::ALL[8];
        let mut two = SymmetryAverage::new(HashedEvaluator::default(), 2).unwrap();
        let (logits, values) = answer(&mut two, &batch);
        let mut plain = HashedEvaluator::default();
        let (l0, v0) = answer(&mut plain, &batch);
        let images: Vec<Position> = batch.iter().map(|p| swap.position(p)).collect();
        let (l1, v1) = answer(&mut plain, &images);
        for (i, pos) in batch.iter().enumerate() {
            assert!((values[i] - (v0[i] + v1[i]) / 2.0).abs() < 1e-6);
            for a in pos.legal_actions().iter() {
                let j = swap.action(*a).policy_index();
                let want = (l0[i * POLICY_SIZE + a.policy_index()] + l1[i * POLICY_SIZE + j]) / 2.0;
                let got = logits[i * POLICY_SIZE + a.policy_index()];
                assert!((got - want).abs() < 1e-5, "{a} at position {i}");
            }
        }
    }

    /// Over a subgroup the average is invariant: a position and its image
    /// under one of the group's symmetries get the same value, and each
    /// action the logit of its image.
    #[test]
    fn the_average_over_a_subgroup_is_invariant_under_it() {
        let batch = positions();
        for k in [2, 4, 8, 16] {
            let mut avg = SymmetryAverage::new(HashedEvaluator::default(), k).unwrap();
            let (logits, values) = answer(&mut avg, &batch);
            for &g in &ORDER[1..k] {
                let g = Symmetry::ALL[g];
                let images: Vec<Position> = batch.iter().map(|p| g.position(p)).collect();
                let (gl, gv) = answer(&mut avg, &images);
                for (i, pos) in batch.iter().enumerate() {
                    assert!((values[i] - gv[i]).abs() < 1e-5, "k {k}, value of {i}");
                    for a in pos.legal_actions().iter() {
                        let here = logits[i * POLICY_SIZE + a.policy_index()];
                        let there = gl[i * POLICY_SIZE + g.action(*a).policy_index()];
                        assert!((here - there).abs() < 1e-4, "k {k}, {a} at {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn one_call_of_the_inner_evaluator_a_batch() {
        let batch = positions();
        let inner = HashedEvaluator::default();
        let calls = inner.calls.clone();
        let mut avg = SymmetryAverage::new(inner, 4).unwrap();
        answer(&mut avg, &batch[..5]);
        answer(&mut avg, &batch[5..]);
        assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 2);
    }
}

//! `shax bench train`: optimizer steps per second of the trainer, per batch
//! size, on a backend. The steps are Burn's ([`Trainer::train_step`] of a
//! [`Trainer::burn_only`]: forward, loss, backward, Adam, and the loss read
//! back) on encoded positions from fixed playouts, with targets spread evenly
//! over each position's legal actions; the figures are speed only, the
//! targets mean nothing. With `direct`, the trainer's steps by
//! [`shax_nn::DirectTrainer`] ([`Trainer::direct_only`]), the step `shax
//! train` takes on the CPU. The policy loss spans the policy indices the
//! caller names ([`Trainer::with_policy_support`]).

use std::time::{Duration, Instant};

use serde::Serialize;
use shax_core::{POLICY_SIZE, Position};
use shax_nn::{Backend, MATERIAL_TARGETS, ModelConfig, bench_positions, encode_batch, features};

use crate::config::TrainSection;
use crate::replay::Batch;
use crate::trainer::{TrainError, Trainer};

/// The batch sizes `shax bench train` reports by default.
pub const DEFAULT_TRAIN_BENCH_BATCHES: [usize; 3] = [256, 1024, 4096];

/// One batch size's figures.
#[derive(Clone, Debug, Serialize)]
pub struct TrainBatchFigures {
    /// Positions per step.
    pub batch: usize,
    /// Steps timed.
    pub steps: usize,
    /// Milliseconds per step.
    pub ms_per_step: f64,
    /// Positions trained on per second.
    pub samples_per_s: f64,
}

/// What [`bench_train`] measured.
#[derive(Clone, Debug, Serialize)]
pub struct TrainBenchReport {
    /// The backend, with what runs it.
    pub backend: String,
    /// Whether [`shax_nn::DirectTrainer`] took the steps instead of Burn's autodiff.
    pub direct: bool,
    /// The network trained.
    pub model: ModelConfig,
    /// Its parameter count.
    pub params: usize,
    /// The actions the policy loss spanned, of the policy's 600.
    pub policy_actions: usize,
    /// Per batch size.
    pub batches: Vec<TrainBatchFigures>,
}

/// A training batch of `size` positions cycled from `positions`.
pub(crate) fn batch_of(positions: &[Position], size: usize, encoder: u32) -> Batch {
    let rows: Vec<Position> = positions.iter().copied().cycle().take(size).collect();
    let mut input = Vec::new();
    encode_batch(&rows, encoder, &mut input);
    let mut policy = vec![0.0f32; size * POLICY_SIZE];
    let mut wdl = vec![0.0f32; size * 3];
    for (i, pos) in rows.iter().enumerate() {
        let legal = pos.legal_actions();
        let share = 1.0 / legal.len().max(1) as f32;
        for a in legal.iter() {
            policy[i * POLICY_SIZE + a.policy_index()] = share;
        }
        wdl[i * 3 + i % 3] = 1.0;
    }
    Batch {
        len: size,
        features: features(encoder),
        input,
        policy,
        wdl,
        material: vec![0.0; size * MATERIAL_TARGETS],
    }
}

/// Times the trainer of a fresh `model` on `backend`: for each of `batches`,
/// three untimed steps, then steps for about `seconds` (at least three). The
/// trainer runs on the calling thread, as in `shax train`; on the CPU its
/// large matrix products spread over rayon's global pool. With `direct`,
/// [`shax_nn::DirectTrainer`] takes the steps (one thread, the CPU only).
/// The policy loss spans `policy_support` (policy indices, ascending).
///
/// # Errors
///
/// [`TrainError`] when `model` is out of range, a batch size is 0, a step
/// fails, or `direct` is asked of another backend or of a network it
/// cannot train.
///
/// # Panics
///
/// Panics when `policy_support` is empty, not ascending or beyond the policy.
pub fn bench_train(
    model: &ModelConfig,
    backend: Backend,
    batches: &[usize],
    seconds: f64,
    direct: bool,
    policy_support: &[usize],
) -> Result<TrainBenchReport, TrainError> {
    model.validate().map_err(|e| TrainError(e.to_string()))?;
    if batches.contains(&0) {
        return Err(TrainError("a batch size is 0".into()));
    }
    if direct && backend != Backend::Cpu {
        return Err(TrainError(format!(
            "the direct trainer runs on the CPU, not {backend}"
        )));
    }
    let positions = bench_positions(512);
    let mut figures = Vec::with_capacity(batches.len());
    let mut params = 0;
    for &size in batches {
        let trainer = Trainer::new(model, &TrainSection::default(), 1_000_000, backend, 1)
            .with_policy_support(policy_support.to_vec());
        let mut trainer = if direct {
            trainer.direct_only()?
        } else {
            trainer.burn_only()
        };
        params = trainer.num_params();
        let batch = batch_of(&positions, size, model.encoder);
        for _ in 0..3 {
            trainer.train_step(&batch)?; // warm-up: kernels compiled, buffers sized
        }
        let budget = Duration::from_secs_f64(seconds.max(0.01));
        let start = Instant::now();
        let mut steps = 0usize;
        while steps < 3 || start.elapsed() < budget {
            trainer.train_step(&batch)?;
            steps += 1;
        }
        let secs = start.elapsed().as_secs_f64();
        figures.push(TrainBatchFigures {
            batch: size,
            steps,
            ms_per_step: secs * 1e3 / steps as f64,
            samples_per_s: (size * steps) as f64 / secs,
        });
    }
    Ok(TrainBenchReport {
        backend: backend.describe(),
        direct,
        model: model.clone(),
        params,
        policy_actions: policy_support.len(),
        batches: figures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bench_batch_holds_distributions_over_legal_actions() {
        let positions = bench_positions(8);
        let batch = batch_of(&positions, 20, 1);
        assert_eq!(batch.input.len(), 20 * features(1));
        for (row, pos) in batch
            .policy
            .chunks(POLICY_SIZE)
            .zip(positions.iter().cycle())
        {
            let sum: f32 = row.iter().sum();
            assert!((sum - 1.0).abs() < 1e-4, "policy row sums to {sum}");
            for a in pos.legal_actions().iter() {
                assert!(row[a.policy_index()] > 0.0);
            }
        }
        for row in batch.wdl.chunks(3) {
            assert_eq!(row.iter().sum::<f32>(), 1.0);
        }
    }

    #[test]
    fn the_bench_reports_every_batch_and_refuses_a_zero_batch() {
        let model = ModelConfig {
            hidden: 16,
            blocks: 1,
            value_hidden: 8,
            ..ModelConfig::new()
        };
        let shax = shax_core::Rules::preset(shax_core::Preset::Shax).policy_support();
        let every: Vec<usize> = (0..POLICY_SIZE).collect();
        for (direct, support) in [
            (false, &every),
            (true, &every),
            (false, &shax),
            (true, &shax),
        ] {
            let r = bench_train(&model, Backend::Cpu, &[4, 8], 0.01, direct, support).unwrap();
            assert_eq!(r.batches.len(), 2);
            assert_eq!(r.batches[1].batch, 8);
            assert!(
                r.batches
                    .iter()
                    .all(|b| b.steps >= 3 && b.samples_per_s > 0.0)
            );
            assert_eq!((r.params, r.direct), (model.num_params(), direct));
            assert_eq!(r.policy_actions, support.len());
            assert!(bench_train(&model, Backend::Cpu, &[4, 0], 0.01, direct, support).is_err());
        }
        let scalar = model.with_value_head(shax_nn::ValueHead::Scalar);
        let err = bench_train(&scalar, Backend::Cpu, &[4], 0.01, true, &every).unwrap_err();
        assert!(err.to_string().contains("scalar value head"), "{err}");
    }
}

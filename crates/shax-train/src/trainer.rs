//! The network under training: on the CPU with Adam by [`DirectTrainer`]
//! (the same step without Burn), otherwise on the autodiff device: Adam or SGD with
//! momentum, weight decay on the weight matrices only (decoupled, AdamW-style,
//! with Adam; L2 with SGD), the learning-rate schedule (following the run's
//! progress in steps or in hours, whichever is further), and the loss of
//! [`shax_nn::alphazero_loss`] (policy cross-entropy + the value head's
//! loss), plus `train.material_weight` times [`shax_nn::material_loss`] for
//! a network with the material head, the parts kept apart for logging.
//!
//! Optimizer state written before weight decay was decoupled (Adam with L2,
//! up to commit 67c7f3f) loads as it is: Adam and AdamW keep the same moments
//! under the same names.

use shax_nn::burn::module::{Module, ModuleVisitor, Param, ParamGroup, ParamId};
use shax_nn::burn::optim::decay::WeightDecayConfig;
use shax_nn::burn::optim::momentum::MomentumConfig;
use shax_nn::burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use shax_nn::burn::tensor::{Bytes, Device, Tensor, TensorData};
use shax_nn::{
    Backend, DirectTrainer, MATERIAL_TARGETS, ModelConfig, NetWeights, PolicyValueNet,
    alphazero_loss, head_value, material_loss, policy_columns,
};

use shax_core::POLICY_SIZE;

use crate::config::{Optimizer, TrainSection};
use crate::replay::Batch;

/// A training step that failed (a backend read-back or serialisation).
#[derive(Debug, thiserror::Error)]
#[error("training: {0}")]
pub struct TrainError(pub String);

/// The losses of one step, averaged over its batch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepLoss {
    /// Policy cross-entropy.
    pub policy: f32,
    /// Value loss: cross-entropy of the three-way head, squared error of the scalar head.
    pub value: f32,
    /// The material head's squared error, unweighted (`None` without the head).
    pub material: Option<f32>,
    /// What was minimised: policy + value + `material_weight` x material.
    pub total: f32,
    /// The batch's value predictions.
    pub predictions: Vec<f32>,
}

/// The network, its optimizer and the step counter.
pub struct Trainer {
    model: ModelConfig,
    cfg: TrainSection,
    total_steps: u64,
    /// The share of the run's time limit used so far (0 without one).
    time_fraction: f64,
    steps: Steps,
    device: Device,
    /// The policy indices the policy loss spans, ascending.
    policy_support: Vec<usize>,
    /// Training steps done.
    pub step: u64,
}

/// Who takes the steps, and holds the weights and the optimizer's state.
enum Steps {
    /// Burn's autodiff and optimizer (`net` is taken during a step).
    Burn {
        net: Option<PolicyValueNet>,
        optim: ModuleOptimizer,
    },
    /// On the CPU with Adam, the step without Burn ([`DirectTrainer`], the
    /// same function); `shape` is a network of the same shape and parameter
    /// ids, which the weights are written into when asked for.
    Direct {
        shape: PolicyValueNet,
        trainer: Box<DirectTrainer>,
    },
}

impl Steps {
    /// The direct step where it can take Burn's ([`direct_for`]), else Burn's.
    fn for_net(cfg: &TrainSection, backend: Backend, net: PolicyValueNet) -> Steps {
        match direct_for(cfg, backend, &net) {
            Some(trainer) => Steps::Direct {
                shape: net,
                trainer: Box::new(trainer),
            },
            None => Steps::burn(cfg, net),
        }
    }

    /// Burn's step with a fresh optimizer.
    fn burn(cfg: &TrainSection, net: PolicyValueNet) -> Steps {
        Steps::Burn {
            optim: optimizer(cfg, &net),
            net: Some(net),
        }
    }
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trainer").field("step", &self.step).finish()
    }
}

/// Collects the parameters that are not weight matrices: biases and layer
/// norms' scales and shifts (every parameter of rank below 2).
#[derive(Default)]
struct NotMatrices(Vec<ParamId>);

impl ModuleVisitor for NotMatrices {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if D < 2 {
            self.0.push(param.id);
        }
    }
}

/// The optimizer for `net`: weight decay on its weight matrices only, not
/// on biases or layer norms. Adam decays decoupled from the gradient (AdamW:
/// `w -= lr * weight_decay * w` each step, besides Adam's update); SGD adds
/// `weight_decay * w` to the gradient (L2, the same thing up to momentum).
fn optimizer(cfg: &TrainSection, net: &PolicyValueNet) -> ModuleOptimizer {
    let mut others = NotMatrices::default();
    net.visit(&mut others);
    let undecayed = ParamGroup::from_ids(others.0);
    match cfg.optimizer {
        Optimizer::Adam => {
            let adam = |decay: f64| AdamWConfig::new().with_weight_decay(decay as f32);
            adam(cfg.weight_decay)
                .init()
                .with_group(undecayed, adam(0.0).build(), None)
        }
        Optimizer::SgdMomentum => {
            let sgd = |decay: f64| {
                SgdConfig::new()
                    .with_weight_decay((decay > 0.0).then(|| WeightDecayConfig::new(decay as f32)))
                    .with_momentum(Some(
                        MomentumConfig::new()
                            .with_momentum(cfg.momentum)
                            .with_dampening(0.0),
                    ))
            };
            sgd(cfg.weight_decay)
                .init()
                .with_group(undecayed, sgd(0.0).build(), None)
        }
    }
}

/// The direct step for `net` where it can take Burn's: Adam on the CPU, and
/// a network it trains (the three-way value head, no material head).
fn direct_for(cfg: &TrainSection, backend: Backend, net: &PolicyValueNet) -> Option<DirectTrainer> {
    let fits = backend == Backend::Cpu && cfg.optimizer == Optimizer::Adam;
    fits.then(|| DirectTrainer::new(net).ok()).flatten()
}

/// [`Trainer::train_step`] by [`DirectTrainer`].
fn direct_step(trainer: &mut DirectTrainer, batch: &Batch, lr: f64, decay: f64) -> StepLoss {
    shax_nn::flush_denormals();
    let l = trainer.step(
        &batch.input,
        &batch.policy,
        &batch.wdl,
        batch.len,
        lr,
        decay,
    );
    StepLoss {
        policy: l.policy,
        value: l.value,
        material: None,
        total: l.policy + l.value,
        predictions: trainer.predictions().to_vec(),
    }
}

impl Trainer {
    /// A fresh network (seeded) and optimizer on `backend`'s autodiff device.
    pub fn new(
        model: &ModelConfig,
        cfg: &TrainSection,
        total_steps: u64,
        backend: Backend,
        seed: u64,
    ) -> Trainer {
        let device = backend.training_device();
        device.seed(seed);
        let net = model.init(&device);
        Trainer::at_start(model, cfg, total_steps, backend, device, net)
    }

    /// A new run's trainer at step 0 that starts from `net` (loaded on
    /// `backend.training_device()`, of shape `model`) with a fresh optimizer;
    /// the device is seeded with `seed` for what training draws.
    pub fn from_net(
        model: &ModelConfig,
        cfg: &TrainSection,
        total_steps: u64,
        backend: Backend,
        net: PolicyValueNet,
        seed: u64,
    ) -> Trainer {
        let device = backend.training_device();
        device.seed(seed);
        Trainer::at_start(model, cfg, total_steps, backend, device, net)
    }

    /// Step 0 with `net` on `device` and a fresh optimizer.
    fn at_start(
        model: &ModelConfig,
        cfg: &TrainSection,
        total_steps: u64,
        backend: Backend,
        device: Device,
        net: PolicyValueNet,
    ) -> Trainer {
        Trainer {
            model: model.clone(),
            cfg: cfg.clone(),
            total_steps,
            time_fraction: 0.0,
            steps: Steps::for_net(cfg, backend, net),
            device,
            policy_support: (0..POLICY_SIZE).collect(),
            step: 0,
        }
    }

    /// The same trainer with the policy loss over the policy indices of
    /// `support` only (ascending; [`crate::PolicyActions::support`]), as
    /// [`DirectTrainer::set_policy_support`] says; every index before.
    ///
    /// # Panics
    ///
    /// Panics when `support` is empty, not ascending, or beyond the policy.
    pub fn with_policy_support(mut self, support: Vec<usize>) -> Trainer {
        if let Steps::Direct { trainer, .. } = &mut self.steps {
            trainer.set_policy_support(support.clone());
        }
        self.policy_support = support;
        self
    }

    /// The same trainer on Burn's autodiff alone (the reference the direct
    /// step is held to), before its first step.
    ///
    /// # Panics
    ///
    /// Panics after a step: Burn's copy of the network would be stale.
    pub fn burn_only(mut self) -> Trainer {
        assert_eq!(self.step, 0, "burn_only after a step");
        if let Steps::Direct { shape, .. } = self.steps {
            self.steps = Steps::burn(&self.cfg, shape);
        }
        self
    }

    /// The same trainer, which must take the direct step (what `shax bench
    /// train --direct` times).
    ///
    /// # Errors
    ///
    /// [`TrainError`] naming why, when the trainer takes Burn's step: its
    /// backend or optimizer, or a network the direct step cannot train.
    pub fn direct_only(self) -> Result<Trainer, TrainError> {
        match &self.steps {
            Steps::Direct { .. } => Ok(self),
            Steps::Burn { net, .. } => {
                let net = net.as_ref().expect("a network between steps");
                Err(TrainError(match DirectTrainer::new(net) {
                    Err(e) => e.to_string(),
                    Ok(_) => "the direct trainer needs Adam on the CPU".into(),
                }))
            }
        }
    }

    /// Resumes from a network loaded on `backend.training_device()`, the
    /// optimizer state's bytes and the step counter. State written before
    /// weight decay was decoupled (Adam with L2) loads: the moments are the same.
    ///
    /// # Errors
    ///
    /// [`TrainError`] when the optimizer state cannot be read.
    pub fn resume(
        model: &ModelConfig,
        cfg: &TrainSection,
        total_steps: u64,
        backend: Backend,
        net: PolicyValueNet,
        optim_state: Vec<u8>,
        step: u64,
    ) -> Result<Trainer, TrainError> {
        let device = backend.training_device();
        device.seed(step ^ 0x5eed);
        let steps = if DirectTrainer::is_state(&optim_state) {
            let mut trainer = direct_for(cfg, backend, &net).ok_or_else(|| {
                TrainError("optimizer state of the direct step, which needs Adam on the CPU".into())
            })?;
            trainer
                .load_state(&optim_state)
                .map_err(|e| TrainError(format!("optimizer state: {e}")))?;
            Steps::Direct {
                shape: net,
                trainer: Box::new(trainer),
            }
        } else {
            let optim = optimizer(cfg, &net)
                .from_bytes(Bytes::from_bytes_vec(optim_state))
                .map_err(|e| TrainError(format!("optimizer state: {e}")))?;
            Steps::Burn {
                net: Some(net),
                optim,
            }
        };
        Ok(Trainer {
            model: model.clone(),
            cfg: cfg.clone(),
            total_steps,
            time_fraction: 0.0,
            steps,
            device,
            policy_support: (0..POLICY_SIZE).collect(),
            step,
        })
    }

    /// The learning rate of the next step.
    pub fn lr(&self) -> f64 {
        self.cfg
            .lr_at(self.step, self.total_steps, self.time_fraction)
    }

    /// Tells the schedule the run's wall-clock time so far, `elapsed_secs`
    /// (summed over resumes), of its limit of `hours` (0: none, and the
    /// schedule follows the steps alone): a run that the hours limit stops
    /// before `total_steps` still ends its cosine at its last step.
    pub fn set_elapsed(&mut self, elapsed_secs: f64, hours: f64) {
        self.time_fraction = if hours > 0.0 {
            (elapsed_secs / (hours * 3600.0)).clamp(0.0, 1.0)
        } else {
            0.0
        };
    }

    /// The network's shape (and, on Burn, its weights).
    fn net(&self) -> &PolicyValueNet {
        match &self.steps {
            Steps::Burn { net, .. } => net
                .as_ref()
                .expect("the network is only taken during a step"),
            Steps::Direct { shape, .. } => shape,
        }
    }

    /// One optimizer step on `batch`.
    ///
    /// # Errors
    ///
    /// [`TrainError`] when the backend cannot read the loss back.
    pub fn train_step(&mut self, batch: &Batch) -> Result<StepLoss, TrainError> {
        let lr = self.lr();
        let (net, optim) = match &mut self.steps {
            Steps::Burn { net, optim } => (net, optim),
            Steps::Direct { trainer, .. } => {
                let loss = direct_step(trainer, batch, lr, self.cfg.weight_decay);
                self.step += 1;
                return Ok(loss);
            }
        };
        // Subnormal weights and gradients are slow on x86: flushed on this
        // thread and on the pool threads a large matrix product splits over.
        shax_nn::flush_denormals();
        static POOL: std::sync::Once = std::sync::Once::new();
        POOL.call_once(|| {
            rayon::broadcast(|_| shax_nn::flush_denormals());
        });
        let n = batch.len;
        let d = &self.device;
        let shape = [n, batch.features];
        let x = Tensor::<2>::from_data(TensorData::new(batch.input.clone(), shape), d); // [B, F]
        let tp = Tensor::<2>::from_data(TensorData::new(batch.policy.clone(), [n, POLICY_SIZE]), d); // [B, P]
        let tv = Tensor::<2>::from_data(TensorData::new(batch.wdl.clone(), [n, 3]), d); // [B, 3]
        let taken = net.take().expect("network present between steps");
        let out = taken.forward_train(x); // [B, P], [B, 3] or [B, 1], [B, 2]
        let predictions = head_value(out.value.clone()).try_into_vec_as::<f32>();
        let (logits, tp) = (
            policy_columns(out.logits, &self.policy_support), // [B, K]
            policy_columns(tp, &self.policy_support),         // [B, K]
        );
        let loss = alphazero_loss(logits, out.value, tp, tv);
        let mut total = loss.policy.clone() + loss.value.clone(); // [1]
        let material = out.material.map(|m| {
            let tm = TensorData::new(batch.material.clone(), [n, MATERIAL_TARGETS]);
            material_loss(m, Tensor::<2>::from_data(tm, d)) // [1]
        });
        if let Some(m) = &material {
            total = total + m.clone().mul_scalar(self.cfg.material_weight); // [1]
        }
        let read = |t: Tensor<1>| -> Result<f32, TrainError> {
            t.try_into_vec_as::<f32>()
                .map_err(|e| TrainError(format!("{e:?}")))
                .map(|v| v.first().copied().unwrap_or(f32::NAN))
        };
        let (p, v) = (read(loss.policy)?, read(loss.value)?);
        let m = material.map(read).transpose()?;
        let grads = GradientsParams::from_grads(total.backward(), &taken);
        *net = Some(optim.step(lr, taken, grads));
        self.step += 1;
        Ok(StepLoss {
            policy: p,
            value: v,
            material: m,
            total: p + v + m.map_or(0.0, |m| m * self.cfg.material_weight as f32),
            predictions: predictions.map_err(|e| TrainError(format!("{e:?}")))?,
        })
    }

    /// The current weights, for the workers and checkpoints.
    ///
    /// # Errors
    ///
    /// [`TrainError`] when Burn cannot serialise them.
    pub fn weights(&self) -> Result<NetWeights, TrainError> {
        NetWeights::from_net(&self.model, self.network().valid())
            .map_err(|e| TrainError(e.to_string()))
    }

    /// The network (a copy, on the autodiff device).
    pub fn network(&self) -> PolicyValueNet {
        match &self.steps {
            Steps::Burn { .. } => self.net().clone(),
            Steps::Direct { shape, trainer } => trainer.write_into(shape.clone(), &self.device),
        }
    }

    /// The optimizer state: burnpack bytes, or the direct step's
    /// ([`DirectTrainer::state_bytes`]).
    ///
    /// # Errors
    ///
    /// [`TrainError`] when Burn cannot serialise it.
    pub fn optimizer_bytes(&self) -> Result<Vec<u8>, TrainError> {
        let optim = match &self.steps {
            Steps::Burn { optim, .. } => optim,
            Steps::Direct { trainer, .. } => return Ok(trainer.state_bytes()),
        };
        optim
            .into_bytes()
            .map(|b| b.to_vec())
            .map_err(|e| TrainError(e.to_string()))
    }

    /// Parameters of the network.
    pub fn num_params(&self) -> usize {
        self.net().num_params()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shax_nn::burn::optim::AdamConfig;

    /// Every float parameter as (rank, values), in the module's order.
    #[derive(Default)]
    struct Values(Vec<(usize, Vec<f32>)>);

    impl ModuleVisitor for Values {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            let v = param.val().try_into_vec_as::<f32>().expect("read back");
            self.0.push((D, v));
        }
    }

    fn values(net: &PolicyValueNet) -> Vec<(usize, Vec<f32>)> {
        let mut v = Values::default();
        net.visit(&mut v);
        v.0
    }

    fn small() -> ModelConfig {
        ModelConfig::new()
            .with_hidden(16)
            .with_blocks(1)
            .with_value_hidden(8)
    }

    /// Gradients of `scale` times a loss that touches every parameter.
    fn grads(net: &PolicyValueNet, scale: f32) -> GradientsParams {
        let d = Backend::Cpu.training_device();
        let x = Tensor::<2>::ones([2, shax_nn::FEATURES], &d); // [2, FEATURES]
        let (logits, value) = net.forward(x); // [2, P], [2, 1]
        let loss = ((logits.clone() * logits).sum() + value.sum()).mul_scalar(scale); // [1]
        GradientsParams::from_grads(loss.backward(), net)
    }

    /// Regression (issue 11): weight decay was L2 inside Adam on every
    /// parameter. A step with zero gradients is the decay alone: each weight
    /// matrix shrinks by exactly `1 - lr * weight_decay`; biases and layer
    /// norms are untouched. SGD (L2 on the gradient) does the same on its
    /// first step.
    #[test]
    fn weight_decay_shrinks_weight_matrices_only() {
        for optim in [Optimizer::Adam, Optimizer::SgdMomentum] {
            let cfg = TrainSection {
                optimizer: optim,
                weight_decay: 0.1,
                ..TrainSection::default()
            };
            let net = small().init(&Backend::Cpu.training_device());
            let before = values(&net);
            let mut opt = optimizer(&cfg, &net);
            let lr = 0.5;
            let g = grads(&net, 0.0);
            let after = values(&opt.step(lr, net, g));
            let shrink = 1.0 - (lr * cfg.weight_decay) as f32;
            let (mut matrices, mut others) = (0, 0);
            for ((rank, b), (_, a)) in before.iter().zip(&after) {
                let factor = if *rank == 2 { shrink } else { 1.0 };
                for (x, y) in b.iter().zip(a) {
                    assert!(
                        (x * factor - y).abs() < 1e-6,
                        "{optim:?} rank {rank}: {x} -> {y}"
                    );
                }
                if *rank == 2 {
                    matrices += 1
                } else {
                    others += 1
                }
            }
            // Input, two per block, policy, two value layers; their biases and the norms.
            assert_eq!((matrices, others), (6, 10), "{optim:?}");
        }
    }

    /// Optimizer state written up to commit 67c7f3f (Adam with L2 on every
    /// parameter) resumes: the moments it holds are used, not dropped.
    #[test]
    fn adam_state_from_before_decoupled_decay_resumes() {
        let cfg = TrainSection::default();
        let d = Backend::Cpu.training_device();
        let mut net = small().init(&d);
        let mut old = AdamConfig::new()
            .with_weight_decay(Some(WeightDecayConfig::new(1e-4)))
            .init();
        for _ in 0..3 {
            let g = grads(&net, 1e-3);
            net = old.step(1e-3, net, g);
        }
        let old_bytes = old.into_bytes().unwrap().to_vec();
        let fresh_bytes = optimizer(&cfg, &net).into_bytes().unwrap().to_vec();
        let step_with = |bytes: Vec<u8>| {
            let mut t =
                Trainer::resume(&small(), &cfg, 100, Backend::Cpu, net.clone(), bytes, 3).unwrap();
            let g = grads(&net, 1e-3);
            let lr = t.lr();
            let Steps::Burn { optim, .. } = &mut t.steps else {
                panic!("Burn's optimizer state resumes on Burn");
            };
            let stepped = optim.step(lr, net.clone(), g);
            values(&stepped)
        };
        let (with_old, with_fresh) = (step_with(old_bytes), step_with(fresh_bytes));
        let differ = with_old
            .iter()
            .zip(&with_fresh)
            .flat_map(|((_, a), (_, b))| a.iter().zip(b))
            .filter(|(a, b)| (*a - *b).abs() > 1e-7)
            .count();
        let total: usize = with_old.iter().map(|(_, v)| v.len()).sum();
        assert!(differ * 2 > total, "{differ} of {total} moved differently");
    }

    /// The direct trainer's steps are the trainer's: after three AdamW steps
    /// with weight decay on the same batches, every parameter agrees.
    #[test]
    fn direct_trainer_steps_as_burns_adamw() {
        let cfg = TrainSection {
            weight_decay: 0.1,
            ..TrainSection::default()
        };
        let mut trainer = Trainer::new(&small(), &cfg, 100, Backend::Cpu, 3).burn_only();
        assert!(matches!(trainer.steps, Steps::Burn { .. }));
        let mut direct = shax_nn::DirectTrainer::new(&trainer.network()).unwrap();
        let before = direct.params().to_vec();
        let positions = shax_nn::bench_positions(64);
        for (k, size) in [16, 24, 16].into_iter().enumerate() {
            let batch = crate::bench::batch_of(&positions[k * 16..], size, 1);
            let lr = trainer.lr();
            let burn = trainer.train_step(&batch).unwrap();
            let own = direct.step(&batch.input, &batch.policy, &batch.wdl, size, lr, 0.1);
            assert!((burn.policy - own.policy).abs() < 1e-4, "{burn:?} {own:?}");
            assert!((burn.value - own.value).abs() < 1e-4, "{burn:?} {own:?}");
        }
        let after = shax_nn::DirectTrainer::new(&trainer.network()).unwrap();
        assert_eq!(after.params().len(), direct.params().len());
        let moved = after
            .params()
            .iter()
            .zip(&before)
            .filter(|(a, b)| a != b)
            .count();
        assert!(
            moved * 2 > after.params().len(),
            "the steps moved {moved} parameters"
        );
        for (i, (b, d)) in after.params().iter().zip(direct.params()).enumerate() {
            assert!((b - d).abs() < 1e-5, "parameter {i}: Burn {b}, direct {d}");
        }
    }

    /// With the policy loss over Shax's reachable actions, Burn's step and
    /// the direct one still agree, and both take the restricted loss: at
    /// random weights, about ln(600 / 112) below the loss over every action.
    #[test]
    fn both_steps_span_the_policy_support() {
        let shax = shax_core::Rules::preset(shax_core::Preset::Shax).policy_support();
        let cfg = TrainSection::default();
        // One network for all three (the device's seed is shared by the tests).
        let net = Trainer::new(&small(), &cfg, 100, Backend::Cpu, 3)
            .burn_only()
            .network();
        let fresh = || Trainer::from_net(&small(), &cfg, 100, Backend::Cpu, net.clone(), 3);
        let mut burn = fresh().burn_only().with_policy_support(shax.clone());
        let mut direct = fresh().with_policy_support(shax);
        let mut every = fresh();
        assert!(matches!(direct.steps, Steps::Direct { .. }));
        let positions = shax_nn::bench_positions(64);
        for k in 0..2 {
            let batch = crate::bench::batch_of(&positions[k * 16..], 16, 1);
            let b = burn.train_step(&batch).unwrap();
            let d = direct.train_step(&batch).unwrap();
            let e = every.train_step(&batch).unwrap();
            assert!((b.policy - d.policy).abs() < 1e-4, "{b:?} {d:?}");
            assert!(e.policy > d.policy + 1.0, "{e:?} {d:?}");
        }
        let params = |t: &Trainer| DirectTrainer::new(&t.network()).unwrap().params().to_vec();
        for (i, (b, d)) in params(&burn).iter().zip(params(&direct)).enumerate() {
            assert!((b - d).abs() < 1e-5, "parameter {i}: Burn {b}, direct {d}");
        }
    }

    /// On the CPU with Adam the trainer takes the direct step, and a run
    /// resumed from its checkpoint (network and optimizer bytes) goes on
    /// exactly as one that was never stopped.
    #[test]
    fn the_direct_step_resumes_where_it_stopped() {
        let cfg = TrainSection::default();
        let positions = shax_nn::bench_positions(64);
        let batches: Vec<Batch> = (0..3)
            .map(|k| crate::bench::batch_of(&positions[k * 16..], 16, 1))
            .collect();
        let mut whole = Trainer::new(&small(), &cfg, 100, Backend::Cpu, 5);
        assert!(matches!(whole.steps, Steps::Direct { .. }));
        let mut first = Trainer::new(&small(), &cfg, 100, Backend::Cpu, 5);
        for b in &batches[..2] {
            whole.train_step(b).unwrap();
            first.train_step(b).unwrap();
        }
        let (net, bytes) = (first.network(), first.optimizer_bytes().unwrap());
        assert!(DirectTrainer::is_state(&bytes));
        let mut resumed =
            Trainer::resume(&small(), &cfg, 100, Backend::Cpu, net, bytes, 2).unwrap();
        let (a, b) = (
            whole.train_step(&batches[2]).unwrap(),
            resumed.train_step(&batches[2]).unwrap(),
        );
        assert_eq!(a, b);
        assert_eq!(a.predictions.len(), 16);
        let params = |t: &Trainer| DirectTrainer::new(&t.network()).unwrap().params().to_vec();
        assert_eq!(params(&whole), params(&resumed));
        // Burn's state does not pass for the direct step's, nor the other way.
        let sgd = TrainSection {
            optimizer: Optimizer::SgdMomentum,
            ..TrainSection::default()
        };
        let bytes = whole.optimizer_bytes().unwrap();
        let err = Trainer::resume(&small(), &sgd, 100, Backend::Cpu, whole.network(), bytes, 3)
            .unwrap_err();
        assert!(err.to_string().contains("needs Adam"), "{err}");
    }
}

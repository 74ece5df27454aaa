//! The network under training on the autodiff device: Adam or SGD with
//! momentum, L2 weight decay, the learning-rate schedule, and the loss of
//! [`shax_nn::alphazero_loss`] (policy cross-entropy + value MSE), its two
//! parts kept apart for logging.

use shax_nn::burn::module::Module;
use shax_nn::burn::optim::decay::WeightDecayConfig;
use shax_nn::burn::optim::momentum::MomentumConfig;
use shax_nn::burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use shax_nn::burn::tensor::activation::log_softmax;
use shax_nn::burn::tensor::{Bytes, Device, Tensor, TensorData};
use shax_nn::{Backend, FEATURES, ModelConfig, NetWeights, PolicyValueNet};

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
    /// Value mean squared error.
    pub value: f32,
    /// Their sum.
    pub total: f32,
    /// The batch's value predictions.
    pub predictions: Vec<f32>,
}

/// The network, its optimizer and the step counter.
pub struct Trainer {
    model: ModelConfig,
    cfg: TrainSection,
    total_steps: u64,
    net: Option<PolicyValueNet>,
    optim: ModuleOptimizer,
    device: Device,
    /// Training steps done.
    pub step: u64,
}

impl std::fmt::Debug for Trainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trainer").field("step", &self.step).finish()
    }
}

fn optimizer(cfg: &TrainSection) -> ModuleOptimizer {
    let decay = (cfg.weight_decay > 0.0).then(|| WeightDecayConfig::new(cfg.weight_decay as f32));
    match cfg.optimizer {
        Optimizer::Adam => AdamConfig::new().with_weight_decay(decay).init(),
        Optimizer::SgdMomentum => SgdConfig::new()
            .with_weight_decay(decay)
            .with_momentum(Some(
                MomentumConfig::new()
                    .with_momentum(cfg.momentum)
                    .with_dampening(0.0),
            ))
            .init(),
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
        Trainer {
            model: model.clone(),
            cfg: cfg.clone(),
            total_steps,
            net: Some(model.init(&device)),
            optim: optimizer(cfg),
            device,
            step: 0,
        }
    }

    /// Resumes from a network loaded on `backend.training_device()`, the
    /// optimizer state's bytes and the step counter.
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
        let optim = optimizer(cfg)
            .from_bytes(Bytes::from_bytes_vec(optim_state))
            .map_err(|e| TrainError(format!("optimizer state: {e}")))?;
        Ok(Trainer {
            model: model.clone(),
            cfg: cfg.clone(),
            total_steps,
            net: Some(net),
            optim,
            device,
            step,
        })
    }

    /// The learning rate of the next step.
    pub fn lr(&self) -> f64 {
        self.cfg.lr_at(self.step, self.total_steps)
    }

    fn net(&self) -> &PolicyValueNet {
        self.net
            .as_ref()
            .expect("the network is only taken during a step")
    }

    /// One optimizer step on `batch`.
    ///
    /// # Errors
    ///
    /// [`TrainError`] when the backend cannot read the loss back.
    pub fn train_step(&mut self, batch: &Batch) -> Result<StepLoss, TrainError> {
        let n = batch.len;
        let d = &self.device;
        let x = Tensor::<2>::from_data(TensorData::new(batch.input.clone(), [n, FEATURES]), d); // [B, FEATURES]
        let tp = Tensor::<2>::from_data(TensorData::new(batch.policy.clone(), [n, POLICY_SIZE]), d); // [B, P]
        let tv = Tensor::<2>::from_data(TensorData::new(batch.value.clone(), [n, 1]), d); // [B, 1]
        let net = self.net.take().expect("network present between steps");
        let (logits, value) = net.forward(x); // [B, P], [B, 1]
        let predictions = value.clone().try_into_vec_as::<f32>();
        let log_p = log_softmax(logits, 1); // [B, P]
        let policy = (tp * log_p).sum_dim(1).neg().mean(); // [1]
        let diff = value - tv; // [B, 1]
        let vloss = (diff.clone() * diff).mean(); // [1]
        let total = policy.clone() + vloss.clone(); // [1]
        let read = |t: Tensor<1>| -> Result<f32, TrainError> {
            t.try_into_vec_as::<f32>()
                .map_err(|e| TrainError(format!("{e:?}")))
                .map(|v| v.first().copied().unwrap_or(f32::NAN))
        };
        let (p, v) = (read(policy)?, read(vloss)?);
        let grads = GradientsParams::from_grads(total.backward(), &net);
        let lr = self.lr();
        self.net = Some(self.optim.step(lr, net, grads));
        self.step += 1;
        Ok(StepLoss {
            policy: p,
            value: v,
            total: p + v,
            predictions: predictions.map_err(|e| TrainError(format!("{e:?}")))?,
        })
    }

    /// The current weights, for the workers and checkpoints.
    ///
    /// # Errors
    ///
    /// [`TrainError`] when Burn cannot serialise them.
    pub fn weights(&self) -> Result<NetWeights, TrainError> {
        NetWeights::from_net(&self.model, self.net().clone().valid())
            .map_err(|e| TrainError(e.to_string()))
    }

    /// The network (a copy, on the autodiff device).
    pub fn network(&self) -> PolicyValueNet {
        self.net().clone()
    }

    /// The optimizer state as burnpack bytes.
    ///
    /// # Errors
    ///
    /// [`TrainError`] when Burn cannot serialise it.
    pub fn optimizer_bytes(&self) -> Result<Vec<u8>, TrainError> {
        self.optim
            .into_bytes()
            .map(|b| b.to_vec())
            .map_err(|e| TrainError(e.to_string()))
    }

    /// Parameters of the network.
    pub fn num_params(&self) -> usize {
        self.net().num_params()
    }
}

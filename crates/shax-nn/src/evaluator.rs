//! The batched evaluator behind `shax_search::Evaluator`.
//!
//! On this machine the fastest arrangement was one worker per core, each with
//! its own copy of the model, inference on the calling thread, batches of 16 to
//! 64 (`docs/BACKENDS.md`). [`NetWeights`] is the cheap, `Send + Sync`
//! handle to share: each worker thread calls [`NetWeights::evaluator`] once.
//!
//! On the CPU, play and self-play run the direct forward pass
//! ([`NetEvaluator::direct`], src/direct.rs): the legal actions' logits only,
//! sparse inputs, no tensors. Burn's forward pass ([`NetEvaluator::new`]) is
//! what a GPU backend runs and the reference the direct pass is tested
//! against; `shax bench nn` measures both.

use std::sync::Arc;

use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::{Bytes, Device, Tensor, TensorData};
use shax_core::Position;
use shax_search::{Evaluator, check_buffers};

use crate::backend::Backend;
use crate::direct::{DirectNet, wdl};
use crate::encoder::{encode_batch, features};
use crate::model::{ModelConfig, PolicyValueNet};

/// The default [`Evaluator::preferred_batch`] of a [`NetEvaluator`].
pub const DEFAULT_BATCH: usize = 64;

/// A network's configuration and weights (burnpack bytes), cheap to clone and
/// to send to worker threads, each of which builds its own [`NetEvaluator`].
#[derive(Clone, Debug)]
pub struct NetWeights {
    config: ModelConfig,
    bytes: Arc<[u8]>,
}

/// Weights that do not fit their configuration, or could not be serialised.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("network weights: {0}")]
pub struct WeightsError(pub String);

impl NetWeights {
    /// Takes the weights of `net` (built from `config`, on any device).
    ///
    /// # Errors
    ///
    /// [`WeightsError`] when Burn cannot serialise the record.
    pub fn from_net(config: &ModelConfig, net: PolicyValueNet) -> Result<NetWeights, WeightsError> {
        let bytes = net
            .into_record()
            .into_bytes()
            .map_err(|e| WeightsError(e.to_string()))?;
        Ok(NetWeights {
            config: config.clone(),
            bytes: Arc::from(&bytes[..]),
        })
    }

    /// The network's configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The weights as burnpack bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Builds the network on `device` (plain or autodiff) with these weights.
    ///
    /// # Errors
    ///
    /// [`WeightsError`] when the bytes are not a burnpack record of this
    /// configuration's network.
    pub fn net(&self, device: &Device) -> Result<PolicyValueNet, WeightsError> {
        self.config
            .validate()
            .map_err(|e| WeightsError(e.to_string()))?;
        let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(self.bytes.to_vec()))
            .map_err(|e| WeightsError(e.to_string()))?;
        self.config
            .init(device)
            .try_load_record(record)
            .map_err(|e| WeightsError(e.to_string()))
    }

    /// An evaluator on the CPU backend, for the calling thread.
    ///
    /// # Errors
    ///
    /// As [`NetWeights::net`].
    pub fn evaluator(&self) -> Result<NetEvaluator, WeightsError> {
        self.evaluator_on(Backend::Cpu)
    }

    /// An evaluator on `backend`: on the CPU the direct forward pass
    /// ([`NetEvaluator::direct`]), elsewhere Burn's.
    ///
    /// # Errors
    ///
    /// As [`NetWeights::net`].
    pub fn evaluator_on(&self, backend: Backend) -> Result<NetEvaluator, WeightsError> {
        let device = backend.device();
        let net = self.net(&device)?;
        Ok(match backend {
            Backend::Cpu => NetEvaluator::direct(&net),
            #[cfg(feature = "wgpu")]
            Backend::Wgpu => NetEvaluator::new(net, device),
        })
    }
}

/// The network as an [`Evaluator`]: encodes a batch, runs one forward pass
/// (Burn's, or the direct one), writes the logits and values out.
///
/// # Examples
///
/// ```
/// use shax_core::{POLICY_SIZE, Position, Rules};
/// use shax_nn::{Backend, ModelConfig, NetEvaluator};
/// use shax_search::Evaluator;
///
/// let device = Backend::Cpu.device();
/// let net = ModelConfig::new().with_hidden(32).with_blocks(1).init(&device);
/// let mut eval = NetEvaluator::new(net, device);
/// let positions = [Position::new(Rules::default()); 3];
/// let mut logits = vec![0.0; 3 * POLICY_SIZE];
/// let mut values = [0.0; 3];
/// eval.evaluate(&positions, &mut logits, &mut values);
/// assert!(values.iter().all(|v| (-1.0..=1.0).contains(v)));
/// ```
#[derive(Debug)]
pub struct NetEvaluator {
    forward: Forward,
    preferred_batch: usize,
}

/// Who runs the forward pass.
#[derive(Debug)]
// One evaluator per worker thread: the size of the variants does not matter.
#[allow(clippy::large_enum_variant)]
enum Forward {
    /// Burn, on any device: every logit, from Burn's tensors.
    Burn {
        net: PolicyValueNet,
        device: Device,
        input: Vec<f32>,
    },
    /// The direct CPU pass: the legal actions' logits only.
    Direct(DirectNet),
}

impl NetEvaluator {
    /// Wraps an inference network living on `device`: Burn runs it.
    pub fn new(net: PolicyValueNet, device: Device) -> NetEvaluator {
        NetEvaluator {
            forward: Forward::Burn {
                net,
                device,
                input: Vec::new(),
            },
            preferred_batch: DEFAULT_BATCH,
        }
    }

    /// The same network's function on the CPU without Burn (`DirectNet`,
    /// src/direct.rs), what play uses: the legal actions' logits only (the
    /// others `-inf`), at less cost. Its weights are copied from `net`.
    pub fn direct(net: &PolicyValueNet) -> NetEvaluator {
        NetEvaluator {
            forward: Forward::Direct(DirectNet::new(net)),
            preferred_batch: DEFAULT_BATCH,
        }
    }

    /// Sets the batch size reported by [`Evaluator::preferred_batch`] (at least 1).
    #[must_use]
    pub fn with_preferred_batch(mut self, batch: usize) -> NetEvaluator {
        self.preferred_batch = batch.max(1);
        self
    }
}

impl NetEvaluator {
    /// [`Evaluator::evaluate_wdl`], the chances of a draw only if wanted.
    fn run(
        &mut self,
        positions: &[Position],
        logits: &mut [f32],
        values: &mut [f32],
        mut draws: Option<&mut [f32]>,
    ) {
        let n = positions.len();
        check_buffers(n, logits, values, draws.as_deref());
        if n == 0 {
            return;
        }
        crate::backend::flush_denormals();
        let (net, device, input) = match &mut self.forward {
            Forward::Direct(direct) => return direct.evaluate(positions, logits, values, draws),
            Forward::Burn { net, device, input } => (net, device, input),
        };
        let version = net.encoder();
        encode_batch(positions, version, input);
        let data = TensorData::new(input.clone(), [n, features(version)]);
        let x = Tensor::<2>::from_data(data, &*device); // [n, F]
        let head = net.value_head();
        let (p, raw) = net.forward_raw(x); // [n, POLICY_SIZE], [n, 1 or 3]
        let p = p
            .try_into_vec_as::<f32>()
            .expect("reading the policy logits");
        let raw = raw.try_into_vec_as::<f32>().expect("reading the values");
        logits.copy_from_slice(&p);
        let raw = raw.chunks_exact(raw.len() / n).map(|r| wdl(head, r));
        for (i, (v, d)) in raw.enumerate() {
            values[i] = v.clamp(-1.0, 1.0);
            if let Some(draws) = draws.as_deref_mut() {
                draws[i] = d;
            }
        }
    }
}

impl Evaluator for NetEvaluator {
    /// # Panics
    ///
    /// Panics when the buffers' lengths do not fit `positions` (the trait's
    /// contract), or if the backend fails to read its own output back.
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        self.run(positions, logits, values, None);
    }

    /// # Panics
    ///
    /// As [`NetEvaluator::evaluate`], and when `draws` does not fit
    /// `positions`.
    fn evaluate_wdl(
        &mut self,
        positions: &[Position],
        logits: &mut [f32],
        values: &mut [f32],
        draws: &mut [f32],
    ) {
        self.run(positions, logits, values, Some(draws));
    }

    fn preferred_batch(&self) -> usize {
        self.preferred_batch
    }
}

//! The policy/value network: a residual MLP over the encoder's features.
//!
//! ```text
//! input [B, F] -> Linear -> ReLU                            trunk [B, H]
//! block (x blocks):  h = ReLU(LN(Linear(x))); h = LN(Linear(h)); x = ReLU(x + h)
//! policy head: Linear(H, POLICY_SIZE)                       logits [B, 600]
//! value head:  Linear(H, V) -> ReLU -> Linear(V, 3)         win/draw/loss logits [B, 3]
//!               (value_head = "scalar": Linear(V, 1) -> tanh value [B, 1])
//! material head (material_head = true, training only): Linear(H, 2) -> tanh [B, 2]
//! ```
//!
//! The logits are raw: search masks them to the legal actions. Search sees one
//! value in `[-1, 1]` either way: P(win) - P(loss) of the three-way head (the
//! default, as lc0's), or the scalar head's tanh. The three-way head is
//! trained by cross-entropy and tells a draw from a coin flip; the scalar
//! head (the only one up to checkpoint format 1) by squared error.
//!
//! The optional material head is an auxiliary target, as KataGo's score and
//! ownership heads: it predicts the difference in pieces (on the board and in
//! hand, the player to act's minus the opponent's, over the rules' pieces per
//! side) a few actions ahead and at the game's end. Search never reads it;
//! training its squared error gives the trunk a dense signal about mills and
//! captures that the game's result alone gives rarely.
//!
//! # The default size, measured
//!
//! `bench_nn` on the 2-core development machine (AVX-512, one core pinned with
//! `taskset`, other builds running; one-core 1024^3 matmul peak 246 GFLOP/s),
//! evaluations per second on one thread:
//!
//! | hidden x blocks (layer norm) | params | MFLOP/eval | batch 1 | 8 | 64 | 256 |
//! |---|---|---|---|---|---|---|
//! | 128 x 2 | 186k | 0.37 | 52k | 225k | 432k | 492k |
//! | **128 x 3 (default)** | 219k | 0.43 | 43k | 181k | 377k | 427k |
//! | 128 x 3, no layer norm | 218k | 0.43 | 49k | 215k | 404k | 448k |
//! | 128 x 4 | 253k | 0.50 | 38k | 165k | 330k | (noisy) |
//! | 192 x 3 | 402k | 0.80 | 24k | 119k | 227k | 251k |
//! | 256 x 2 | 502k | 1.00 | 27k | 113k | 195k | 210k |
//! | 256 x 4 | 767k | 1.52 | 18k | 77k | 126k | 138k |
//!
//! Self-play on two cores is bound by evaluations, so the default is the
//! smallest trunk with some depth: 128 wide, 3 blocks, layer norm on (it costs
//! 7 to 15% and keeps a deeper trunk trainable); about 65% of the one-core
//! matmul peak at batch 64. The shipped Shax networks (`checkpoints/shax/`)
//! are checkpoints of one `configs/shax.toml` run of 300,000 steps (1.24 hours
//! on the 2-core machine). In half-hour screens on one core (the project's
//! docs/EXPERIMENTS.md), 64 x 3 stalled far behind, and 192 x 3 ended level
//! with the default on half its games; in two-hour runs side by side 192 x 3
//! beat 128 x 3 head to head (+53 Elo over 400 games), so the training configs
//! (`configs/*.toml`) set `hidden = 192` while this default stays the smallest
//! measured trunk. `configs/gpu.toml` (256 x 6) is untried, and the tests train
//! only `configs/smoke.toml`'s 16 x 1.

use burn::config::Config;
use burn::module::{Module, Param};
use burn::nn::{LayerNorm, LayerNormConfig, Linear, LinearConfig};
use burn::tensor::activation::{log_softmax, relu, softmax};
use burn::tensor::{Device, Int, Tensor, TensorData};
use serde::{Deserialize, Serialize};
use shax_core::POLICY_SIZE;

use crate::encoder::{ENCODER_VERSION, FEATURES_V2, OLDEST_ENCODER_VERSION, features};

/// Largest accepted `hidden` and `value_hidden`.
pub const MAX_WIDTH: usize = 4096;
/// Largest accepted `blocks`.
pub const MAX_BLOCKS: usize = 64;

/// What the value head predicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueHead {
    /// One tanh output: the expected result, trained by squared error.
    Scalar,
    /// Three logits (win, draw, loss), trained by cross-entropy; the value is
    /// P(win) - P(loss).
    #[default]
    Wdl,
}

impl ValueHead {
    /// Outputs of the head's last layer.
    pub fn outputs(self) -> usize {
        match self {
            ValueHead::Scalar => 1,
            ValueHead::Wdl => 3,
        }
    }

    /// The name in a model file (`scalar`, `wdl`).
    pub fn name(self) -> &'static str {
        match self {
            ValueHead::Scalar => "scalar",
            ValueHead::Wdl => "wdl",
        }
    }
}

/// The network's shape. Build one with [`ModelConfig::new`] (the measured
/// default for this machine), the `with_*` setters, or [`ModelConfig::from_toml`].
///
/// # Examples
///
/// ```
/// use shax_nn::ModelConfig;
/// use shax_nn::burn::module::Module;
///
/// let config = ModelConfig::new().with_hidden(64).with_blocks(1);
/// assert!(config.validate().is_ok());
/// let net = config.init(&shax_nn::Backend::Cpu.device());
/// assert_eq!(net.num_params(), config.num_params());
/// ```
#[derive(Config, Debug, PartialEq, Eq)]
pub struct ModelConfig {
    /// Width of the residual trunk (features per position after the input layer).
    #[config(default = 128)]
    pub hidden: usize,
    /// Number of residual blocks (two linear layers each); 0 gives a one-layer trunk.
    #[config(default = 3)]
    pub blocks: usize,
    /// Width of the value head's hidden layer.
    #[config(default = 64)]
    pub value_hidden: usize,
    /// Layer normalisation after each linear layer of a block.
    #[config(default = true)]
    pub layer_norm: bool,
    /// What the value head predicts.
    #[config(default = "ValueHead::Wdl")]
    pub value_head: ValueHead,
    /// The position encoder's version (1: pieces, counters and rules; 2: with
    /// line threats and mobility planes), which sets the input width.
    #[config(default = 1)]
    pub encoder: u32,
    /// An auxiliary head predicting piece differences ([`MATERIAL_TARGETS`]),
    /// trained beside the value; search ignores it.
    #[config(default = false)]
    pub material_head: bool,
}

/// Outputs of the material head: the piece difference
/// [`MATERIAL_HORIZON`] actions ahead (or at the end, if sooner), and at the
/// game's end.
pub const MATERIAL_TARGETS: usize = 2;

/// How many actions ahead the material head's first output looks.
pub const MATERIAL_HORIZON: usize = 12;

/// A problem with a model configuration, naming the key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelConfigError {
    /// The TOML is malformed or has an unknown key or a value of the wrong type.
    #[error("model config: {message}")]
    Toml {
        /// The key the error is at, when the TOML parser could tell.
        key: Option<String>,
        /// The parser's message.
        message: String,
    },
    /// A value is out of range.
    #[error("model config: {key} = {value} is out of range ({min} to {max})")]
    OutOfRange {
        /// The key.
        key: &'static str,
        /// The value given.
        value: usize,
        /// Smallest accepted value.
        min: usize,
        /// Largest accepted value.
        max: usize,
    },
}

/// Every key optional; the rest comes from the default.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    hidden: Option<usize>,
    blocks: Option<usize>,
    value_hidden: Option<usize>,
    layer_norm: Option<bool>,
    value_head: Option<ValueHead>,
    encoder: Option<u32>,
    material_head: Option<bool>,
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig::new()
    }
}

/// The key on the line of byte `at` of a TOML text (`hiden = 3` -> `hiden`).
fn key_at(text: &str, at: usize) -> Option<String> {
    let start = text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next()?;
    let key = line.split('=').next()?.trim();
    (!key.is_empty() && !key.starts_with('[')).then(|| key.to_string())
}

impl ModelConfig {
    /// Reads a model file: any of the keys `hidden`, `blocks`, `value_hidden`,
    /// `layer_norm`, `value_head` (`"wdl"` or `"scalar"`), `encoder`,
    /// `material_head`; the others keep their defaults.
    ///
    /// # Errors
    ///
    /// [`ModelConfigError::Toml`] naming the key for malformed TOML, an unknown
    /// key or a wrong type; [`ModelConfigError::OutOfRange`] from [`ModelConfig::validate`].
    ///
    /// # Examples
    ///
    /// ```
    /// use shax_nn::ModelConfig;
    ///
    /// let c = ModelConfig::from_toml("hidden = 256\nblocks = 4\n").unwrap();
    /// assert_eq!((c.hidden, c.blocks, c.value_hidden), (256, 4, 64));
    /// assert_eq!(ModelConfig::from_toml("").unwrap(), ModelConfig::new());
    /// assert!(ModelConfig::from_toml("hiden = 3").unwrap_err().to_string().contains("hiden"));
    /// assert!(ModelConfig::from_toml("hidden = 0").unwrap_err().to_string().contains("hidden"));
    /// ```
    pub fn from_toml(text: &str) -> Result<ModelConfig, ModelConfigError> {
        let file: ModelFile = toml::from_str(text).map_err(|e| ModelConfigError::Toml {
            key: e.span().and_then(|s| key_at(text, s.start)),
            message: e.message().trim().to_string(),
        })?;
        let d = ModelConfig::new();
        let config = ModelConfig {
            hidden: file.hidden.unwrap_or(d.hidden),
            blocks: file.blocks.unwrap_or(d.blocks),
            value_hidden: file.value_hidden.unwrap_or(d.value_hidden),
            layer_norm: file.layer_norm.unwrap_or(d.layer_norm),
            value_head: file.value_head.unwrap_or(d.value_head),
            encoder: file.encoder.unwrap_or(d.encoder),
            material_head: file.material_head.unwrap_or(d.material_head),
        };
        config.validate()?;
        Ok(config)
    }

    /// The resolved configuration as TOML that [`ModelConfig::from_toml`] reads
    /// back to the same value: every key.
    pub fn to_toml(&self) -> String {
        format!(
            "hidden = {}\nblocks = {}\nvalue_hidden = {}\nlayer_norm = {}\nvalue_head = \"{}\"\nencoder = {}\nmaterial_head = {}\n",
            self.hidden,
            self.blocks,
            self.value_hidden,
            self.layer_norm,
            self.value_head.name(),
            self.encoder,
            self.material_head
        )
    }

    /// Checks every value's range.
    ///
    /// # Errors
    ///
    /// [`ModelConfigError::OutOfRange`] naming the first key out of range.
    pub fn validate(&self) -> Result<(), ModelConfigError> {
        let check = |key, value: usize, min: usize, max: usize| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(ModelConfigError::OutOfRange {
                    key,
                    value,
                    min,
                    max,
                })
            }
        };
        check("hidden", self.hidden, 1, MAX_WIDTH)?;
        check("blocks", self.blocks, 0, MAX_BLOCKS)?;
        check("value_hidden", self.value_hidden, 1, MAX_WIDTH)?;
        check(
            "encoder",
            self.encoder as usize,
            OLDEST_ENCODER_VERSION as usize,
            ENCODER_VERSION as usize,
        )
    }

    /// Whether this config asks for `from`'s network grown and nothing else
    /// changed: more residual blocks, the material head added, or both.
    /// [`PolicyValueNet::grown`] builds it.
    pub fn grows(&self, from: &ModelConfig) -> bool {
        self != from
            && self.blocks >= from.blocks
            && (self.material_head || !from.material_head)
            && ModelConfig {
                blocks: from.blocks,
                material_head: from.material_head,
                ..self.clone()
            } == *from
    }

    /// Inputs per position: the encoder version's width.
    pub fn features(&self) -> usize {
        features(self.encoder)
    }

    /// Number of parameters of the network this config builds.
    pub fn num_params(&self) -> usize {
        let (h, v) = (self.hidden, self.value_hidden);
        let linear = |i: usize, o: usize| i * o + o;
        let norm = if self.layer_norm { 2 * h } else { 0 };
        linear(self.features(), h)
            + self.blocks * 2 * (linear(h, h) + norm)
            + linear(h, POLICY_SIZE)
            + linear(h, v)
            + linear(v, self.value_head.outputs())
            + if self.material_head {
                linear(h, MATERIAL_TARGETS)
            } else {
                0
            }
    }

    /// Floating-point operations of one evaluation (a multiply-add counts two;
    /// matrix products only, the elementwise steps are a few percent more;
    /// search never runs the material head).
    pub fn flops_per_eval(&self) -> usize {
        let (h, v) = (self.hidden, self.value_hidden);
        let out = self.value_head.outputs();
        2 * (self.features() * h + self.blocks * 2 * h * h + h * POLICY_SIZE + h * v + v * out)
    }

    /// A freshly initialised network on `device` (plain or autodiff).
    ///
    /// # Panics
    ///
    /// Panics when the config is out of range; call [`ModelConfig::validate`]
    /// first on a config that did not come from [`ModelConfig::from_toml`].
    pub fn init(&self, device: &Device) -> PolicyValueNet {
        if let Err(e) = self.validate() {
            panic!("{e}");
        }
        let h = self.hidden;
        let blocks = (0..self.blocks)
            .map(|_| ResidualBlock::new(h, self.layer_norm, device))
            .collect();
        PolicyValueNet {
            input: LinearConfig::new(self.features(), h).init(device),
            blocks,
            policy: LinearConfig::new(h, POLICY_SIZE).init(device),
            value_hidden: LinearConfig::new(h, self.value_hidden).init(device),
            value_out: LinearConfig::new(self.value_hidden, self.value_head.outputs()).init(device),
            material: self
                .material_head
                .then(|| LinearConfig::new(h, MATERIAL_TARGETS).init(device)),
        }
    }
}

/// One residual block: two linear layers, each optionally layer-normalised.
#[derive(Module, Debug)]
pub struct ResidualBlock {
    pub(crate) fc1: Linear,
    pub(crate) norm1: Option<LayerNorm>,
    pub(crate) fc2: Linear,
    pub(crate) norm2: Option<LayerNorm>,
}

impl ResidualBlock {
    /// A freshly initialised block of width `h`.
    fn new(h: usize, layer_norm: bool, device: &Device) -> ResidualBlock {
        let norm = || layer_norm.then(|| LayerNormConfig::new(h).init(device));
        ResidualBlock {
            fc1: LinearConfig::new(h, h).init(device),
            norm1: norm(),
            fc2: LinearConfig::new(h, h).init(device),
            norm2: norm(),
        }
    }

    /// A block that passes its (non-negative) input through unchanged until
    /// it learns otherwise: its second layer's output is scaled to zero (the
    /// layer norm's scale, or without one the layer's weights and bias), so
    /// `ReLU(x + 0) = x`; gradients reach that scale from the first step.
    fn identity(h: usize, layer_norm: bool, device: &Device) -> ResidualBlock {
        let mut block = ResidualBlock::new(h, layer_norm, device);
        let zeros = || Param::from_tensor(Tensor::<1>::zeros([h], device));
        match block.norm2.as_mut() {
            Some(norm) => {
                norm.gamma = zeros();
                norm.beta = norm.beta.as_ref().map(|_| zeros());
            }
            None => {
                block.fc2.weight = Param::from_tensor(Tensor::<2>::zeros([h, h], device));
                block.fc2.bias = block.fc2.bias.as_ref().map(|_| zeros());
            }
        }
        block
    }

    fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let h = self.fc1.forward(x.clone()); // [B, H]
        let h = match &self.norm1 {
            Some(n) => n.forward(h), // [B, H]
            None => h,
        };
        let h = relu(h); // [B, H]
        let h = self.fc2.forward(h); // [B, H]
        let h = match &self.norm2 {
            Some(n) => n.forward(h), // [B, H]
            None => h,
        };
        relu(x + h) // [B, H]
    }
}

/// The policy/value network built by [`ModelConfig::init`].
///
/// A Burn [`Module`]: on a plain device for inference, on an autodiff device
/// (`Backend::Cpu.training_device()`) for training; [`Module::valid`] gives the
/// inference copy of a trained network.
#[derive(Module, Debug)]
pub struct PolicyValueNet {
    pub(crate) input: Linear,
    pub(crate) blocks: Vec<ResidualBlock>,
    pub(crate) policy: Linear,
    pub(crate) value_hidden: Linear,
    pub(crate) value_out: Linear,
    material: Option<Linear>,
}

/// What [`PolicyValueNet::forward_train`] returns: every head's raw output.
#[derive(Clone, Debug)]
pub struct HeadOutputs {
    /// Policy logits `[B, POLICY_SIZE]`.
    pub logits: Tensor<2>,
    /// The value head's raw output: `[B, 3]` win/draw/loss logits or `[B, 1]` before tanh.
    pub value: Tensor<2>,
    /// The material head's predictions in `[-1, 1]`, `[B, MATERIAL_TARGETS]`,
    /// when the network has one.
    pub material: Option<Tensor<2>>,
}

impl PolicyValueNet {
    /// What the value head predicts, read off its last layer's shape.
    pub fn value_head(&self) -> ValueHead {
        match self.value_out.weight.dims()[1] {
            1 => ValueHead::Scalar,
            _ => ValueHead::Wdl,
        }
    }

    /// The encoder version its inputs come from, read off its input layer's
    /// shape.
    pub fn encoder(&self) -> u32 {
        if self.input.weight.dims()[0] == FEATURES_V2 {
            2
        } else {
            1
        }
    }

    /// The same function in the shape `to` ([`ModelConfig::grows`] says
    /// when it fits): the blocks of `to` beyond this network's are appended
    /// after the trunk as identities, and a material head `to` asks for
    /// starts from random weights (search never reads it). Training takes it
    /// from there: a larger network that starts as strong as this one.
    ///
    /// # Panics
    ///
    /// Panics when `to` does not grow `from`, or this network is not `from`.
    pub fn grown(mut self, from: &ModelConfig, to: &ModelConfig, device: &Device) -> Self {
        assert!(to.grows(from), "{to:?} does not grow {from:?}");
        assert_eq!(
            (self.blocks.len(), self.material.is_some()),
            (from.blocks, from.material_head),
            "the network is not {from:?}"
        );
        for _ in from.blocks..to.blocks {
            self.blocks
                .push(ResidualBlock::identity(to.hidden, to.layer_norm, device));
        }
        if to.material_head && self.material.is_none() {
            self.material = Some(LinearConfig::new(to.hidden, MATERIAL_TARGETS).init(device));
        }
        self
    }

    /// Runs the network on encoded positions `[B, F]` (`F` the width of
    /// [`PolicyValueNet::encoder`]'s version); returns the raw
    /// policy logits `[B, POLICY_SIZE]` and the value head's raw output:
    /// `[B, 3]` win/draw/loss logits or `[B, 1]` before tanh.
    ///
    /// # Panics
    ///
    /// Panics when the input's second dimension is not `F`.
    pub fn forward_raw(&self, input: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let x = self.trunk(input); // [B, H]
        self.policy_value(x)
    }

    /// Runs every head on encoded positions `[B, F]`, the material head too
    /// when there is one: what training needs.
    ///
    /// # Panics
    ///
    /// Panics when the input's second dimension is not `F` (see
    /// [`PolicyValueNet::forward_raw`]).
    pub fn forward_train(&self, input: Tensor<2>) -> HeadOutputs {
        let x = self.trunk(input); // [B, H]
        let material = self.material.as_ref().map(|m| m.forward(x.clone()).tanh()); // [B, 2]
        let (logits, value) = self.policy_value(x);
        HeadOutputs {
            logits,
            value,
            material,
        }
    }

    /// Whether the network has the material head.
    pub fn has_material_head(&self) -> bool {
        self.material.is_some()
    }

    fn trunk(&self, input: Tensor<2>) -> Tensor<2> {
        let mut x = relu(self.input.forward(input)); // [B, F] -> [B, H]
        for block in &self.blocks {
            x = block.forward(x); // [B, H]
        }
        x
    }

    fn policy_value(&self, x: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let logits = self.policy.forward(x.clone()); // [B, POLICY_SIZE]
        let v = relu(self.value_hidden.forward(x)); // [B, V]
        (logits, self.value_out.forward(v)) // [B, 3] or [B, 1]
    }

    /// Runs the network on encoded positions `[B, F]`; returns the raw
    /// policy logits `[B, POLICY_SIZE]` and the values `[B, 1]` in `[-1, 1]`,
    /// for the player to act.
    ///
    /// # Panics
    ///
    /// Panics when the input's second dimension is not `F` (see
    /// [`PolicyValueNet::forward_raw`]).
    pub fn forward(&self, input: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let (logits, raw) = self.forward_raw(input);
        (logits, head_value(raw))
    }
}

/// The value in `[-1, 1]` of a value head's raw output (`[B, 3]` or `[B, 1]`):
/// P(win) - P(loss), or tanh. Returns `[B, 1]`.
pub fn head_value(raw: Tensor<2>) -> Tensor<2> {
    if raw.dims()[1] == 1 {
        return raw.tanh(); // [B, 1]
    }
    let p = softmax(raw, 1); // [B, 3]
    let win = p.clone().narrow(1, 0, 1); // [B, 1]
    let loss = p.narrow(1, 2, 1); // [B, 1]
    win - loss // [B, 1]
}

/// The two parts of [`alphazero_loss`], each `[1]`.
#[derive(Clone, Debug)]
pub struct Loss {
    /// Policy cross-entropy.
    pub policy: Tensor<1>,
    /// Value loss: cross-entropy (three-way head) or squared error (scalar head).
    pub value: Tensor<1>,
}

/// The AlphaZero loss of a batch, averaged over it: policy cross-entropy
/// against a target distribution, and the value head's loss against a
/// win/draw/loss target distribution: cross-entropy for the three-way head,
/// the squared error of `P(win) - P(loss)` for the scalar head.
///
/// Shapes: `logits` and `target_policy` `[B, POLICY_SIZE]` (each target row
/// sums to 1, zero on illegal actions), `value_raw` the head's raw output
/// ([`PolicyValueNet::forward_raw`]), `target_wdl` `[B, 3]` (rows sum to 1).
pub fn alphazero_loss(
    logits: Tensor<2>,
    value_raw: Tensor<2>,
    target_policy: Tensor<2>,
    target_wdl: Tensor<2>,
) -> Loss {
    let log_p = log_softmax(logits, 1); // [B, POLICY_SIZE]
    let policy = (target_policy * log_p).sum_dim(1).neg().mean(); // [B, 1] -> [1]
    let value = if value_raw.dims()[1] == 1 {
        let target = target_wdl.clone().narrow(1, 0, 1) - target_wdl.narrow(1, 2, 1); // [B, 1]
        let diff = value_raw.tanh() - target; // [B, 1]
        (diff.clone() * diff).mean() // [1]
    } else {
        let log_v = log_softmax(value_raw, 1); // [B, 3]
        (target_wdl * log_v).sum_dim(1).neg().mean() // [B, 1] -> [1]
    };
    Loss { policy, value }
}

/// The columns `support` (policy indices, ascending) of `t`, policy logits
/// or targets `[B, POLICY_SIZE]`: what [`alphazero_loss`] takes to span the
/// actions the rules can ever make legal
/// ([`shax_core::Rules::policy_support`]) and not all of them, as
/// [`crate::DirectTrainer::set_policy_support`] does. Returns `[B, K]`; `t`
/// itself when `support` is every index.
pub fn policy_columns(t: Tensor<2>, support: &[usize]) -> Tensor<2> {
    if support.len() == t.dims()[1] {
        return t;
    }
    let k = support.len();
    let idx: Vec<i64> = support.iter().map(|&i| i as i64).collect();
    let idx = Tensor::<1, Int>::from_data(TensorData::new(idx, [k]), &t.device()); // [K]
    t.select(1, idx) // [B, K]
}

/// The material head's loss: the squared error of its predictions
/// (`[B, MATERIAL_TARGETS]`, in `[-1, 1]`) against the targets of the same
/// shape, summed over the targets and averaged over the batch. Returns `[1]`.
pub fn material_loss(predicted: Tensor<2>, target: Tensor<2>) -> Tensor<1> {
    let diff = predicted - target; // [B, T]
    (diff.clone() * diff).sum_dim(1).mean() // [B, 1] -> [1]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Backend;

    #[test]
    fn toml_round_trips_and_names_bad_keys() {
        let c = ModelConfig::new()
            .with_hidden(48)
            .with_blocks(0)
            .with_value_hidden(5)
            .with_layer_norm(false);
        assert_eq!(ModelConfig::from_toml(&c.to_toml()).unwrap(), c);
        let err = ModelConfig::from_toml("blocks = 65").unwrap_err();
        assert_eq!(
            err,
            ModelConfigError::OutOfRange {
                key: "blocks",
                value: 65,
                min: 0,
                max: MAX_BLOCKS,
            }
        );
        assert!(err.to_string().contains("0 to 64"), "{err}");
        let err = ModelConfig::from_toml("layer_norm = 3").unwrap_err();
        assert!(
            matches!(&err, ModelConfigError::Toml { key: Some(k), .. } if k == "layer_norm"),
            "{err:?}"
        );
        let err = ModelConfig::from_toml("hidden = 8\nhiden = 3").unwrap_err();
        assert!(
            matches!(&err, ModelConfigError::Toml { key: Some(k), .. } if k == "hiden"),
            "{err:?}"
        );
        assert!(ModelConfig::from_toml("value_hidden = -1").is_err());
    }

    #[test]
    fn counted_params_match_the_built_network() {
        let device = Backend::Cpu.device();
        for c in [
            ModelConfig::new().with_hidden(8).with_blocks(0),
            ModelConfig::new()
                .with_hidden(8)
                .with_blocks(2)
                .with_layer_norm(false),
            ModelConfig::new()
                .with_hidden(12)
                .with_blocks(1)
                .with_value_hidden(3),
        ] {
            assert_eq!(c.init(&device).num_params(), c.num_params(), "{c:?}");
        }
    }

    /// The three-way head's value is P(win) - P(loss); its loss is the
    /// cross-entropy against the target; the scalar head's is the squared
    /// error of tanh against P(win) - P(loss) of the target.
    #[test]
    fn value_heads_and_their_losses() {
        let device = Backend::Cpu.device();
        let t = |v: Vec<f32>, shape: [usize; 2]| {
            Tensor::<2>::from_data(burn::tensor::TensorData::new(v, shape), &device)
        };
        let read = |x: Tensor<1>| x.try_into_vec_as::<f32>().unwrap()[0];
        let raw = t(vec![2.0f32.ln(), 0.0, 0.0], [1, 3]); // softmax: 1/2, 1/4, 1/4
        let v = head_value(raw.clone()).try_into_vec_as::<f32>().unwrap();
        assert!((v[0] - 0.25).abs() < 1e-6, "{v:?}");
        let logits = t(vec![0.0; POLICY_SIZE], [1, POLICY_SIZE]);
        let mut onehot = vec![0.0; POLICY_SIZE];
        onehot[0] = 1.0;
        let policy = t(onehot, [1, POLICY_SIZE]);
        let wdl = t(vec![0.0, 1.0, 0.0], [1, 3]); // a draw
        let loss = alphazero_loss(logits.clone(), raw, policy.clone(), wdl.clone());
        assert!((read(loss.value) - 4.0f32.ln()).abs() < 1e-5);
        assert!((read(loss.policy) - (POLICY_SIZE as f32).ln()).abs() < 1e-4);
        let scalar = t(vec![0.5], [1, 1]);
        let v = head_value(scalar.clone()).try_into_vec_as::<f32>().unwrap();
        assert!((v[0] - 0.5f32.tanh()).abs() < 1e-6);
        let half_win = t(vec![0.75, 0.0, 0.25], [1, 3]); // expected result 0.5
        let loss = alphazero_loss(logits, scalar, policy, half_win);
        let err = 0.5f32.tanh() - 0.5;
        assert!((read(loss.value) - err * err).abs() < 1e-6);
        for head in [ValueHead::Scalar, ValueHead::Wdl] {
            let net = ModelConfig::new()
                .with_hidden(8)
                .with_blocks(0)
                .with_value_head(head)
                .init(&device);
            assert_eq!(net.value_head(), head);
            let c = ModelConfig::new().with_value_head(head);
            assert_eq!(ModelConfig::from_toml(&c.to_toml()).unwrap(), c);
        }
    }

    /// The material head: in training's outputs only, `[B, 2]` in `[-1, 1]`,
    /// the other heads as `forward_raw`'s; its loss sums the squared errors
    /// over the targets and averages over the batch.
    #[test]
    fn the_material_head_trains_beside_the_others() {
        let device = Backend::Cpu.device();
        let config = ModelConfig::new()
            .with_hidden(8)
            .with_blocks(1)
            .with_material_head(true);
        assert_eq!(ModelConfig::from_toml(&config.to_toml()).unwrap(), config);
        let x = Tensor::<2>::ones([5, crate::FEATURES], &device) * 3.0; // [5, FEATURES]
        let read = |t: Tensor<2>| t.try_into_vec_as::<f32>().unwrap();
        for (net, head) in [
            (config.init(&device), true),
            (ModelConfig::new().init(&device), false),
        ] {
            let out = net.forward_train(x.clone());
            let (logits, value) = net.forward_raw(x.clone());
            assert_eq!(read(out.logits), read(logits));
            assert_eq!(read(out.value), read(value));
            assert_eq!(out.material.is_some(), head);
            if let Some(m) = out.material {
                assert_eq!(m.dims(), [5, MATERIAL_TARGETS]);
                assert!(read(m).iter().all(|v| (-1.0..=1.0).contains(v)));
            }
        }
        let t =
            |v: Vec<f32>| Tensor::<2>::from_data(burn::tensor::TensorData::new(v, [2, 2]), &device);
        let loss = material_loss(t(vec![0.5, 0.0, -0.5, 1.0]), t(vec![0.0, 0.0, 0.5, 0.0]));
        let loss = loss.try_into_vec_as::<f32>().unwrap()[0];
        // Rows: 0.25 + 0, 1 + 1; the mean of 0.25 and 2.
        assert!((loss - 1.125).abs() < 1e-6, "{loss}");
    }

    #[test]
    fn forward_shapes_and_value_range() {
        let device = Backend::Cpu.device();
        let net = ModelConfig::new()
            .with_hidden(8)
            .with_blocks(1)
            .init(&device);
        let x = Tensor::<2>::ones([5, crate::FEATURES], &device) * 3.0; // [5, FEATURES]
        let (logits, value) = net.forward(x);
        assert_eq!(logits.dims(), [5, POLICY_SIZE]);
        assert_eq!(value.dims(), [5, 1]);
        assert_eq!(net.encoder(), 1);
        let v2 = ModelConfig::new()
            .with_hidden(8)
            .with_blocks(1)
            .with_encoder(2);
        let net2 = v2.init(&device);
        assert_eq!(net2.encoder(), 2);
        assert_eq!(net2.num_params(), v2.num_params());
        let (logits, _) = net2.forward(Tensor::<2>::ones([5, crate::FEATURES_V2], &device));
        assert_eq!(logits.dims(), [5, POLICY_SIZE]);
        let v = value.try_into_vec_as::<f32>().unwrap();
        assert!(v.iter().all(|v| (-1.0..=1.0).contains(v)));
    }

    /// A grown network computes what it was built from, to rounding, with
    /// and without layer norm; only more blocks of the same shape, or the
    /// material head added, grow a network.
    #[test]
    fn growing_keeps_the_function() {
        let device = Backend::Cpu.device();
        let x = Tensor::<2>::random(
            [6, crate::FEATURES],
            burn::tensor::Distribution::Uniform(0.0, 2.0),
            &device,
        ); // [6, FEATURES]
        let read = |t: Tensor<2>| t.try_into_vec_as::<f32>().unwrap();
        for layer_norm in [true, false] {
            let from = ModelConfig::new()
                .with_hidden(16)
                .with_blocks(1)
                .with_layer_norm(layer_norm);
            let to = from.clone().with_blocks(3);
            let headed = from.clone().with_material_head(true);
            let both = to.clone().with_material_head(true);
            for to in [to, headed, both] {
                assert!(to.grows(&from));
                let net = from.init(&device);
                let (logits, value) = net.forward(x.clone());
                let grown = net.grown(&from, &to, &device);
                assert_eq!(grown.num_params(), to.num_params());
                assert_eq!(grown.has_material_head(), to.material_head);
                let (grown_logits, grown_value) = grown.forward(x.clone());
                for (a, b) in [(logits, grown_logits), (value, grown_value)] {
                    let (a, b) = (read(a), read(b));
                    assert!(a.iter().zip(&b).all(|(a, b)| (a - b).abs() < 1e-5));
                }
            }
        }
        let from = ModelConfig::new().with_hidden(16).with_blocks(2);
        assert!(!from.grows(&from));
        assert!(!from.clone().with_blocks(1).grows(&from));
        assert!(!from.clone().with_blocks(3).with_hidden(8).grows(&from));
        assert!(!from.clone().with_blocks(3).with_encoder(2).grows(&from));
        let headed = from.clone().with_material_head(true);
        assert!(!from.grows(&headed), "a head is never dropped");
        assert!(!headed.clone().with_blocks(1).grows(&headed));
    }
}

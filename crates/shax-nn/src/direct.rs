//! The network's forward pass for play, on the CPU without Burn: the same
//! function as [`PolicyValueNet::forward`], computed the way search needs it.
//!
//! Search reads the logits of the legal actions only, a few dozen of the
//! policy head's [`POLICY_SIZE`]; and the encoder's inputs are mostly zeros
//! (one-hot planes). So the input layer adds the weight rows of the non-zero
//! inputs, the policy head takes one dot product per legal action (the
//! other logits are `-inf`), and only the trunk's square layers and the value
//! head run as matrix products (the `gemm` crate, whose kernels Burn's CPU
//! backend uses too, picked at run time for the CPU). Without Burn's tensors
//! nothing is allocated per call either. This is what
//! [`crate::NetWeights::evaluator`] plays with (the training step has its
//! own forward pass, [`crate::DirectTrainer`]), and the tests hold it to the
//! Burn forward pass.

use burn::module::Param;
use burn::nn::{LayerNorm, Linear};
use burn::tensor::Tensor;
use shax_core::{POLICY_SIZE, Position};
use shax_search::check_buffers;

use crate::encoder::encode_batch;
use crate::matmul::{affine, sparse_affine};
use crate::model::{PolicyValueNet, ResidualBlock, ValueHead};

/// Burn's layer norm epsilon, which the model keeps at its default.
pub(crate) const LAYER_NORM_EPSILON: f32 = 1e-5;

/// A linear layer: `weight` row-major `[d_in, d_out]` (Burn's layout).
#[derive(Clone, Debug)]
struct Dense {
    weight: Vec<f32>,
    bias: Vec<f32>,
    d_in: usize,
    d_out: usize,
}

impl Dense {
    fn from_linear(linear: &Linear) -> Dense {
        let [d_in, d_out] = linear.weight.dims();
        let bias = match &linear.bias {
            Some(b) => values(b),
            None => vec![0.0; d_out],
        };
        Dense {
            weight: values(&linear.weight),
            bias,
            d_in,
            d_out,
        }
    }

    /// `out = x W + b` for `n` rows of `x` (`[n, d_in]`), `out` `[n, d_out]`.
    fn forward(&self, x: &[f32], n: usize, out: &mut Vec<f32>) {
        affine(x, n, &self.weight, &self.bias, out);
    }
}

/// A layer norm's scale and shift.
#[derive(Clone, Debug)]
struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

impl Norm {
    fn from_layer_norm(norm: &LayerNorm) -> Norm {
        let gamma = values(&norm.gamma);
        let beta = match &norm.beta {
            Some(b) => values(b),
            None => vec![0.0; gamma.len()],
        };
        Norm { gamma, beta }
    }

    /// Normalises one row in place.
    #[inline(always)]
    fn apply(&self, row: &mut [f32]) {
        let n = row.len() as f32;
        let mean = lane_sum(row, |x| x) / n;
        let var = lane_sum(row, |x| (x - mean) * (x - mean)) / n;
        let scale = 1.0 / (var + LAYER_NORM_EPSILON).sqrt();
        for ((x, g), b) in row.iter_mut().zip(&self.gamma).zip(&self.beta) {
            *x = (*x - mean) * scale * g + b;
        }
    }
}

#[derive(Clone, Debug)]
struct Block {
    fc1: Dense,
    norm1: Option<Norm>,
    fc2: Dense,
    norm2: Option<Norm>,
}

/// The inference network, its weights copied out of a [`PolicyValueNet`].
#[derive(Clone, Debug)]
pub struct DirectNet {
    encoder: u32,
    input: Dense,
    blocks: Vec<Block>,
    /// The policy head's weights transposed, `[POLICY_SIZE, hidden]`: an
    /// action's weights are one contiguous row.
    policy_rows: Vec<f32>,
    policy_bias: Vec<f32>,
    value_hidden: Dense,
    value_out: Dense,
    value_head: ValueHead,
    scratch: Scratch,
}

/// Buffers reused between calls.
#[derive(Clone, Debug, Default)]
struct Scratch {
    input: Vec<f32>,
    x: Vec<f32>,
    h: Vec<f32>,
    t: Vec<f32>,
    v: Vec<f32>,
}

impl DirectNet {
    /// Copies the weights of `net` (on any device).
    pub fn new(net: &PolicyValueNet) -> DirectNet {
        let policy = Dense::from_linear(&net.policy);
        let mut policy_rows = vec![0.0; policy.weight.len()];
        for i in 0..policy.d_in {
            for a in 0..policy.d_out {
                policy_rows[a * policy.d_in + i] = policy.weight[i * policy.d_out + a];
            }
        }
        DirectNet {
            encoder: net.encoder(),
            input: Dense::from_linear(&net.input),
            blocks: net.blocks.iter().map(Block::from_residual).collect(),
            policy_rows,
            policy_bias: policy.bias,
            value_hidden: Dense::from_linear(&net.value_hidden),
            value_out: Dense::from_linear(&net.value_out),
            value_head: net.value_head(),
            scratch: Scratch::default(),
        }
    }

    /// For each of `positions`: the legal actions' logits in its row of
    /// `logits` (`POLICY_SIZE` wide; every other entry `-inf`), the value
    /// for the player to act in `[-1, 1]`, and into `draws`, if given, the
    /// chance of a draw (0 from a scalar value head).
    ///
    /// # Panics
    ///
    /// Panics when `logits`, `values` or `draws` do not fit `positions`.
    pub fn evaluate(
        &mut self,
        positions: &[Position],
        logits: &mut [f32],
        values: &mut [f32],
        draws: Option<&mut [f32]>,
    ) {
        check_buffers(positions.len(), logits, values, draws.as_deref());
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA, checked just above.
            unsafe { self.evaluate_avx2(positions, logits, values) };
            return self.write_draws(draws);
        }
        self.evaluate_inlined(positions, logits, values);
        self.write_draws(draws);
    }

    /// The last batch's chances of a draw into `draws`, if wanted.
    fn write_draws(&self, draws: Option<&mut [f32]>) {
        let Some(draws) = draws else { return };
        let raw = self.scratch.v.chunks_exact(self.value_out.d_out);
        for (out, raw) in draws.iter_mut().zip(raw) {
            *out = wdl(self.value_head, raw).1;
        }
    }

    /// [`DirectNet::evaluate`] with the loops outside the matrix products
    /// (sparse inputs, the policy's dot products, layer norms) compiled for
    /// AVX2: eight lanes where the build's baseline (x86-64-v2) has four.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn evaluate_avx2(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        self.evaluate_inlined(positions, logits, values);
    }

    #[inline(always)]
    fn evaluate_inlined(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        let n = positions.len();
        let mut s = std::mem::take(&mut self.scratch);
        encode_batch(positions, self.encoder, &mut s.input);
        self.input_layer(&s.input, n, &mut s.x);
        for block in &self.blocks {
            block.forward(&mut s.x, n, &mut s.h, &mut s.t);
        }
        let hidden = self.input.d_out;
        for ((pos, x), row) in positions
            .iter()
            .zip(s.x.chunks_exact(hidden))
            .zip(logits.chunks_exact_mut(POLICY_SIZE))
        {
            self.policy(pos, x, row);
        }
        self.value_hidden.forward(&s.x, n, &mut s.h);
        relu(&mut s.h);
        self.value_out.forward(&s.h, n, &mut s.v);
        for (out, raw) in values
            .iter_mut()
            .zip(s.v.chunks_exact(self.value_out.d_out))
        {
            *out = self.value(raw).clamp(-1.0, 1.0);
        }
        self.scratch = s;
    }

    /// `ReLU(input W + b)`, adding only the rows of the non-zero inputs.
    #[inline(always)]
    fn input_layer(&self, input: &[f32], n: usize, out: &mut Vec<f32>) {
        let rows = &input[..n * self.input.d_in];
        sparse_affine(rows, n, &self.input.weight, &self.input.bias, out);
        relu(out);
    }

    /// The legal actions' logits of one position from its trunk output `x`.
    #[inline(always)]
    fn policy(&self, pos: &Position, x: &[f32], row: &mut [f32]) {
        row.fill(f32::NEG_INFINITY);
        let h = x.len();
        for a in pos.legal_actions().iter() {
            let i = a.policy_index();
            row[i] = self.policy_bias[i] + dot(x, &self.policy_rows[i * h..(i + 1) * h]);
        }
    }

    /// The value of the value head's raw output: P(win) - P(loss), or tanh.
    #[inline(always)]
    fn value(&self, raw: &[f32]) -> f32 {
        wdl(self.value_head, raw).0
    }
}

/// A value head's raw output for one position as its value, P(win) -
/// P(loss) or tanh, and its chance of a draw (0 from a scalar head).
#[inline(always)]
pub(crate) fn wdl(head: ValueHead, raw: &[f32]) -> (f32, f32) {
    match head {
        ValueHead::Scalar => (raw[0].tanh(), 0.0),
        ValueHead::Wdl => {
            let m = raw[0].max(raw[1]).max(raw[2]);
            let [win, draw, loss] = [0, 1, 2].map(|k| (raw[k] - m).exp());
            let sum = win + draw + loss;
            ((win - loss) / sum, draw / sum)
        }
    }
}

impl Block {
    fn from_residual(block: &ResidualBlock) -> Block {
        Block {
            fc1: Dense::from_linear(&block.fc1),
            norm1: block.norm1.as_ref().map(Norm::from_layer_norm),
            fc2: Dense::from_linear(&block.fc2),
            norm2: block.norm2.as_ref().map(Norm::from_layer_norm),
        }
    }

    /// `x = ReLU(x + LN(ReLU(LN(x W1 + b1)) W2 + b2))`, `h` and `t` scratch.
    #[inline(always)]
    fn forward(&self, x: &mut [f32], n: usize, h: &mut Vec<f32>, t: &mut Vec<f32>) {
        let width = self.fc1.d_out;
        self.fc1.forward(x, n, h);
        if let Some(norm) = &self.norm1 {
            normalise_rows(norm, h, width);
        }
        relu(h);
        self.fc2.forward(h, n, t);
        if let Some(norm) = &self.norm2 {
            normalise_rows(norm, t, width);
        }
        for (x, t) in x.iter_mut().zip(t.iter()) {
            *x = (*x + t).max(0.0);
        }
    }
}

/// Each `width`-long row of `x` through `norm`. A plain loop: a
/// `for_each` would be a separate function the AVX2 copy does not inline.
#[inline(always)]
fn normalise_rows(norm: &Norm, x: &mut [f32], width: usize) {
    for row in x.chunks_exact_mut(width) {
        norm.apply(row);
    }
}

/// `max(x, 0)` in place.
#[inline(always)]
pub(crate) fn relu(x: &mut [f32]) {
    for v in x {
        *v = v.max(0.0);
    }
}

/// Independent partial sums of a reduction: the compiler vectorises lanes,
/// not one running sum (floating-point addition does not reassociate).
const LANES: usize = 16;

/// A dot product in [`LANES`] lanes.
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; LANES];
    let (ac, bc) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = ac
        .remainder()
        .iter()
        .zip(bc.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ac.zip(bc) {
        for k in 0..LANES {
            lanes[k] += x[k] * y[k];
        }
    }
    sum(&lanes) + tail
}

/// The sum of `f` over `x`, in lanes as [`dot`].
#[inline(always)]
fn lane_sum(x: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    let mut lanes = [0.0f32; LANES];
    let chunks = x.chunks_exact(LANES);
    let tail: f32 = chunks.remainder().iter().map(|&v| f(v)).sum();
    for c in chunks {
        for k in 0..LANES {
            lanes[k] += f(c[k]);
        }
    }
    sum(&lanes) + tail
}

fn sum(x: &[f32]) -> f32 {
    x.iter().sum()
}

pub(crate) fn values<const D: usize>(param: &Param<Tensor<D>>) -> Vec<f32> {
    param
        .val()
        .try_into_vec_as::<f32>()
        .expect("reading a parameter from the CPU")
}

#[cfg(test)]
pub(crate) mod tests {
    use burn::tensor::{Device, Distribution};
    use shax_search::Evaluator;

    use super::*;
    use crate::backend::Backend;
    use crate::bench::bench_positions;
    use crate::evaluator::NetEvaluator;
    use crate::model::ModelConfig;

    /// A network of `config` on `device` whose layer norms' scales and
    /// shifts are random too (they start at one and zero).
    pub(crate) fn random_net(config: &ModelConfig, device: &Device) -> PolicyValueNet {
        let mut net = config.init(device);
        let random = |h: usize| {
            Param::from_tensor(Tensor::<1>::random(
                [h],
                Distribution::Normal(0.5, 0.5),
                device,
            ))
        };
        for block in &mut net.blocks {
            for norm in [block.norm1.as_mut(), block.norm2.as_mut()]
                .into_iter()
                .flatten()
            {
                norm.gamma = random(config.hidden);
                norm.beta = norm.beta.as_ref().map(|_| random(config.hidden));
            }
        }
        net
    }

    /// Burn's forward pass through its evaluator: every logit, the values
    /// and the chances of a draw.
    fn burn_forward(
        net: &PolicyValueNet,
        positions: &[Position],
    ) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let mut eval = NetEvaluator::new(net.clone(), Backend::Cpu.device());
        let mut logits = vec![f32::NAN; positions.len() * POLICY_SIZE];
        let mut values = vec![f32::NAN; positions.len()];
        let mut draws = vec![f32::NAN; positions.len()];
        eval.evaluate_wdl(positions, &mut logits, &mut values, &mut draws);
        (logits, values, draws)
    }

    #[test]
    fn direct_pass_is_the_burn_forward_pass_on_legal_actions() {
        // Up to 60 plies of every preset: placing, removing and moving.
        let positions = bench_positions(240);
        let configs = [
            ModelConfig::new().with_hidden(48).with_blocks(2),
            ModelConfig::new()
                .with_hidden(20)
                .with_blocks(1)
                .with_layer_norm(false)
                .with_value_head(ValueHead::Scalar),
            ModelConfig::new()
                .with_hidden(32)
                .with_blocks(0)
                .with_encoder(2),
        ];
        for config in configs {
            let net = random_net(&config, &Backend::Cpu.device());
            let (want_logits, want_values, want_draws) = burn_forward(&net, &positions);
            let mut direct = DirectNet::new(&net);
            // In two batches, the second smaller (the scratch is reused), by
            // the dispatching entry and by the portable loops themselves.
            let ranges = [0..positions.len(), 3..10];
            for (range, portable) in ranges.iter().flat_map(|r| [(r, false), (r, true)]) {
                let batch = &positions[range.clone()];
                let mut logits = vec![f32::NAN; batch.len() * POLICY_SIZE];
                let mut values = vec![f32::NAN; batch.len()];
                let mut draws = vec![f32::NAN; batch.len()];
                if portable {
                    direct.evaluate_inlined(batch, &mut logits, &mut values);
                    direct.write_draws(Some(&mut draws));
                } else {
                    direct.evaluate(batch, &mut logits, &mut values, Some(&mut draws));
                }
                for (i, pos) in batch.iter().enumerate() {
                    let k = range.start + i;
                    let (v, want) = (values[i], want_values[k]);
                    assert!((v - want).abs() < 1e-4, "{config:?} value {v} want {want}");
                    let (d, want) = (draws[i], want_draws[k]);
                    assert!((d - want).abs() < 1e-4, "{config:?} draw {d} want {want}");
                    if config.value_head == ValueHead::Scalar {
                        assert_eq!(d, 0.0, "a scalar head says nothing of draws");
                    } else {
                        assert!(d > 0.0 && d < 1.0 && v.abs() <= 1.0 - d + 1e-4);
                    }
                    let legal = pos.legal_actions();
                    for a in 0..POLICY_SIZE {
                        let got = logits[i * POLICY_SIZE + a];
                        if legal.iter().any(|l| l.policy_index() == a) {
                            let want = want_logits[k * POLICY_SIZE + a];
                            assert!(
                                (got - want).abs() < 1e-3,
                                "{config:?} logit {got} want {want}"
                            );
                        } else {
                            assert_eq!(got, f32::NEG_INFINITY);
                        }
                    }
                }
            }
        }
    }
}

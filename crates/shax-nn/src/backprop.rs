//! The network's training step on the CPU without Burn: the loss of
//! [`crate::alphazero_loss`], its gradients by hand (backpropagation through
//! the residual MLP of [`PolicyValueNet`]) and AdamW as Burn's
//! `AdamWConfig::new()` does it, on one flat vector of parameters.
//!
//! Training is most of a run's CPU time (about 70% on one core at 16 samples
//! a position), and Burn's autodiff spends a good part of each step outside
//! the matrix products: a new tensor for every operation, each element-wise
//! operation a pass of its own. Here the matrix products are the `gemm`
//! crate's (the kernels Burn's CPU backend uses), every buffer lives from one
//! step to the next, the element-wise work is fused into a few loops, and the
//! input layer works on the encoder's non-zero inputs only (one-hot planes:
//! most of each row is zeros). With a policy support
//! ([`DirectTrainer::set_policy_support`]: the actions the rules can ever make
//! legal) the policy head computes those columns only.
//! The tests hold the loss, the gradients and AdamW's step to Burn's.
//!
//! It trains networks with the win/draw/loss value head and no material head
//! (what every training config makes); [`DirectTrainer::new`] refuses others.
//! The trainer takes this step on the CPU with Adam (its state in checkpoints
//! is [`DirectTrainer::state_bytes`]); `shax bench train --direct` times it.

use std::ops::Range;

use burn::module::Param;
use burn::nn::{LayerNorm, Linear};
use burn::tensor::{Device, Tensor, TensorData};
use shax_core::POLICY_SIZE;

use crate::direct::{LAYER_NORM_EPSILON, relu, values};
use crate::matmul::{Out, View, affine, matmul, sparse_affine, sparse_weight_gradient};
use crate::model::{PolicyValueNet, ResidualBlock, ValueHead};

/// `AdamWConfig::new()`'s constants.
const BETA_1: f32 = 0.9;
const BETA_2: f32 = 0.999;
const ADAM_EPSILON: f32 = 1e-5;
/// The first bytes of [`DirectTrainer::state_bytes`] (format version 1).
const STATE_MAGIC: &[u8; 8] = b"SHAXADW1";

/// A network [`DirectTrainer`] cannot train, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the direct trainer cannot train this network: {0}")]
pub struct Unsupported(&'static str);

/// Where a linear layer's weight (`[d_in, d_out]`, row-major, Burn's layout)
/// and bias lie in the flat parameter vector.
#[derive(Clone, Copy, Debug)]
struct LinearAt {
    w: usize,
    b: usize,
    d_in: usize,
    d_out: usize,
}

/// Where a layer norm's scale and shift lie.
#[derive(Clone, Copy, Debug)]
struct NormAt {
    g: usize,
    b: usize,
}

#[derive(Clone, Copy, Debug)]
struct BlockAt {
    fc1: LinearAt,
    norm1: Option<NormAt>,
    fc2: LinearAt,
    norm2: Option<NormAt>,
}

/// The flat layout of a network's parameters.
#[derive(Clone, Debug)]
struct Layout {
    input: LinearAt,
    blocks: Vec<BlockAt>,
    policy: LinearAt,
    value_hidden: LinearAt,
    value_out: LinearAt,
    /// Every parameter tensor's range, and whether it is a weight matrix
    /// (what weight decay applies to).
    tensors: Vec<(Range<usize>, bool)>,
}

/// Where [`read`] takes each parameter's numbers from: its value, or (in
/// the tests) its gradient.
trait Source {
    fn numbers<const D: usize>(&mut self, param: &Param<Tensor<D>>) -> Vec<f32>;
}

/// The parameters' values.
struct Values;

impl Source for Values {
    fn numbers<const D: usize>(&mut self, param: &Param<Tensor<D>>) -> Vec<f32> {
        values(param)
    }
}

/// Reads a network's parameters into the flat vector, in the layout's order.
struct Reader<'a, S> {
    source: &'a mut S,
    numbers: Vec<f32>,
    tensors: Vec<(Range<usize>, bool)>,
}

impl<S: Source> Reader<'_, S> {
    fn push<const D: usize>(&mut self, param: &Param<Tensor<D>>) -> usize {
        let start = self.numbers.len();
        self.numbers.extend(self.source.numbers(param));
        self.tensors.push((start..self.numbers.len(), D == 2));
        start
    }

    /// Pushes a parameter and the one that must come with it (a bias, a
    /// shift), or refuses the layer that lacks the second.
    fn pair<const A: usize, const B: usize>(
        &mut self,
        first: &Param<Tensor<A>>,
        second: Option<&Param<Tensor<B>>>,
        lacking: &'static str,
    ) -> Result<(usize, usize), Unsupported> {
        let second = second.ok_or(Unsupported(lacking))?;
        Ok((self.push(first), self.push(second)))
    }

    fn linear(&mut self, l: &Linear) -> Result<LinearAt, Unsupported> {
        let [d_in, d_out] = l.weight.dims();
        let (w, b) = self.pair(&l.weight, l.bias.as_ref(), "a linear layer without a bias")?;
        Ok(LinearAt { w, b, d_in, d_out })
    }

    fn norm(&mut self, n: Option<&LayerNorm>) -> Result<Option<NormAt>, Unsupported> {
        let Some(n) = n else { return Ok(None) };
        let (g, b) = self.pair(&n.gamma, n.beta.as_ref(), "a layer norm without a shift")?;
        Ok(Some(NormAt { g, b }))
    }

    fn block(&mut self, block: &ResidualBlock) -> Result<BlockAt, Unsupported> {
        Ok(BlockAt {
            fc1: self.linear(&block.fc1)?,
            norm1: self.norm(block.norm1.as_ref())?,
            fc2: self.linear(&block.fc2)?,
            norm2: self.norm(block.norm2.as_ref())?,
        })
    }
}

/// The numbers `source` gives for each parameter, and where each lies.
fn read(net: &PolicyValueNet, source: &mut impl Source) -> Result<(Vec<f32>, Layout), Unsupported> {
    if net.value_head() != ValueHead::Wdl {
        return Err(Unsupported("a scalar value head"));
    }
    if net.has_material_head() {
        return Err(Unsupported("a material head"));
    }
    let mut r = Reader {
        source,
        numbers: Vec::new(),
        tensors: Vec::new(),
    };
    let input = r.linear(&net.input)?;
    let blocks = net
        .blocks
        .iter()
        .map(|b| r.block(b))
        .collect::<Result<_, _>>()?;
    let layout = Layout {
        input,
        blocks,
        policy: r.linear(&net.policy)?,
        value_hidden: r.linear(&net.value_hidden)?,
        value_out: r.linear(&net.value_out)?,
        tensors: r.tensors,
    };
    Ok((r.numbers, layout))
}

/// What a residual block keeps from the forward pass for the backward one.
#[derive(Clone, Debug, Default)]
struct BlockActs {
    /// The first layer norm's normalised rows (before scale and shift) and
    /// the reciprocal of each row's deviation.
    xhat1: Vec<f32>,
    rstd1: Vec<f32>,
    /// `ReLU(LN(x W1 + b1))`, the second layer's input.
    r1: Vec<f32>,
    xhat2: Vec<f32>,
    rstd2: Vec<f32>,
}

/// The forward pass's activations and the backward pass's scratch.
#[derive(Clone, Debug, Default)]
struct Acts {
    /// `trunk[0]` the input layer's output; `trunk[k + 1]` block `k`'s.
    trunk: Vec<Vec<f32>>,
    blocks: Vec<BlockActs>,
    /// The policy logits, then their gradient.
    logits: Vec<f32>,
    /// The value head's hidden layer after ReLU.
    value_h: Vec<f32>,
    /// The win/draw/loss logits, then their gradient.
    value_raw: Vec<f32>,
    /// Gradients flowing back through the trunk, and scratch of its width.
    dx: Vec<f32>,
    dh: Vec<f32>,
    dv: Vec<f32>,
    /// The policy head's columns of the support, and the policy targets'.
    head: PolicyHead,
    policy_target: Vec<f32>,
}

/// The policy head's weight and bias restricted to the support's columns
/// (`[hidden, K]` then `[K]`, one flat vector a [`LinearAt`] reads), and
/// their gradients.
#[derive(Clone, Debug, Default)]
struct PolicyHead {
    params: Vec<f32>,
    grads: Vec<f32>,
}

impl PolicyHead {
    /// Where the restricted weight and bias lie in `params`.
    fn at(hidden: usize, k: usize) -> LinearAt {
        LinearAt {
            w: 0,
            b: hidden * k,
            d_in: hidden,
            d_out: k,
        }
    }

    /// Copies the support's columns of the full head `full` out of `p`.
    fn gather(&mut self, full: LinearAt, p: &[f32], support: &[usize]) {
        let weight = &p[full.w..full.w + full.d_in * full.d_out];
        gather_columns(weight, full.d_out, support, &mut self.params);
        let bias = &p[full.b..full.b + full.d_out];
        self.params.extend(support.iter().map(|&c| bias[c]));
        // Sized only: the backward pass overwrites every gradient.
        self.grads.resize(self.params.len(), 0.0);
    }

    /// Writes the restricted gradients into the full head's in `g`: zero in
    /// the columns outside the support.
    fn scatter(&self, full: LinearAt, g: &mut [f32], support: &[usize]) {
        let put = |row: &mut [f32], grad: &[f32]| {
            row.fill(0.0);
            for (&c, &v) in support.iter().zip(grad) {
                row[c] = v;
            }
        };
        let k = support.len();
        let weight = &mut g[full.w..full.w + full.d_in * full.d_out];
        for (row, grad) in weight
            .chunks_exact_mut(full.d_out)
            .zip(self.grads.chunks_exact(k))
        {
            put(row, grad);
        }
        put(
            &mut g[full.b..full.b + full.d_out],
            &self.grads[full.d_in * k..],
        );
    }
}

/// The two parts of the loss of a step, each averaged over the batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DirectLoss {
    /// Policy cross-entropy.
    pub policy: f32,
    /// The win/draw/loss cross-entropy.
    pub value: f32,
}

/// A network under training and its AdamW state, on flat vectors.
#[derive(Clone, Debug)]
pub struct DirectTrainer {
    layout: Layout,
    params: Vec<f32>,
    grads: Vec<f32>,
    moment_1: Vec<f32>,
    moment_2: Vec<f32>,
    /// AdamW steps taken.
    time: i32,
    acts: Acts,
    /// The last batch's values, P(win) - P(loss) of each row.
    predictions: Vec<f32>,
    /// The policy indices the policy's softmax spans, ascending.
    policy_support: Vec<usize>,
}

impl DirectTrainer {
    /// Copies the weights of `net` (on any device), with a fresh optimizer.
    ///
    /// # Errors
    ///
    /// [`Unsupported`] for a scalar value head, a material head, or a layer
    /// without its bias.
    pub fn new(net: &PolicyValueNet) -> Result<DirectTrainer, Unsupported> {
        let (params, layout) = read(net, &mut Values)?;
        let n = params.len();
        Ok(DirectTrainer {
            layout,
            params,
            grads: vec![0.0; n],
            moment_1: vec![0.0; n],
            moment_2: vec![0.0; n],
            time: 0,
            acts: Acts::default(),
            predictions: Vec::new(),
            policy_support: (0..POLICY_SIZE).collect(),
        })
    }

    /// Restricts the policy's softmax, and so the policy head's work, to the
    /// policy indices of `support` (ascending, as
    /// [`shax_core::Rules::policy_support`] lists the actions the rules can
    /// ever make legal); the other logits are not computed and their weights
    /// get no gradient. Targets should put no mass outside the support. The
    /// default is every index.
    ///
    /// # Panics
    ///
    /// Panics when `support` is empty, not strictly ascending, or holds an
    /// index of [`POLICY_SIZE`] or more.
    pub fn set_policy_support(&mut self, support: Vec<usize>) {
        assert!(!support.is_empty(), "an empty policy support");
        assert!(
            support.windows(2).all(|w| w[0] < w[1]),
            "a policy support must be strictly ascending"
        );
        assert!(
            support.last().is_some_and(|&i| i < POLICY_SIZE),
            "a policy index beyond the policy"
        );
        self.policy_support = support;
    }

    /// The parameters, in the order [`PolicyValueNet`] declares them.
    pub fn params(&self) -> &[f32] {
        &self.params
    }

    /// The gradients of the last [`DirectTrainer::loss_and_gradients`], in
    /// the parameters' order.
    pub fn gradients(&self) -> &[f32] {
        &self.grads
    }

    /// The last batch's values in `[-1, 1]` (P(win) - P(loss)), one a row.
    pub fn predictions(&self) -> &[f32] {
        &self.predictions
    }

    /// AdamW's state: a header (magic, steps taken, parameter count) and
    /// both moments, little-endian.
    pub fn state_bytes(&self) -> Vec<u8> {
        let n = self.params.len();
        let mut out = Vec::with_capacity(STATE_MAGIC.len() + 12 + 8 * n);
        out.extend_from_slice(STATE_MAGIC);
        out.extend_from_slice(&(self.time as u32).to_le_bytes());
        out.extend_from_slice(&(n as u64).to_le_bytes());
        for v in self.moment_1.iter().chain(&self.moment_2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Whether `bytes` are [`DirectTrainer::state_bytes`]'s (and not, say, a
    /// Burn optimizer record).
    pub fn is_state(bytes: &[u8]) -> bool {
        bytes.starts_with(STATE_MAGIC)
    }

    /// Takes up AdamW's state from [`DirectTrainer::state_bytes`].
    ///
    /// # Errors
    ///
    /// [`Unsupported`] when the bytes are not such a state or are of another
    /// network's size.
    pub fn load_state(&mut self, bytes: &[u8]) -> Result<(), Unsupported> {
        let n = self.params.len();
        let body = bytes
            .strip_prefix(STATE_MAGIC.as_slice())
            .ok_or(Unsupported("optimizer state of another format"))?;
        if body.len() != 12 + 8 * n {
            return Err(Unsupported("optimizer state of another network's size"));
        }
        let (head, moments) = body.split_at(12);
        let count = u64::from_le_bytes(head[4..12].try_into().expect("8 bytes"));
        if count != n as u64 {
            return Err(Unsupported("optimizer state of another network's size"));
        }
        self.time = u32::from_le_bytes(head[..4].try_into().expect("4 bytes")) as i32;
        let floats = moments
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")));
        for (slot, v) in self
            .moment_1
            .iter_mut()
            .chain(&mut self.moment_2)
            .zip(floats)
        {
            *slot = v;
        }
        Ok(())
    }

    /// One AdamW step on a batch of `n` rows: `input` `[n, F]`, `policy`
    /// `[n, POLICY_SIZE]` and `wdl` `[n, 3]` targets (rows summing to 1);
    /// weight decay `lr * weight_decay` on the weight matrices only.
    /// Returns the batch's loss before the step.
    ///
    /// # Panics
    ///
    /// Panics when a buffer does not hold `n` rows of its width.
    pub fn step(
        &mut self,
        input: &[f32],
        policy: &[f32],
        wdl: &[f32],
        n: usize,
        lr: f64,
        weight_decay: f64,
    ) -> DirectLoss {
        let loss = self.loss_and_gradients(input, policy, wdl, n);
        self.adamw(lr, weight_decay);
        loss
    }

    /// The batch's loss, leaving its gradients in [`DirectTrainer::gradients`].
    ///
    /// # Panics
    ///
    /// As [`DirectTrainer::step`].
    pub fn loss_and_gradients(
        &mut self,
        input: &[f32],
        policy: &[f32],
        wdl: &[f32],
        n: usize,
    ) -> DirectLoss {
        assert_eq!(input.len(), n * self.layout.input.d_in, "input rows");
        assert_eq!(policy.len(), n * POLICY_SIZE, "policy target rows");
        assert_eq!(wdl.len(), n * 3, "value target rows");
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA, checked just above.
            return unsafe { self.loss_and_gradients_avx2(input, policy, wdl, n) };
        }
        self.loss_and_gradients_inlined(input, policy, wdl, n)
    }

    /// [`DirectTrainer::loss_and_gradients`] with the loops outside the
    /// matrix products compiled for AVX2 (the build's baseline, x86-64-v2,
    /// has half the lanes).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn loss_and_gradients_avx2(
        &mut self,
        input: &[f32],
        policy: &[f32],
        wdl: &[f32],
        n: usize,
    ) -> DirectLoss {
        self.loss_and_gradients_inlined(input, policy, wdl, n)
    }

    #[inline(always)]
    fn loss_and_gradients_inlined(
        &mut self,
        input: &[f32],
        policy: &[f32],
        wdl: &[f32],
        n: usize,
    ) -> DirectLoss {
        let mut a = std::mem::take(&mut self.acts);
        self.forward(input, n, &mut a);
        self.predictions.clear();
        let rows = a.value_raw.chunks_exact(3);
        self.predictions
            .extend(rows.map(|r| crate::direct::wdl(ValueHead::Wdl, r).0));
        let support = &self.policy_support;
        gather_columns(policy, POLICY_SIZE, support, &mut a.policy_target);
        let loss = DirectLoss {
            policy: cross_entropy_grad(&mut a.logits, &a.policy_target, support.len(), n),
            value: cross_entropy_grad(&mut a.value_raw, wdl, 3, n),
        };
        self.backward(input, n, &mut a);
        self.acts = a;
        loss
    }

    #[inline(always)]
    fn forward(&self, input: &[f32], n: usize, a: &mut Acts) {
        let p = &self.params;
        let l = &self.layout;
        a.trunk.resize_with(l.blocks.len() + 1, Vec::new);
        a.blocks.resize_with(l.blocks.len(), BlockActs::default);
        input_forward(l.input, p, input, n, &mut a.trunk[0]);
        relu(&mut a.trunk[0]);
        for (k, block) in l.blocks.iter().enumerate() {
            let (done, rest) = a.trunk.split_at_mut(k + 1);
            block_forward(
                block,
                p,
                &done[k],
                n,
                &mut a.blocks[k],
                &mut rest[0],
                &mut a.dh,
            );
        }
        let x = &a.trunk[l.blocks.len()];
        let support = &self.policy_support;
        a.head.gather(l.policy, p, support);
        let head = PolicyHead::at(l.policy.d_in, support.len());
        linear_forward(head, &a.head.params, x, n, &mut a.logits);
        linear_forward(l.value_hidden, p, x, n, &mut a.value_h);
        relu(&mut a.value_h);
        linear_forward(l.value_out, p, &a.value_h, n, &mut a.value_raw);
    }

    /// Backpropagates the heads' gradients (in `a.logits` and `a.value_raw`).
    #[inline(always)]
    fn backward(&mut self, input: &[f32], n: usize, a: &mut Acts) {
        let (p, g, l) = (&self.params, &mut self.grads, &self.layout);
        let x = &a.trunk[l.blocks.len()];
        // The value head: dv = d(raw) W2^T, masked by its ReLU.
        linear_backward(
            l.value_out,
            p,
            g,
            &a.value_h,
            &a.value_raw,
            n,
            Some(&mut a.dv),
        );
        relu_mask(&mut a.dv, &a.value_h);
        linear_backward(l.value_hidden, p, g, x, &a.dv, n, Some(&mut a.dx));
        // The policy head adds its share to the trunk's gradient.
        let support = &self.policy_support;
        let head = PolicyHead::at(l.policy.d_in, support.len());
        let h = &mut a.head;
        linear_backward(
            head,
            &h.params,
            &mut h.grads,
            x,
            &a.logits,
            n,
            Some(&mut a.dh),
        );
        h.scatter(l.policy, g, support);
        add(&mut a.dx, &a.dh);
        for (k, block) in l.blocks.iter().enumerate().rev() {
            let b = BlockGrad {
                at: block,
                acts: &a.blocks[k],
                x: &a.trunk[k],
                out: &a.trunk[k + 1],
            };
            b.backward(p, g, n, &mut a.dx, &mut a.dh, &mut a.dv);
        }
        relu_mask(&mut a.dx, &a.trunk[0]);
        input_backward(l.input, g, input, &a.dx, n);
    }

    /// AdamW, as Burn's: `m = b1 m + (1 - b1) g`, `v = b2 v + (1 - b2) g^2`,
    /// `w = w (1 - lr wd) - lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)`.
    fn adamw(&mut self, lr: f64, weight_decay: f64) {
        self.time += 1;
        let c1 = 1.0 - BETA_1.powi(self.time);
        let c2 = 1.0 - BETA_2.powi(self.time);
        let lr32 = lr as f32;
        for (range, matrix) in &self.layout.tensors {
            let keep = if *matrix && weight_decay > 0.0 {
                (1.0 - lr * weight_decay) as f32
            } else {
                1.0
            };
            let r = range.clone();
            let params = &mut self.params[r.clone()];
            let moments = self.moment_1[r.clone()]
                .iter_mut()
                .zip(&mut self.moment_2[r.clone()]);
            for ((w, g), (m, v)) in params.iter_mut().zip(&self.grads[r]).zip(moments) {
                *m = *m * BETA_1 + g * (1.0 - BETA_1);
                *v = *v * BETA_2 + g * g * (1.0 - BETA_2);
                let delta = (*m / c1) / ((*v / c2).sqrt() + ADAM_EPSILON);
                *w = *w * keep - delta * lr32;
            }
        }
    }

    /// `net` with this trainer's parameters, on `device` (the parameters keep
    /// their ids).
    ///
    /// # Panics
    ///
    /// Panics when `net` is not of the shape this trainer was made from.
    pub fn write_into(&self, mut net: PolicyValueNet, device: &Device) -> PolicyValueNet {
        let w = Writer {
            params: &self.params,
            device,
        };
        let l = &self.layout;
        w.linear(&mut net.input, l.input);
        assert_eq!(net.blocks.len(), l.blocks.len(), "the network's blocks");
        for (block, at) in net.blocks.iter_mut().zip(&l.blocks) {
            w.linear(&mut block.fc1, at.fc1);
            w.norm(block.norm1.as_mut(), at.norm1);
            w.linear(&mut block.fc2, at.fc2);
            w.norm(block.norm2.as_mut(), at.norm2);
        }
        w.linear(&mut net.policy, l.policy);
        w.linear(&mut net.value_hidden, l.value_hidden);
        w.linear(&mut net.value_out, l.value_out);
        net
    }
}

/// Writes flat parameters back into Burn's modules.
struct Writer<'a> {
    params: &'a [f32],
    device: &'a Device,
}

impl Writer<'_> {
    fn set<const D: usize>(&self, param: &mut Param<Tensor<D>>, at: usize) {
        let shape = param.dims();
        let len: usize = shape.iter().product();
        let data = TensorData::new(self.params[at..at + len].to_vec(), shape);
        *param = Param::initialized(param.id, Tensor::from_data(data, self.device));
    }

    fn linear(&self, l: &mut Linear, at: LinearAt) {
        assert_eq!(
            l.weight.dims(),
            [at.d_in, at.d_out],
            "a linear layer's shape"
        );
        self.set(&mut l.weight, at.w);
        if let Some(b) = l.bias.as_mut() {
            self.set(b, at.b);
        }
    }

    fn norm(&self, n: Option<&mut LayerNorm>, at: Option<NormAt>) {
        let (Some(n), Some(at)) = (n, at) else {
            return;
        };
        self.set(&mut n.gamma, at.g);
        if let Some(b) = n.beta.as_mut() {
            self.set(b, at.b);
        }
    }
}

/// `out = ReLU(x + LN2(ReLU(LN1(x W1 + b1)) W2 + b2))`, keeping what the
/// backward pass needs in `acts`; `t` scratch.
#[inline(always)]
fn block_forward(
    at: &BlockAt,
    p: &[f32],
    x: &[f32],
    n: usize,
    acts: &mut BlockActs,
    out: &mut Vec<f32>,
    t: &mut Vec<f32>,
) {
    let width = at.fc1.d_out;
    linear_forward(at.fc1, p, x, n, &mut acts.r1);
    if let Some(norm) = at.norm1 {
        norm_forward(
            norm,
            p,
            &mut acts.r1,
            width,
            &mut acts.xhat1,
            &mut acts.rstd1,
        );
    }
    relu(&mut acts.r1);
    linear_forward(at.fc2, p, &acts.r1, n, t);
    if let Some(norm) = at.norm2 {
        norm_forward(norm, p, t, width, &mut acts.xhat2, &mut acts.rstd2);
    }
    out.clear();
    out.extend(x.iter().zip(t.iter()).map(|(x, t)| (x + t).max(0.0)));
}

/// A residual block's backward pass: what it needs from the forward one.
struct BlockGrad<'a> {
    at: &'a BlockAt,
    acts: &'a BlockActs,
    /// The block's input and output.
    x: &'a [f32],
    out: &'a [f32],
}

impl BlockGrad<'_> {
    /// Turns `dx`, the gradient at the block's output, into the gradient at
    /// its input; `dh` and `dt` scratch.
    #[inline(always)]
    fn backward(
        &self,
        p: &[f32],
        g: &mut [f32],
        n: usize,
        dx: &mut [f32],
        dh: &mut Vec<f32>,
        dt: &mut Vec<f32>,
    ) {
        let (at, acts) = (self.at, self.acts);
        let width = at.fc1.d_out;
        // Through the output's ReLU: the residual path and the branch share it.
        relu_mask(dx, self.out);
        dt.clear();
        dt.extend_from_slice(dx);
        if let Some(norm) = at.norm2 {
            norm_backward(norm, p, g, dt, &acts.xhat2, &acts.rstd2, width);
        }
        linear_backward(at.fc2, p, g, &acts.r1, dt, n, Some(dh));
        relu_mask(dh, &acts.r1);
        if let Some(norm) = at.norm1 {
            norm_backward(norm, p, g, dh, &acts.xhat1, &acts.rstd1, width);
        }
        linear_backward(at.fc1, p, g, self.x, dh, n, Some(dt));
        add(dx, dt);
    }
}

/// `out = x W + b` for `n` rows of `x`.
#[inline(always)]
fn linear_forward(at: LinearAt, p: &[f32], x: &[f32], n: usize, out: &mut Vec<f32>) {
    let w = &p[at.w..at.w + at.d_in * at.d_out];
    affine(x, n, w, &p[at.b..at.b + at.d_out], out);
}

/// The input layer's `out = x W + b`, over the non-zero inputs only.
#[inline(always)]
fn input_forward(at: LinearAt, p: &[f32], x: &[f32], n: usize, out: &mut Vec<f32>) {
    let w = &p[at.w..at.w + at.d_in * at.d_out];
    sparse_affine(x, n, w, &p[at.b..at.b + at.d_out], out);
}

/// The input layer's weight and bias gradients from `dy`, over the non-zero
/// inputs only (nothing flows further back).
#[inline(always)]
fn input_backward(at: LinearAt, g: &mut [f32], x: &[f32], dy: &[f32], n: usize) {
    sparse_weight_gradient(x, dy, n, &mut g[at.w..at.w + at.d_in * at.d_out]);
    bias_gradient(&mut g[at.b..at.b + at.d_out], dy);
}

/// The gradients of `y = x W + b` from `dy` (`[n, d_out]`): `x^T dy` into
/// the weight's, `dy`'s column sums into the bias's, and `dy W^T` into `dx`
/// when wanted.
#[inline(always)]
fn linear_backward(
    at: LinearAt,
    p: &[f32],
    g: &mut [f32],
    x: &[f32],
    dy: &[f32],
    n: usize,
    dx: Option<&mut Vec<f32>>,
) {
    let dw = &mut g[at.w..at.w + at.d_in * at.d_out];
    matmul(
        Out::new(dw, at.d_out, false),
        View::rows(x, n, at.d_in).t(),
        View::rows(dy, n, at.d_out),
    );
    bias_gradient(&mut g[at.b..at.b + at.d_out], dy);
    if let Some(dx) = dx {
        dx.clear();
        dx.resize(n * at.d_in, 0.0);
        let w = &p[at.w..at.w + at.d_in * at.d_out];
        matmul(
            Out::new(dx, at.d_in, false),
            View::rows(dy, n, at.d_out),
            View::rows(w, at.d_in, at.d_out).t(),
        );
    }
}

/// `db` = the column sums of `dy` (`[n, db.len()]`).
#[inline(always)]
fn bias_gradient(db: &mut [f32], dy: &[f32]) {
    db.fill(0.0);
    for row in dy.chunks_exact(db.len()) {
        add(db, row);
    }
}

/// Normalises each row of `z` in place (then scale and shift), keeping the
/// normalised rows and each row's `1 / sqrt(var + eps)`.
#[inline(always)]
fn norm_forward(
    at: NormAt,
    p: &[f32],
    z: &mut [f32],
    width: usize,
    xhat: &mut Vec<f32>,
    rstd: &mut Vec<f32>,
) {
    let (gamma, beta) = (&p[at.g..at.g + width], &p[at.b..at.b + width]);
    xhat.clear();
    rstd.clear();
    for row in z.chunks_exact_mut(width) {
        let w = width as f32;
        let mean = row.iter().sum::<f32>() / w;
        let var = row.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / w;
        let r = 1.0 / (var + LAYER_NORM_EPSILON).sqrt();
        rstd.push(r);
        for ((x, g), b) in row.iter_mut().zip(gamma).zip(beta) {
            let h = (*x - mean) * r;
            xhat.push(h);
            *x = h * g + b;
        }
    }
}

/// Turns `d`, the gradient at a layer norm's output, into the gradient at its
/// input, adding the scale's and shift's gradients into `g`:
/// `dz = rstd (dh - mean(dh) - xhat mean(dh xhat))` with `dh = d gamma`.
#[inline(always)]
fn norm_backward(
    at: NormAt,
    p: &[f32],
    g: &mut [f32],
    d: &mut [f32],
    xhat: &[f32],
    rstd: &[f32],
    width: usize,
) {
    let gamma = &p[at.g..at.g + width];
    let (dgamma, dbeta) = {
        let (lo, hi) = g.split_at_mut(at.b);
        (&mut lo[at.g..at.g + width], &mut hi[..width])
    };
    dgamma.fill(0.0);
    dbeta.fill(0.0);
    let w = width as f32;
    for ((row, xh), r) in d
        .chunks_exact_mut(width)
        .zip(xhat.chunks_exact(width))
        .zip(rstd)
    {
        let (mut mean_dh, mut mean_dh_xh) = (0.0, 0.0);
        for (((dv, x), gm), (dg, db)) in row
            .iter_mut()
            .zip(xh)
            .zip(gamma)
            .zip(dgamma.iter_mut().zip(dbeta.iter_mut()))
        {
            *dg += *dv * x;
            *db += *dv;
            *dv *= gm;
            mean_dh += *dv;
            mean_dh_xh += *dv * x;
        }
        let (mean_dh, mean_dh_xh) = (mean_dh / w, mean_dh_xh / w);
        for (dv, x) in row.iter_mut().zip(xh) {
            *dv = r * (*dv - mean_dh - x * mean_dh_xh);
        }
    }
}

/// The mean over `n` rows of the cross-entropy of `softmax(logits)` against
/// `target` (`[n, width]` each); `logits` becomes the mean's gradient with
/// respect to them, `(softmax sum(target) - target) / n`.
#[inline(always)]
fn cross_entropy_grad(logits: &mut [f32], target: &[f32], width: usize, n: usize) -> f32 {
    let scale = 1.0 / n as f32;
    let mut total = 0.0f64;
    for (row, t) in logits
        .chunks_exact_mut(width)
        .zip(target.chunks_exact(width))
    {
        let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
        // One pass: the targets' weighted logits, then each logit's exp.
        let (mut t_sum, mut t_dot, mut sum_exp) = (0.0f32, 0.0f32, 0.0f32);
        for (x, t) in row.iter_mut().zip(t) {
            t_sum += t;
            t_dot += t * *x;
            *x = (*x - max).exp();
            sum_exp += *x;
        }
        // sum_j t_j (lse - x_j), lse = max + ln(sum_exp)
        total += f64::from(t_sum * (max + sum_exp.ln()) - t_dot);
        let share = t_sum / sum_exp;
        for (x, t) in row.iter_mut().zip(t) {
            *x = (*x * share - t) * scale;
        }
    }
    (total / n as f64) as f32
}

/// The columns `columns` of the rows of `m` (`width` wide) into `out`.
#[inline(always)]
fn gather_columns(m: &[f32], width: usize, columns: &[usize], out: &mut Vec<f32>) {
    out.clear();
    for row in m.chunks_exact(width) {
        out.extend(columns.iter().map(|&c| row[c]));
    }
}

/// Zeroes the gradient `d` where the ReLU's output `out` is 0.
#[inline(always)]
fn relu_mask(d: &mut [f32], out: &[f32]) {
    for (d, o) in d.iter_mut().zip(out) {
        if *o <= 0.0 {
            *d = 0.0;
        }
    }
}

#[inline(always)]
fn add(acc: &mut [f32], x: &[f32]) {
    for (a, x) in acc.iter_mut().zip(x) {
        *a += x;
    }
}

#[cfg(test)]
mod tests {
    use burn::tensor::Gradients;

    use super::*;
    use crate::backend::Backend;
    use crate::bench::bench_positions;
    use crate::direct::tests::random_net;
    use crate::encoder::encode_batch;
    use crate::model::{ModelConfig, alphazero_loss, policy_columns};
    use shax_core::{Preset, Rules};

    /// The parameters' gradients.
    struct Grads<'a>(&'a Gradients);

    impl Source for Grads<'_> {
        fn numbers<const D: usize>(&mut self, param: &Param<Tensor<D>>) -> Vec<f32> {
            let grad = param
                .val()
                .grad(self.0)
                .expect("every parameter has a gradient");
            grad.try_into_vec_as::<f32>().unwrap()
        }
    }

    /// A batch of `n` real positions with random target distributions.
    fn batch(n: usize, encoder: u32) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        let positions = bench_positions(n);
        let mut input = Vec::new();
        encode_batch(&positions, encoder, &mut input);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        let mut rows = |width: usize| {
            let mut out = Vec::with_capacity(n * width);
            for _ in 0..n {
                // Mass on a few entries, as search's visit counts have.
                let row: Vec<f32> = (0..width)
                    .map(|_| {
                        let u = next();
                        if u > 0.9 { u } else { 0.0 }
                    })
                    .collect();
                let sum: f32 = row.iter().sum::<f32>().max(1e-6);
                out.extend(row.iter().map(|v| v / sum));
            }
            out
        };
        let policy = rows(POLICY_SIZE);
        let wdl = rows(3);
        (input, policy, wdl)
    }

    fn close(a: f32, b: f32, scale: f32) -> bool {
        (a - b).abs() <= 2e-4 * scale + 1e-6
    }

    /// The loss and every parameter's gradient are Burn's autodiff's, with
    /// and without layer norms, the policy over every action or over Shax's
    /// reachable ones, on random weights and real positions.
    #[test]
    fn gradients_are_burns() {
        let every: Vec<usize> = (0..POLICY_SIZE).collect();
        let shax = Rules::preset(Preset::Shax).policy_support();
        for (layer_norm, support) in [(true, &every), (false, &every), (true, &shax)] {
            let config = ModelConfig::new()
                .with_hidden(24)
                .with_blocks(2)
                .with_value_hidden(8)
                .with_layer_norm(layer_norm);
            let device = Backend::Cpu.training_device();
            let net = random_net(&config, &device);
            let n = 7;
            let (input, policy, wdl) = batch(n, config.encoder);
            let f = config.features();
            let tensor = |v: &[f32], w: usize| {
                Tensor::<2>::from_data(TensorData::new(v.to_vec(), [n, w]), &device)
            };
            let out = net.forward_train(tensor(&input, f));
            let loss = alphazero_loss(
                policy_columns(out.logits, support),
                out.value,
                policy_columns(tensor(&policy, POLICY_SIZE), support),
                tensor(&wdl, 3),
            );
            let scalar = |t: Tensor<1>| t.try_into_vec_as::<f32>().unwrap()[0];
            let (p, v) = (scalar(loss.policy.clone()), scalar(loss.value.clone()));
            let grads = (loss.policy + loss.value).backward();
            let (expected, _) = read(&net, &mut Grads(&grads)).unwrap();

            let mut direct = DirectTrainer::new(&net).unwrap();
            direct.set_policy_support(support.clone());
            let got = direct.loss_and_gradients(&input, &policy, &wdl, n);
            assert!(
                close(got.policy, p, p) && close(got.value, v, v),
                "{got:?} {p} {v}"
            );
            let scale = expected.iter().fold(0.0f32, |m, g| m.max(g.abs()));
            assert!(scale > 1e-3, "gradients too small to compare: {scale}");
            assert_eq!(direct.gradients().len(), expected.len());
            for (i, (g, e)) in direct.gradients().iter().zip(&expected).enumerate() {
                assert!(
                    close(*g, *e, scale),
                    "layer_norm {layer_norm}, support {}: gradient {i}: {g} against {e}",
                    support.len()
                );
            }
            // Outside the support the policy head's weights get no gradient.
            let head = direct.layout.policy;
            let columns = |w: usize| (0..head.d_in).map(move |i| w + i * head.d_out);
            for c in (0..POLICY_SIZE).filter(|c| support.binary_search(c).is_err()) {
                let mut at = columns(head.w + c).chain([head.b + c]);
                assert!(at.all(|j| direct.gradients()[j] == 0.0), "column {c}");
            }
        }
    }

    /// The parameters go back into the network they came from, and the
    /// refused shapes say what they lack.
    #[test]
    fn writes_back_and_refuses_what_it_cannot_train() {
        let config = ModelConfig::new().with_hidden(16).with_blocks(1);
        let device = Backend::Cpu.device();
        let mut direct = DirectTrainer::new(&random_net(&config, &device)).unwrap();
        let (input, policy, wdl) = batch(4, config.encoder);
        direct.step(&input, &policy, &wdl, 4, 1e-2, 0.1);
        let other = direct.write_into(config.init(&device), &device);
        assert_eq!(
            DirectTrainer::new(&other).unwrap().params(),
            direct.params()
        );

        let scalar = config
            .clone()
            .with_value_head(ValueHead::Scalar)
            .init(&device);
        let err = DirectTrainer::new(&scalar).unwrap_err();
        assert!(err.to_string().contains("scalar value head"), "{err}");
        let material = config.with_material_head(true).init(&device);
        let err = DirectTrainer::new(&material).unwrap_err();
        assert!(err.to_string().contains("material head"), "{err}");
    }
}

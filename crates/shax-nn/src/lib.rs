//! The neural network of the mill games, on Burn 0.22: the position encoder,
//! the policy/value network, a batched [`shax_search::Evaluator`] and checkpoints.
//!
//! - [`encode`] / [`encode_batch`]: a position as [`features`]`(version)` floats from the
//!   view of the player to act; versioned by [`ENCODER_VERSION`].
//! - [`ModelConfig`] -> [`PolicyValueNet`]: a residual MLP, raw policy logits
//!   over [`shax_core::POLICY_SIZE`] and a value in `[-1, 1]`.
//! - [`NetWeights`] (cheap to clone, `Send + Sync`) -> one [`NetEvaluator`] per
//!   worker thread, inference on the calling thread: on the CPU the direct
//!   forward pass (src/direct.rs: the legal actions' logits only, no Burn
//!   tensors), Burn's pass on other backends and as its reference.
//! - [`save_checkpoint`], [`load_checkpoint`], [`load_weights`],
//!   [`init_checkpoint`]: the record plus a metadata file checked on load.
//! - [`Backend`]: the one place the Burn backend is chosen (CPU `flex` by
//!   default, `wgpu` behind the cargo feature of that name; backends and
//!   threading are described in `docs/BACKENDS.md`).
//! - [`bench_nn`]: evaluations per second against the matmul peak.
//! - [`registry`] / [`register_net`]: the `net:<checkpoint>,sims=N` player
//!   kind beside the classic players, weights loaded once per path.
//!
//! # Examples
//!
//! ```
//! use shax_core::{POLICY_SIZE, Position, Rules};
//! use shax_nn::{Backend, ModelConfig, NetWeights};
//! use shax_search::Evaluator;
//!
//! let config = ModelConfig::new().with_hidden(32).with_blocks(1);
//! let net = config.init(&Backend::Cpu.device());
//! let weights = NetWeights::from_net(&config, net).unwrap();
//! // On each worker thread:
//! let mut eval = weights.evaluator().unwrap();
//! let mut logits = vec![0.0; POLICY_SIZE];
//! let mut value = [0.0];
//! eval.evaluate(&[Position::new(Rules::default())], &mut logits, &mut value);
//! assert!((-1.0..=1.0).contains(&value[0]));
//! ```

mod average;
mod backend;
mod backprop;
mod bench;
mod checkpoint;
mod direct;
mod encoder;
mod evaluator;
mod matmul;
mod model;
mod player;

pub use average::{AverageError, average_checkpoints, average_nets};
pub use backend::{Backend, UnknownBackend, flush_denormals};
pub use backprop::{DirectLoss, DirectTrainer, Unsupported};
pub use bench::{
    BatchFigures, BenchError, DEFAULT_BENCH_BATCHES, NnBenchReport, bench_nn, bench_positions,
};
pub use checkpoint::{
    Checkpoint, CheckpointError, CheckpointMeta, FORMAT_VERSION, init_checkpoint, load_checkpoint,
    load_metadata, load_weights, metadata_path, save_checkpoint, utc_string, write_atomic,
};
pub use encoder::{
    ENCODER_VERSION, FEATURES, FEATURES_V2, OLDEST_ENCODER_VERSION, PLANES, encode, encode_batch,
    encode_version, features,
};
pub use evaluator::{DEFAULT_BATCH, NetEvaluator, NetWeights, WeightsError};
pub use model::{
    HeadOutputs, Loss, MATERIAL_HORIZON, MATERIAL_TARGETS, MAX_BLOCKS, MAX_WIDTH, ModelConfig,
    ModelConfigError, PolicyValueNet, ResidualBlock, ValueHead, alphazero_loss, head_value,
    material_loss, policy_columns,
};
pub use player::{BATCH, DEFAULT_SIMS, SIMS, TEMP, WeightsCache, net_help, register_net, registry};

/// Burn, as this crate uses it (so callers name the same `Device`, `Tensor`, `Module`).
pub use burn;

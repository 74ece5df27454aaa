//! `shax bench nn`: network evaluations per second against the machine's
//! measured matrix-multiply peak.
//!
//! Evaluations run on one thread (a one-thread rayon pool, so Burn's `flex`
//! backend cannot spread a large product over other cores), which is how
//! self-play uses the network: one worker per core, each with its own model.
//! The peak is a 1024 x 1024 x 1024 `f32` matrix product on the same backend,
//! measured both on one thread and on all of them. On the CPU the direct
//! forward pass that play uses ([`NetEvaluator::direct`]) is timed beside
//! Burn's on the same positions.

use std::time::{Duration, Instant};

use burn::tensor::{Device, Distribution, Tensor};
use serde::Serialize;
use shax_core::{POLICY_SIZE, Position, Preset, Rules};
use shax_search::Evaluator;

use crate::backend::Backend;
use crate::evaluator::NetEvaluator;
use crate::model::ModelConfig;

/// The batch sizes `shax bench nn` reports by default.
pub const DEFAULT_BENCH_BATCHES: [usize; 4] = [1, 8, 64, 256];

/// One batch size's figures.
#[derive(Clone, Debug, Serialize)]
pub struct BatchFigures {
    /// Positions per evaluator call.
    pub batch: usize,
    /// Positions evaluated per second (encoding and copying out included).
    pub evals_per_s: f64,
    /// Microseconds per evaluator call.
    pub us_per_call: f64,
    /// `evals_per_s * flops_per_eval`, in GFLOP/s.
    pub gflops: f64,
    /// `gflops` over the one-thread matmul peak.
    pub fraction_of_peak_one_thread: f64,
    /// `gflops` over the all-threads matmul peak.
    pub fraction_of_peak_all_threads: f64,
    /// Positions per second of the direct forward pass (CPU backend only):
    /// the legal actions' logits, sparse inputs.
    pub direct_evals_per_s: Option<f64>,
}

/// What [`bench_nn`] measured.
#[derive(Clone, Debug, Serialize)]
pub struct NnBenchReport {
    /// The backend.
    pub backend: String,
    /// The network measured.
    pub model: ModelConfig,
    /// Its parameter count.
    pub params: usize,
    /// Floating-point operations per evaluation (matrix products).
    pub flops_per_eval: usize,
    /// Threads the evaluations ran on.
    pub eval_threads: usize,
    /// Hardware threads of the machine.
    pub machine_threads: usize,
    /// 1024^3 matmul, one thread, GFLOP/s.
    pub peak_gflops_one_thread: f64,
    /// 1024^3 matmul, all threads, GFLOP/s.
    pub peak_gflops_all_threads: f64,
    /// Per batch size.
    pub batches: Vec<BatchFigures>,
}

/// A benchmark that could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bench nn: {0}")]
pub struct BenchError(pub String);

fn one_thread_pool() -> Result<rayon::ThreadPool, BenchError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| BenchError(e.to_string()))
}

/// GFLOP/s of `n x n x n` matrix products on `device`, over about `seconds`.
fn matmul_gflops(device: &Device, n: usize, seconds: f64) -> f64 {
    let a = Tensor::<2>::random([n, n], Distribution::Default, device); // [n, n]
    let b = Tensor::<2>::random([n, n], Distribution::Default, device); // [n, n]
    let run = || {
        let c = a.clone().matmul(b.clone()); // [n, n]
        let _ = device.sync();
        drop(c);
    };
    run(); // warm-up
    let budget = Duration::from_secs_f64(seconds.max(0.01));
    let start = Instant::now();
    let mut reps = 0u32;
    while reps < 2 || start.elapsed() < budget {
        run();
        reps += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    2.0 * (n * n * n) as f64 * f64::from(reps) / secs / 1e9
}

/// Varied positions: a few deterministic playouts of every preset's rules
/// (the network does not care which, the encoder's rule block aside).
pub fn bench_positions(count: usize) -> Vec<Position> {
    let mut out = Vec::with_capacity(count);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    'outer: while out.len() < count {
        for preset in Preset::ALL {
            let mut pos = Position::new(Rules::preset(preset));
            for _ in 0..60 {
                if out.len() == count {
                    break 'outer;
                }
                out.push(pos);
                let actions = pos.legal_actions();
                if pos.outcome().is_some() || actions.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos.play_unchecked(actions[(seed % actions.len() as u64) as usize]);
            }
        }
    }
    out
}

/// Calls `eval` on `windows` in turn (each the same batch size) for about
/// `seconds` after a warm-up: the calls made and the seconds they took.
fn time_calls(eval: &mut NetEvaluator, windows: &[&[Position]], seconds: f64) -> (usize, f64) {
    let batch = windows[0].len();
    let mut logits = vec![0.0; batch * POLICY_SIZE];
    let mut values = vec![0.0; batch];
    for w in windows.iter().take(3) {
        eval.evaluate(w, &mut logits, &mut values); // warm-up
    }
    let budget = Duration::from_secs_f64(seconds.max(0.01));
    let start = Instant::now();
    let mut calls = 0usize;
    while calls < 3 || start.elapsed() < budget {
        eval.evaluate(windows[calls % windows.len()], &mut logits, &mut values);
        calls += 1;
    }
    (calls, start.elapsed().as_secs_f64())
}

/// Measures a freshly initialised `config` network on `backend`: for each of
/// `batches`, about `seconds` of evaluator calls from one thread; then the
/// 1024^3 matmul peak from one thread and from all (about `seconds` each; on
/// a GPU both are the device's).
///
/// # Errors
///
/// [`BenchError`] when `config` is out of range, a batch size is 0, or the
/// one-thread pool cannot be built.
pub fn bench_nn(
    config: &ModelConfig,
    backend: Backend,
    batches: &[usize],
    seconds: f64,
) -> Result<NnBenchReport, BenchError> {
    config.validate().map_err(|e| BenchError(e.to_string()))?;
    if batches.contains(&0) {
        return Err(BenchError("a batch size is 0".into()));
    }
    let device = backend.device();
    let pool = one_thread_pool()?;
    let flops = config.flops_per_eval();
    let max_batch = batches.iter().copied().max().unwrap_or(1);
    let positions = bench_positions(max_batch.max(256));

    let (peak_one, evals) = pool.install(|| {
        let net = config.init(&device);
        let mut direct = (backend == Backend::Cpu).then(|| NetEvaluator::direct(&net));
        let mut eval = NetEvaluator::new(net, device.clone());
        let mut evals = Vec::new();
        for &batch in batches {
            let windows: Vec<&[Position]> = positions.chunks_exact(batch).collect();
            let windows = if windows.is_empty() {
                vec![&positions[..batch.min(positions.len())]]
            } else {
                windows
            };
            let burn = time_calls(&mut eval, &windows, seconds);
            let direct = direct.as_mut().map(|d| time_calls(d, &windows, seconds));
            evals.push((batch, burn, direct));
        }
        (matmul_gflops(&device, 1024, seconds), evals)
    });
    let peak_all = matmul_gflops(&device, 1024, seconds);

    let batches = evals
        .into_iter()
        .map(|(batch, (calls, secs), direct)| {
            let evals_per_s = (batch * calls) as f64 / secs;
            let gflops = evals_per_s * flops as f64 / 1e9;
            BatchFigures {
                batch,
                evals_per_s,
                us_per_call: secs * 1e6 / calls as f64,
                gflops,
                fraction_of_peak_one_thread: gflops / peak_one,
                fraction_of_peak_all_threads: gflops / peak_all,
                direct_evals_per_s: direct.map(|(calls, secs)| (batch * calls) as f64 / secs),
            }
        })
        .collect();
    Ok(NnBenchReport {
        backend: backend.describe(),
        model: config.clone(),
        params: config.num_params(),
        flops_per_eval: flops,
        eval_threads: 1,
        machine_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        peak_gflops_one_thread: peak_one,
        peak_gflops_all_threads: peak_all,
        batches,
    })
}

impl std::fmt::Display for NnBenchReport {
    /// A human-readable table.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "network: hidden {} blocks {} value_hidden {} layer_norm {}: {} params, {:.3} MFLOP/eval",
            self.model.hidden,
            self.model.blocks,
            self.model.value_hidden,
            self.model.layer_norm,
            self.params,
            self.flops_per_eval as f64 / 1e6
        )?;
        writeln!(
            f,
            "backend {}; matmul 1024^3 peak: {:.1} GFLOP/s on 1 thread, {:.1} on {} threads",
            self.backend,
            self.peak_gflops_one_thread,
            self.peak_gflops_all_threads,
            self.machine_threads
        )?;
        writeln!(
            f,
            "{:>6} {:>12} {:>10} {:>8} {:>9} {:>9} {:>14}",
            "batch", "evals/s", "us/call", "GFLOP/s", "%peak(1)", "%peak(all)", "direct evals/s"
        )?;
        for b in &self.batches {
            let direct = b.direct_evals_per_s.map_or("-".to_string(), |d| {
                format!("{d:.0} ({:.2}x)", d / b.evals_per_s)
            });
            writeln!(
                f,
                "{:>6} {:>12.0} {:>10.1} {:>8.1} {:>8.1}% {:>8.1}% {:>14}",
                b.batch,
                b.evals_per_s,
                b.us_per_call,
                b.gflops,
                100.0 * b.fraction_of_peak_one_thread,
                100.0 * b.fraction_of_peak_all_threads,
                direct
            )?;
        }
        writeln!(
            f,
            "(evaluations on {} thread, encoding and copying out included; direct: the forward pass play uses)",
            self.eval_threads
        )
    }
}

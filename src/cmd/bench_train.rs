//! `shax bench train`: the trainer's steps and positions per second per batch
//! size, on the CPU or a GPU.

use std::io::Write;
use std::path::PathBuf;

use shax_core::{POLICY_SIZE, Rules};
use shax_nn::Backend;
use shax_train::{DEFAULT_TRAIN_BENCH_BATCHES, bench_train};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Model file (TOML); the default network when absent.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Batch sizes (positions per step), comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_TRAIN_BENCH_BATCHES.to_vec())]
    batches: Vec<usize>,
    /// Seconds per batch size.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Where the network trains: cpu, or wgpu in a build with the `wgpu` feature.
    #[arg(long, default_value = "cpu")]
    backend: Backend,
    /// Time the training step written without Burn, the one `shax train`
    /// takes on the CPU (one thread); without it, Burn's step.
    #[arg(long)]
    direct: bool,
    /// Span the policy loss over the actions these rules can ever make legal
    /// (a preset or a rules TOML file), as `shax train` does with
    /// `train.policy_actions = "reachable"`; without it, over all 600.
    #[arg(long, value_name = "RULES")]
    reachable: Option<String>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    super::bench::check_seconds(a.seconds)?;
    let config = super::bench_mcts::model(&a.model)?;
    let support = match &a.reachable {
        Some(rules) => Rules::load(rules)?.policy_support(),
        None => (0..POLICY_SIZE).collect(),
    };
    let r = bench_train(
        &config, a.backend, &a.batches, a.seconds, a.direct, &support,
    )?;
    let mut out = super::stdout();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?;
        return Ok(());
    }
    writeln!(
        out,
        "network: hidden {}, blocks {}, {} parameters; policy loss over {} actions; backend {}{}",
        r.model.hidden,
        r.model.blocks,
        r.params,
        r.policy_actions,
        r.backend,
        if r.direct { ", the direct trainer" } else { "" }
    )?;
    writeln!(
        out,
        "{:>6} {:>7} {:>10} {:>12}",
        "batch", "steps", "ms/step", "samples/s"
    )?;
    for b in &r.batches {
        writeln!(
            out,
            "{:>6} {:>7} {:>10.1} {:>12.0}",
            b.batch, b.steps, b.ms_per_step, b.samples_per_s
        )?;
    }
    Ok(())
}

//! `shax net`: networks outside training.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context as _;
use shax_core::Rules;
use shax_nn::{ModelConfig, average_checkpoints, init_checkpoint, metadata_path};
use shax_train::CheckpointDir;

#[derive(clap::Subcommand, Debug)]
pub enum Net {
    /// Write a freshly initialised network, so search and tools can be tried before training.
    Init(InitArgs),
    /// Average checkpoints of one run into one network (stochastic weight averaging).
    Average(AverageArgs),
}

#[derive(clap::Args, Debug)]
pub struct InitArgs {
    /// Rules the network plays: a preset or a rules TOML file.
    #[arg(long, default_value = "shax")]
    rules: String,
    /// Model file (TOML: hidden, blocks, value_hidden, layer_norm); the default network when absent.
    #[arg(long)]
    model: Option<PathBuf>,
    /// The checkpoint to write (`.bpk`; its metadata goes beside it as `.meta.toml`).
    #[arg(long)]
    out: PathBuf,
    /// Replace an existing checkpoint.
    #[arg(long)]
    force: bool,
}

#[derive(clap::Args, Debug)]
pub struct AverageArgs {
    /// Checkpoints to average (`.bpk` files, or checkpoint folders of a run holding `net.bpk`):
    /// one network configuration and one rule set, best from one run.
    #[arg(required = true, num_args = 1..)]
    inputs: Vec<PathBuf>,
    /// The checkpoint to write (`.bpk`; its metadata goes beside it as `.meta.toml`).
    #[arg(long)]
    out: PathBuf,
    /// Replace an existing checkpoint.
    #[arg(long)]
    force: bool,
}

pub fn run(n: Net) -> anyhow::Result<()> {
    match n {
        Net::Init(a) => init(a),
        Net::Average(a) => average(a),
    }
}

fn init(a: InitArgs) -> anyhow::Result<()> {
    let rules = Rules::load(&a.rules)?;
    let config = match &a.model {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            ModelConfig::from_toml(&text).with_context(|| format!("{}", path.display()))?
        }
        None => ModelConfig::default(),
    };
    if a.out.exists() && !a.force {
        anyhow::bail!("{} exists; pass --force to replace it", a.out.display());
    }
    let meta = init_checkpoint(&rules, &config, &a.out)?;
    writeln!(
        super::stdout(),
        "wrote {} ({} parameters: hidden {}, blocks {}) and {} for rules {}",
        a.out.display(),
        meta.model.num_params(),
        meta.model.hidden,
        meta.model.blocks,
        metadata_path(&a.out).display(),
        rules
    )?;
    Ok(())
}

fn average(a: AverageArgs) -> anyhow::Result<()> {
    let inputs: Vec<PathBuf> = a.inputs.iter().map(|p| CheckpointDir::net_of(p)).collect();
    if let Some(same) = inputs.iter().find(|p| **p == a.out) {
        anyhow::bail!("{} is both an input and --out", same.display());
    }
    if a.out.exists() && !a.force {
        anyhow::bail!("{} exists; pass --force to replace it", a.out.display());
    }
    let meta = average_checkpoints(&inputs, &a.out)?;
    writeln!(
        super::stdout(),
        "wrote {} (the mean of {} checkpoint{}, step {}) and {}",
        a.out.display(),
        inputs.len(),
        if inputs.len() == 1 { "" } else { "s" },
        meta.step,
        metadata_path(&a.out).display()
    )?;
    Ok(())
}

//! `shax net`: networks outside training.

use std::path::PathBuf;

use anyhow::Context as _;
use shax_core::Rules;
use shax_nn::{ModelConfig, init_checkpoint, metadata_path};

#[derive(clap::Subcommand, Debug)]
pub enum Net {
    /// Write a freshly initialised network, so search and tools can be tried before training.
    Init(InitArgs),
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

pub fn run(n: Net) -> anyhow::Result<()> {
    match n {
        Net::Init(a) => init(a),
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
    println!(
        "wrote {} ({} parameters: hidden {}, blocks {}) and {} for rules {}",
        a.out.display(),
        meta.model.num_params(),
        meta.model.hidden,
        meta.model.blocks,
        metadata_path(&a.out).display(),
        rules
    );
    Ok(())
}

//! `shax train`, `shax selfplay`, `shax inspect`, `shax replay`: the
//! self-play trainer of `shax-train` on the command line.

use std::io::{IsTerminal as _, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};
use shax_core::Game;
use shax_train::{
    CONFIG_FILE, CheckpointDir, Observer, RunInfo, SelfPlayOptions, TrainConfig, TrainOptions,
    inspect_run, read_shard, selfplay, train,
};

/// The config `shax train` uses without `--config` (the laptop default for Shax).
pub const DEFAULT_CONFIG: &str = include_str!("../../configs/shax.toml");

#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Training config (TOML; see configs/); the embedded configs/shax.toml when absent.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Run directory; runs/<config name>-<UTC time> when absent.
    #[arg(long)]
    run_dir: Option<PathBuf>,
    /// Continue the run in --run-dir from its newest complete checkpoint (its own config.toml).
    #[arg(long)]
    resume: bool,
    /// Start a new run from this checkpoint's weights (`net.bpk`, a shipped
    /// `step-*.bpk`, or a checkpoint folder) instead of random ones; its shape
    /// replaces the config's [model]. Same as `--set run.init=PATH`.
    #[arg(long, value_name = "CHECKPOINT")]
    init: Option<PathBuf>,
    /// Trainer only: games come from `shax selfplay` processes sharing the run directory.
    #[arg(long)]
    no_selfplay: bool,
    /// Override a config key, e.g. `--set run.hours=0.5 --set model.hidden=192`
    /// (repeatable; the run's config.toml records the result).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
}

#[derive(clap::Args, Debug)]
pub struct SelfPlayArgs {
    /// The run directory to follow (its config.toml and newest checkpoint).
    #[arg(long)]
    run_dir: PathBuf,
    /// Worker threads (default: the run config's `selfplay.workers`).
    #[arg(long)]
    workers: Option<usize>,
    /// Positions per shard written (a shard per worker per round).
    #[arg(long, default_value_t = 2000)]
    shard_positions: u64,
    /// Stop after this many positions (default: when the run's last step is checkpointed).
    #[arg(long)]
    max_positions: Option<u64>,
    /// Seed mixed into the run's (the process id is mixed in too).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Seconds to wait for the run to appear (its trainer may start later);
    /// then exit 2. Default: wait as long as it takes, saying so once a minute.
    #[arg(long, value_name = "SECONDS")]
    wait: Option<u64>,
}

#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// A run directory, or a checkpoint (`net.bpk` or its folder).
    path: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// A shard file.
    shard: PathBuf,
    /// Only this game (0-based) of the shard.
    #[arg(long)]
    game: Option<usize>,
}

/// Log lines on stderr; on a terminal a progress bar with rate and ETA.
struct Console {
    bar: Option<ProgressBar>,
}

impl Console {
    fn new() -> Console {
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = ProgressBar::new(0);
            b.set_style(
                ProgressStyle::with_template("{bar:40} step {pos}/{len} {per_sec} eta {eta} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b
        });
        Console { bar }
    }
}

impl Observer for Console {
    fn line(&mut self, line: &str) {
        match &self.bar {
            Some(b) => b.println(line),
            None => eprintln!("{line}"),
        }
    }

    fn progress(&mut self, step: u64, total: u64) {
        if let Some(b) = &self.bar {
            b.set_length(total);
            b.set_position(step);
        }
    }
}

fn default_run_dir(config: Option<&Path>) -> PathBuf {
    let stem = config
        .and_then(|p| p.file_stem())
        .map_or("shax".to_string(), |s| s.to_string_lossy().into_owned());
    PathBuf::from("runs").join(format!("{stem}-{}", super::utc_stamp(false)))
}

pub fn train_cmd(a: TrainArgs) -> anyhow::Result<()> {
    if a.resume && (a.config.is_some() || !a.sets.is_empty() || a.init.is_some()) {
        anyhow::bail!(
            "--resume uses the run's own config.toml and newest checkpoint; edit that file (e.g. run.total_steps) instead of passing --config, --set or --init"
        );
    }
    if a.resume && a.run_dir.is_none() {
        anyhow::bail!("--resume needs --run-dir");
    }
    // Read and check the config before any work.
    let sets: Vec<&str> = a.sets.iter().map(String::as_str).collect();
    let mut config = match &a.config {
        Some(p) => TrainConfig::load_with(p, &sets)?,
        None => TrainConfig::parse_with(DEFAULT_CONFIG, "configs/shax.toml (embedded)", &sets)?,
    };
    if a.init.is_some() {
        config.run.init.clone_from(&a.init);
    }
    let run_dir = a
        .run_dir
        .clone()
        .unwrap_or_else(|| default_run_dir(a.config.as_deref()));
    let opts = TrainOptions {
        run_dir: run_dir.clone(),
        config,
        resume: a.resume,
        selfplay: !a.no_selfplay,
        stop_after_checkpoints: None,
    };
    let mut console = Console::new();
    let stop = AtomicBool::new(false);
    let s = train(&opts, &mut console, &stop)?;
    if let Some(b) = &console.bar {
        b.finish_and_clear();
    }
    writeln!(
        super::stdout(),
        "run {}: step {}, {} checkpoints and {} evaluations in this session; {} {:.1} positions/s, training {:.0} samples/s",
        run_dir.display(),
        s.step,
        s.checkpoints,
        s.evaluations,
        if s.external_selfplay {
            "received from workers"
        } else {
            "self-play"
        },
        s.selfplay_positions_per_sec,
        s.train_samples_per_sec
    )?;
    Ok(())
}

pub fn selfplay_cmd(a: SelfPlayArgs) -> anyhow::Result<()> {
    if a.workers == Some(0) || a.workers.is_some_and(|w| w > 1024) {
        anyhow::bail!("--workers must be 1 to 1024");
    }
    if a.shard_positions == 0 {
        anyhow::bail!("--shard-positions must be at least 1");
    }
    let opts = SelfPlayOptions {
        run_dir: a.run_dir,
        workers: a.workers,
        shard_positions: a.shard_positions,
        max_positions: a.max_positions,
        seed: a.seed,
        wait: a.wait.map(std::time::Duration::from_secs),
    };
    let mut console = Console::new();
    let stop = AtomicBool::new(false);
    let s = selfplay(&opts, &mut console, &stop)?;
    writeln!(
        super::stdout(),
        "{} games, {} positions, {} simulations",
        s.games,
        s.positions,
        s.sims
    )?;
    Ok(())
}

pub fn inspect_cmd(a: InspectArgs) -> anyhow::Result<()> {
    let p = &a.path;
    let checkpoint = CheckpointDir(p.clone());
    let mut out = super::stdout();
    if p.join(CONFIG_FILE).is_file() && !checkpoint.net().is_file() {
        let info = inspect_run(p)?;
        if a.json {
            writeln!(out, "{}", serde_json::to_string_pretty(&info)?)?;
        } else {
            print_run(&mut out, p, &info)?;
        }
        return Ok(());
    }
    let net = CheckpointDir::net_of(p);
    let meta = shax_nn::load_metadata(&net, None).with_context(|| {
        format!(
            "{} is neither a run directory nor a checkpoint",
            p.display()
        )
    })?;
    if a.json {
        let v = serde_json::json!({
            "checkpoint": net.display().to_string(),
            "step": meta.step,
            "created_unix": meta.created_unix,
            "rules": meta.rules.name(),
            "model": meta.model.to_toml(),
            "params": meta.model.num_params(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    writeln!(out, "checkpoint {} (step {})", net.display(), meta.step)?;
    writeln!(out, "rules: {}", meta.rules.name())?;
    writeln!(out, "network: {} parameters", meta.model.num_params())?;
    write!(out, "{}", meta.model.to_toml())?;
    if let Some(dir) = net.parent() {
        let dir = CheckpointDir(dir.to_path_buf());
        for f in [dir.optim(), dir.state(), dir.config()] {
            if f.is_file() {
                writeln!(out, "  {}", f.display())?;
            }
        }
    }
    Ok(())
}

/// `shax inspect` of a run directory, as text.
fn print_run(out: &mut impl Write, p: &Path, info: &RunInfo) -> anyhow::Result<()> {
    writeln!(out, "run {} ({})", info.run_dir, info.rules)?;
    writeln!(
        out,
        "step {} of {} ({} complete checkpoints, {:.2} hours)",
        info.step.map_or("none".to_string(), |s| s.to_string()),
        info.total_steps,
        info.checkpoints,
        info.hours
    )?;
    writeln!(
        out,
        "shards: {} files, {} games, {} positions; {} TensorBoard event files",
        info.shards, info.games, info.positions, info.event_files
    )?;
    match &info.newest_elo {
        Some(e) => {
            let scores: Vec<String> = e
                .results
                .iter()
                .map(|r| format!("{} {:.0}%", r.opponent, 100.0 * r.score))
                .collect();
            writeln!(
                out,
                "newest Elo: {} {:.0} [{:.0}, {:.0}] ({}); best step-{}",
                e.player,
                e.elo,
                e.elo_low,
                e.elo_high,
                scores.join(", "),
                e.best_step
            )?;
        }
        None => writeln!(out, "newest Elo: no evaluation yet")?,
    }
    writeln!(out, "files:")?;
    for entry in std::fs::read_dir(p)?.filter_map(Result::ok) {
        writeln!(out, "  {}", entry.path().display())?;
    }
    writeln!(out, "config:\n{}", info.config)?;
    Ok(())
}

pub fn replay_cmd(a: ReplayArgs) -> anyhow::Result<()> {
    let shard = read_shard(&a.shard)?;
    let mut out = super::stdout();
    writeln!(
        out,
        "shard {}: {} ({} games, network of step {}, {} positions trained)",
        a.shard.display(),
        shard.rules.name(),
        shard.games.len(),
        shard.net_step,
        shard.positions()
    )?;
    for (i, g) in shard.games.iter().enumerate() {
        if a.game.is_some_and(|k| k != i) {
            continue;
        }
        let mut game = Game::new(shard.rules);
        let mut text = Vec::with_capacity(g.actions.len());
        for (ply, action) in g.actions.iter().enumerate() {
            let mover = game.position().to_act().name();
            game.play(*action)
                .with_context(|| format!("game {i}, action {ply}"))?;
            let star = if g.full_search.get(ply).copied().unwrap_or(false) {
                "*"
            } else {
                ""
            };
            text.push(format!("{}{action}{star}", &mover[..1]));
        }
        writeln!(
            out,
            "game {i}: {} actions, {} ({} positions trained; * = full search)",
            g.actions.len(),
            g.outcome,
            g.samples.len()
        )?;
        for chunk in text.chunks(12) {
            writeln!(out, "  {}", chunk.join(" "))?;
        }
    }
    if let Some(k) = a.game
        && k >= shard.games.len()
    {
        anyhow::bail!(
            "the shard has {} games; --game {k} is out of range",
            shard.games.len()
        );
    }
    Ok(())
}

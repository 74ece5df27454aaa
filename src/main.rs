//! `shax`: the command line. Parsing and dispatch only: `main` calls `run`,
//! one function per subcommand, exit codes decided here.

// Doc comments in this binary are clap's help text, printed verbatim: `<file>`
// there is a placeholder for the user, not an HTML tag.
#![allow(rustdoc::invalid_html_tags)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod engine;
mod referee;

/// Self-play reinforcement learning for Shax, the Somali mill game, and the
/// rest of the mill family (shax-flying, nine-mens-morris, morabaraba).
#[derive(Parser, Debug)]
#[command(name = "shax", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the game tree to a depth (checks the rules core).
    Perft(cmd::perft::Args),
    /// Speak the engine protocol (UCI dialect of the Sanmill mill engine) on stdin/stdout.
    Engine,
    /// Measure what this machine does.
    #[command(subcommand)]
    Bench(cmd::bench::Bench),
    /// Play a match between two players: W/D/L per colour, score, Elo, game records.
    Arena(cmd::arena::Args),
    /// Review recorded games with a searching player: each action's cost, each side's mistakes.
    #[command(visible_alias = "analyze")]
    Analyse(cmd::analyse::Args),
    /// Engine against engine over the engine protocol: refereed games, W/D/L, Elo, records.
    Match(cmd::r#match::Args),
    /// Round robin among players, rated by one Bradley-Terry Elo fit (random = 0).
    Ladder(cmd::ladder::Args),
    /// Networks outside training (`shax net init`).
    #[command(subcommand)]
    Net(cmd::net::Net),
    /// Train a network by self-play: workers, replay window, checkpoints, TensorBoard, evaluation.
    Train(cmd::train::TrainArgs),
    /// Self-play workers only: follow a run's newest checkpoint and write shards into it.
    Selfplay(cmd::train::SelfPlayArgs),
    /// Describe a run directory (config, steps, newest Elo, files) or a checkpoint.
    Inspect(cmd::train::InspectArgs),
    /// Several runs' evaluations side by side, by the trainer's CPU (or wall-clock) hours.
    Compare(cmd::compare::Args),
    /// Print the games of a shard in notation, with their results.
    Replay(cmd::train::ReplayArgs),
    /// Play a game in the terminal against a difficulty tier or any player.
    Play(cmd::play::Args),
    /// Calibrate five difficulty tiers from checkpoints and write their manifest.
    Tiers(cmd::tiers::Args),
    /// Fit the alpha-beta evaluation's weights to self-play games (a regression on results).
    TuneEval(cmd::tune::Args),
    /// Serve the JSON API for game backends and a page to play the tiers in a browser.
    Serve(cmd::serve::Args),
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Perft(args) => cmd::perft::run(args),
        Command::Engine => engine::run_stdio(),
        Command::Bench(b) => cmd::bench::run(b),
        Command::Arena(args) => cmd::arena::run(args),
        Command::Analyse(args) => cmd::analyse::run(args),
        Command::Match(args) => cmd::r#match::run(args),
        Command::Ladder(args) => cmd::ladder::run(args),
        Command::Net(n) => cmd::net::run(n),
        Command::Train(args) => cmd::train::train_cmd(args),
        Command::Selfplay(args) => cmd::train::selfplay_cmd(args),
        Command::Inspect(args) => cmd::train::inspect_cmd(args),
        Command::Compare(args) => cmd::compare::run(args),
        Command::Replay(args) => cmd::train::replay_cmd(args),
        Command::Play(args) => cmd::play::run(args),
        Command::Tiers(args) => cmd::tiers::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::TuneEval(args) => cmd::tune::run(args),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped early (`shax replay ... | head`) is not an error.
        Err(e) if broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Whether `e` comes from writing to a pipe whose reader has gone.
fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

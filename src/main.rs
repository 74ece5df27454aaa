//! `shax`: the command line. Parsing and dispatch only: `main` calls `run`,
//! one function per subcommand, exit codes decided here.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod engine;

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
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Perft(args) => cmd::perft::run(args),
        Command::Engine => engine::run_stdio(),
        Command::Bench(b) => cmd::bench::run(b),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

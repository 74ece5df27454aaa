//! `shax perft`.

use std::io::Write as _;
use std::time::Instant;

use anyhow::Context as _;
use shax_core::{Depth, Position, Rules, perft, perft_divide};

/// Count the leaves of the game tree.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rules: a preset (shax, shax-flying, nine-mens-morris, morabaraba) or a rules TOML file.
    #[arg(long, default_value = "shax")]
    rules: String,
    /// Depth in plies (a removal is its own ply), or in turns with --turns.
    #[arg(long)]
    depth: u32,
    /// Count a place or move together with the removals it earns as one turn.
    #[arg(long)]
    turns: bool,
    /// Start from this position string instead of the starting position.
    #[arg(long)]
    fen: Option<String>,
    /// Print the count below each legal action first.
    #[arg(long)]
    divide: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let rules = Rules::load(&args.rules)?;
    let pos = match &args.fen {
        Some(f) => Position::from_fen(rules, f).context("--fen")?,
        None => Position::new(rules),
    };
    let mode = if args.turns {
        Depth::Turns
    } else {
        Depth::Plies
    };
    let t = Instant::now();
    let mut out = super::stdout();
    if args.divide {
        let mut total = 0;
        for (a, n) in perft_divide(&pos, args.depth, mode) {
            writeln!(out, "{a}: {n}")?;
            total += n;
        }
        writeln!(out, "{total}")?;
    } else {
        let n = perft(&pos, args.depth, mode);
        eprintln!("{:.3} s", t.elapsed().as_secs_f64());
        writeln!(out, "{n}")?;
    }
    Ok(())
}

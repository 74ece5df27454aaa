//! `shax tiers`: calibrate difficulty tiers from trained checkpoints
//! (`shax_train::calibrate`) and print them.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use shax_core::Rules;
use shax_train::{Calibration, TiersConfig, TiersObserver, calibrate, find_checkpoints};

use super::progress::with_progress;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rules: a preset (tiers ship per preset).
    #[arg(long, default_value = "shax")]
    rules: String,
    /// The tiers to make, weakest first: all five, or fewer of them for a game
    /// with room for fewer distinct strengths (e.g. `beginner,medium,master`).
    #[arg(long, value_delimiter = ',', default_values = shax_bot::TIERS)]
    tiers: Vec<String>,
    /// A run directory (every `.bpk` under it) or a comma-separated list of checkpoints.
    #[arg(long)]
    candidates: String,
    /// Checkpoints taken from the candidates, spread over their ages (oldest to newest).
    #[arg(long, default_value_t = 4)]
    checkpoints: usize,
    /// Simulation counts tried for each checkpoint.
    #[arg(long, value_delimiter = ',', default_values_t = vec![1u32, 8, 64])]
    sims: Vec<u32>,
    /// Move temperatures tried for each checkpoint and simulation count.
    #[arg(long, value_delimiter = ',', default_values_t = vec![0.0f32, 1.0])]
    temps: Vec<f32>,
    /// More candidates (any player specs, `;`-separated): classic players for the
    /// bottom tiers, or a network at a high simulation count for the top.
    #[arg(
        long,
        value_delimiter = ';',
        default_value = "greedy;alphabeta:depth=2"
    )]
    classic: Vec<String>,
    /// The player `beginner` must be rated below, and score under 50% against in
    /// a full match of --games; it must be among the candidates. Empty: no such
    /// bound.
    #[arg(long, default_value = "alphabeta:depth=2")]
    beginner_below: String,
    /// A player pinned as `master` (any spec; added to the candidates when not
    /// among them): the other tiers are chosen among the candidates rated
    /// below it. Default: the strongest candidate, by the ladder.
    #[arg(long)]
    master: Option<String>,
    /// The score against `random` the weakest tier must reach: the ladder's
    /// ratings guide the first choice, a full match of --games checks it. Lower
    /// it for a game where chance decides many games (in shax-flying the
    /// strongest players score about 90%).
    #[arg(long, default_value_t = 0.9)]
    beginner_floor: f64,
    /// The band every tier's score against the tier below must fall in: low,high.
    #[arg(long, value_delimiter = ',', default_values_t = vec![0.60f64, 0.85])]
    band: Vec<f64>,
    /// Games of a screening match, before a pair that looks in the band gets its full `--games`.
    #[arg(long, default_value_t = 40)]
    screen_games: u32,
    /// Candidates tried for each tier before the closest one is kept.
    #[arg(long, default_value_t = 6)]
    tries: u32,
    /// Games per pair in the calibration ladder.
    #[arg(long, default_value_t = 10)]
    ladder_games: u32,
    /// Games between neighbouring tiers (their reported scores).
    #[arg(long, default_value_t = 200)]
    games: u32,
    /// Worker threads; 0: one per core.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Games each thread keeps going at once, the network players' leaves of all of
    /// them in one network call (1 to 1024; as in `shax arena`).
    #[arg(long, default_value_t = 32)]
    games_in_flight: usize,
    /// Master seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The manifest to write; the chosen checkpoints are copied beside it.
    /// Default: checkpoints/<rules>/tiers.toml.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write --out even when a tier misses --band. Without it such a manifest is written
    /// beside it as `<name>.out-of-band.toml`, --out is left as it was, and the command
    /// ends with an error (exit status 2).
    #[arg(long)]
    accept_out_of_band: bool,
}

/// Progress lines on stderr, match progress as bars or a line a minute.
struct Console;

impl TiersObserver for Console {
    fn line(&mut self, line: &str) {
        eprintln!("{line}");
    }

    fn with_progress(
        &mut self,
        what: &str,
        games: u64,
        run: &mut dyn FnMut(Option<Arc<AtomicU64>>),
    ) {
        with_progress(what, games, run);
    }
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let cfg = config(a)?;
    let c = calibrate(&cfg, &mut Console)?;
    // A reader gone from stdout does not hide a failed calibration: the
    // verdict below comes first, the broken pipe after.
    let printed = print_calibration(&mut super::stdout(), &c);
    if c.passed() {
        return Ok(printed?);
    }
    let missed = if c.all_in_band {
        "beginner failed a check (see above)".to_string()
    } else {
        format!(
            "not every tier scores {:.0}%-{:.0}% against the one below (see above)",
            100.0 * cfg.band.0,
            100.0 * cfg.band.1
        )
    };
    if cfg.accept_out_of_band {
        eprintln!("warning: {missed}");
        return Ok(printed?);
    }
    anyhow::bail!(
        "{missed}: the manifest went to {} and {} is unchanged; \
         pass --accept-out-of-band to write it there",
        c.written.display(),
        cfg.out.display()
    )
}

/// The calibration the flags ask for.
fn config(a: Args) -> anyhow::Result<TiersConfig> {
    let &[low, high] = a.band.as_slice() else {
        anyhow::bail!("--band takes two scores, low,high (e.g. --band 0.6,0.85)");
    };
    let rules = Rules::load(&a.rules)?;
    let dir = Path::new(&a.candidates);
    let candidates = if dir.is_dir() {
        find_checkpoints(dir)?
    } else {
        a.candidates.split(',').map(PathBuf::from).collect()
    };
    let out = a
        .out
        .unwrap_or_else(|| PathBuf::from(format!("checkpoints/{}/tiers.toml", rules.name())));
    Ok(TiersConfig {
        rules,
        tiers: a.tiers,
        candidates,
        checkpoints: a.checkpoints,
        sims: a.sims,
        temps: a.temps,
        classic: a.classic,
        beginner_below: Some(a.beginner_below).filter(|b| !b.is_empty()),
        master: a.master,
        beginner_floor: a.beginner_floor,
        band: (low, high),
        screen_games: a.screen_games,
        tries: a.tries,
        ladder_games: a.ladder_games,
        games: a.games,
        threads: a.threads,
        games_in_flight: a.games_in_flight,
        seed: a.seed,
        out,
        accept_out_of_band: a.accept_out_of_band,
    })
}

/// The tiers chosen, beginner's checks and where the manifest went, on stdout.
fn print_calibration(out: &mut dyn Write, c: &Calibration) -> io::Result<()> {
    writeln!(
        out,
        "{:<9} {:>7} {:>17} {:>10}  player",
        "tier", "Elo", "95% interval", "vs below"
    )?;
    for t in &c.manifest.tiers {
        writeln!(
            out,
            "{:<9} {:>7.0} {:>8.0} {:>8.0} {:>10}  {}",
            t.name,
            t.elo,
            t.elo_low,
            t.elo_high,
            t.score_vs_below
                .map_or("-".to_string(), |s| format!("{:.1}%", 100.0 * s)),
            t.player
        )?;
    }
    for check in &c.checks {
        writeln!(out, "{check}")?;
    }
    writeln!(out, "wrote {}", c.written.display())
}

//! `shax ladder`: a round robin among player specs, rated by one
//! Bradley-Terry fit with `random` pinned at 0.

use std::io::{self, Write};
use std::path::PathBuf;

use anyhow::Context;
use shax_core::Rules;
use shax_train::{LadderConfig, LadderResult, run_ladder, write_records};

use super::arena::default_path;
use super::players::{registry, split_specs};
use super::progress::with_progress;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rules: a preset name or a rules TOML file.
    #[arg(long, default_value = "shax")]
    rules: String,
    /// Player specs, comma-separated (a spec's own key=value parameters stay
    /// with it; `;` also separates), or the flag repeated.
    #[arg(long, required = true)]
    players: Vec<String>,
    /// Games per pair; each random opening is played once with each colour.
    #[arg(long, default_value_t = 20)]
    games: u32,
    /// Worker threads; 0: one per core.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Games each thread keeps going at once, the network players' leaves of all of
    /// them in one network call (1 to 1024; as in `shax arena`).
    #[arg(long, default_value_t = 1)]
    games_in_flight: usize,
    /// Master seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Random actions that open every game (0 to 40).
    #[arg(long, default_value_t = 4)]
    openings: u32,
    /// Print the JSON instead of the table.
    #[arg(long)]
    json: bool,
    /// The ratings as JSON; default runs/ladder-<UTC time>-<pid>.json.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Game records (JSON lines); default beside --out with extension .jsonl.
    #[arg(long)]
    records: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let rules = Rules::load(&args.rules)?;
    let players: Vec<String> = args.players.iter().flat_map(|p| split_specs(p)).collect();
    let refs: Vec<&str> = players.iter().map(String::as_str).collect();
    let cfg = LadderConfig {
        games_per_pair: args.games,
        threads: args.threads,
        games_in_flight: args.games_in_flight,
        seed: args.seed,
        opening_plies: args.openings,
        ..LadderConfig::new(rules, &refs)
    };
    let r = with_progress("ladder", cfg.total_games(), |progress| {
        run_ladder(&LadderConfig { progress, ..cfg }, &registry(rules))
    })?;
    let out = match args.out {
        Some(p) => p,
        None => default_path("ladder", "json")?,
    };
    let records = args.records.unwrap_or_else(|| out.with_extension("jsonl"));
    let json = serde_json::to_string_pretty(&r)?;
    shax_nn::write_atomic(&out, format!("{json}\n").as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    write_records(&records, &r.records)
        .with_context(|| format!("writing {}", records.display()))?;
    let mut w = super::stdout();
    if args.json {
        writeln!(w, "{json}")?;
    } else {
        table(&mut w, &r)?;
        writeln!(
            w,
            "ratings: {}   records: {}",
            out.display(),
            records.display()
        )?;
    }
    Ok(())
}

fn table(out: &mut dyn Write, r: &LadderResult) -> io::Result<()> {
    writeln!(
        out,
        "ladder: rules {}, {} pairs, {} threads, seed {}, {:.1} s; Elo anchored at {} = 0",
        r.rules,
        r.pairs.len(),
        r.threads,
        r.seed,
        r.seconds,
        r.anchor
    )?;
    let w = r
        .ratings
        .iter()
        .map(|x| x.player.len())
        .max()
        .unwrap_or(6)
        .max(6);
    writeln!(
        out,
        "{:>4}  {:<w$}  {:>7}  {:>17}  {:>6}  {:>6}",
        "rank", "player", "Elo", "95% interval", "games", "score"
    )?;
    for (i, x) in r.ratings.iter().enumerate() {
        writeln!(
            out,
            "{:>4}  {:<w$}  {:>+7.0}  [{:>+6.0}, {:>+6.0}]  {:>6}  {:>5.1}%",
            i + 1,
            x.player,
            x.elo,
            x.elo_low,
            x.elo_high,
            x.games,
            100.0 * x.score
        )?;
    }
    writeln!(out, "pairs (A-B: A wins / draws / B wins):")?;
    for p in &r.pairs {
        writeln!(
            out,
            "  {} - {}: {} / {} / {}",
            p.a, p.b, p.a_wins, p.draws, p.b_wins
        )?;
    }
    Ok(())
}

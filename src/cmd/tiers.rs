//! `shax tiers`: calibrate five difficulty tiers from trained checkpoints and
//! write the manifest that `tier:<name>`, `shax play --tier` and
//! `shax_bot::Bot::from_tier` read.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use shax_bot::{TIERS, TierEntry, TierManifest};
use shax_core::Rules;
use shax_train::{ArenaConfig, LadderConfig, run_arena, run_ladder};

use super::players::registry;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rules: a preset (tiers ship per preset).
    #[arg(long, default_value = "shax")]
    rules: String,
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
    /// Classic players that may fill the bottom tiers.
    #[arg(
        long,
        value_delimiter = ';',
        default_value = "greedy;alphabeta:depth=2"
    )]
    classic: Vec<String>,
    /// Games per pair in the calibration ladder.
    #[arg(long, default_value_t = 10)]
    ladder_games: u32,
    /// Games between neighbouring tiers (their reported scores).
    #[arg(long, default_value_t = 200)]
    games: u32,
    /// Worker threads; 0: one per core.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Master seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The manifest to write; the chosen checkpoints are copied beside it.
    /// Default: checkpoints/<rules>/tiers.toml.
    #[arg(long)]
    out: Option<PathBuf>,
}

fn find_checkpoints(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            find_checkpoints(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "bpk")
            && shax_nn::metadata_path(&path).exists()
        {
            // A network checkpoint has its metadata beside it (optimizer state does not).
            out.push(path);
        }
    }
    Ok(())
}

/// `k` of `items`, evenly spread, the last always included.
fn spread<T: Clone>(items: &[T], k: usize) -> Vec<T> {
    if items.len() <= k {
        return items.to_vec();
    }
    let mut idx: Vec<usize> = (0..k)
        .map(|i| (i * (items.len() - 1)) / (k - 1).max(1))
        .collect();
    idx.dedup();
    idx.into_iter().map(|i| items[i].clone()).collect()
}

/// The tiers: `beginner` the weakest candidate that still scores about 90%
/// against random (Elo 382), `master` the strongest, the three between the
/// candidates nearest to even steps in Elo.
fn choose(ratings: &[(String, f64)]) -> anyhow::Result<Vec<usize>> {
    const NINETY_PERCENT: f64 = 382.0;
    let mut order: Vec<usize> = (0..ratings.len())
        .filter(|&i| ratings[i].0 != "random")
        .collect();
    order.sort_by(|&a, &b| ratings[a].1.total_cmp(&ratings[b].1));
    let Some(&top) = order.last() else {
        bail!("no candidates besides random")
    };
    let bottom = order
        .iter()
        .copied()
        .find(|&i| ratings[i].1 >= NINETY_PERCENT)
        .unwrap_or(order[0]);
    let pool: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| ratings[i].1 >= ratings[bottom].1)
        .collect();
    if pool.len() < TIERS.len() {
        bail!(
            "only {} candidates at or above the beginner's strength; five tiers need five (add checkpoints, sims or temps)",
            pool.len()
        );
    }
    let (lo, hi) = (ratings[bottom].1, ratings[top].1);
    let mut chosen = vec![bottom];
    for k in 1..TIERS.len() - 1 {
        let target = lo + (hi - lo) * k as f64 / (TIERS.len() - 1) as f64;
        let last = *chosen.last().expect("beginner chosen");
        // Nearest to the target above the previous tier, leaving room for the rest.
        let remaining = TIERS.len() - 1 - k;
        let start = pool.iter().position(|&i| i == last).expect("in pool") + 1;
        let end = pool.len() - remaining;
        let best = pool[start..end]
            .iter()
            .copied()
            .min_by(|&a, &b| {
                (ratings[a].1 - target)
                    .abs()
                    .total_cmp(&(ratings[b].1 - target).abs())
            })
            .expect("room for every tier");
        chosen.push(best);
    }
    chosen.push(top);
    Ok(chosen)
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let rules = Rules::load(&a.rules)?;
    if a.games == 0 || a.ladder_games == 0 {
        bail!("--games and --ladder-games must be at least 1");
    }
    if a.checkpoints == 0 || a.sims.is_empty() || a.temps.is_empty() {
        bail!("--checkpoints, --sims and --temps need at least one value each");
    }
    let mut found = Vec::new();
    let dir = Path::new(&a.candidates);
    if dir.is_dir() {
        find_checkpoints(dir, &mut found).with_context(|| format!("reading {}", dir.display()))?;
        found.sort();
    } else {
        found = a.candidates.split(',').map(PathBuf::from).collect();
    }
    if found.is_empty() {
        bail!("no checkpoints (.bpk) in {}", a.candidates);
    }
    let ckpts = spread(&found, a.checkpoints);
    let mut specs = vec!["random".to_string()];
    specs.extend(a.classic.iter().filter(|s| !s.is_empty()).cloned());
    for c in &ckpts {
        for &s in &a.sims {
            for &t in &a.temps {
                specs.push(if t > 0.0 {
                    format!("net:{},sims={s},temp={t}", c.display())
                } else {
                    format!("net:{},sims={s}", c.display())
                });
            }
        }
    }
    let reg = registry(rules);
    for s in &specs {
        reg.build_str(s).with_context(|| format!("candidate {s}"))?;
    }
    eprintln!(
        "tiers: {} candidates ({} checkpoints), ladder {} games per pair",
        specs.len(),
        ckpts.len(),
        a.ladder_games
    );
    let refs: Vec<&str> = specs.iter().map(String::as_str).collect();
    let ladder = run_ladder(
        &LadderConfig {
            games_per_pair: a.ladder_games,
            threads: a.threads,
            seed: a.seed,
            ..LadderConfig::new(rules, &refs)
        },
        &reg,
    )?;
    let ratings: Vec<(String, f64)> = ladder
        .ratings
        .iter()
        .map(|r| (r.player.clone(), r.elo))
        .collect();
    for r in &ladder.ratings {
        eprintln!(
            "  {:>7.0}  [{:>6.0}, {:>6.0}]  {}",
            r.elo, r.elo_low, r.elo_high, r.player
        );
    }
    let chosen = choose(&ratings)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("checkpoints/{}/tiers.toml", rules.name())));
    let out_dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;

    let mut tiers: Vec<TierEntry> = Vec::new();
    let mut total_games = ladder.pairs.iter().map(|p| p.games).sum::<u64>();
    for (k, &i) in chosen.iter().enumerate() {
        let r = &ladder.ratings[i];
        let spec: shax_search::PlayerSpec = r.player.parse()?;
        // Copy the checkpoint beside the manifest; the spec names it relatively.
        let (player, checkpoint) = if spec.kind == "net" {
            let src = PathBuf::from(&spec.args[0]);
            // A trainer checkpoint is `<run>/checkpoints/step-N/net.bpk`: name the
            // copy after its folder, so networks of different steps do not collide.
            let file = src
                .file_name()
                .context("checkpoint file name")?
                .to_string_lossy()
                .to_string();
            let name = match src
                .parent()
                .and_then(|d| d.file_name())
                .map(|d| d.to_string_lossy())
            {
                Some(dir) if dir.starts_with("step-") => format!("{dir}.bpk"),
                _ => file,
            };
            let dst = out_dir.join(&name);
            if src != dst {
                std::fs::copy(&src, &dst).with_context(|| format!("copying {}", src.display()))?;
                let (ms, md) = (shax_nn::metadata_path(&src), shax_nn::metadata_path(&dst));
                std::fs::copy(&ms, &md).with_context(|| format!("copying {}", ms.display()))?;
            }
            let mut rel = spec.clone();
            rel.args[0] = name.clone();
            (rel.to_string(), Some(name))
        } else {
            (r.player.clone(), None)
        };
        let (score_vs_below, games_vs_below) = if k == 0 {
            (None, 0)
        } else {
            let below = &ladder.ratings[chosen[k - 1]].player;
            let m = run_arena(
                &ArenaConfig {
                    games: a.games,
                    threads: a.threads,
                    seed: a.seed ^ k as u64,
                    ..ArenaConfig::new(rules, &r.player, below)
                },
                &reg,
            )?;
            total_games += m.games;
            eprintln!(
                "  {} vs {}: {:.1}% of {} games",
                TIERS[k],
                TIERS[k - 1],
                100.0 * m.score,
                m.games
            );
            (Some(m.score), m.games as u32)
        };
        tiers.push(TierEntry {
            name: TIERS[k].to_string(),
            player,
            checkpoint,
            elo: r.elo,
            elo_low: r.elo_low,
            elo_high: r.elo_high,
            score_vs_below,
            games_vs_below,
        });
    }
    let manifest = TierManifest {
        format_version: shax_bot::MANIFEST_VERSION,
        rules: rules.name(),
        created: shax_nn::utc_string(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        ),
        ladder_games_per_pair: a.ladder_games,
        total_games,
        tiers,
    };
    manifest.save(&out)?;
    println!(
        "{:<9} {:>7} {:>17} {:>10}  player",
        "tier", "Elo", "95% interval", "vs below"
    );
    for t in &manifest.tiers {
        println!(
            "{:<9} {:>7.0} {:>8.0} {:>8.0} {:>10}  {}",
            t.name,
            t.elo,
            t.elo_low,
            t.elo_high,
            t.score_vs_below
                .map_or("-".to_string(), |s| format!("{:.1}%", 100.0 * s)),
            t.player
        );
    }
    println!("wrote {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choose_spaces_tiers_evenly_from_ninety_percent_to_the_top() {
        let r: Vec<(String, f64)> = [
            0.0, 100.0, 400.0, 450.0, 600.0, 640.0, 800.0, 1000.0, 1200.0,
        ]
        .iter()
        .enumerate()
        .map(|(i, &e)| {
            (
                if i == 0 {
                    "random".to_string()
                } else {
                    format!("p{i}")
                },
                e,
            )
        })
        .collect();
        let c = choose(&r).unwrap();
        let elos: Vec<f64> = c.iter().map(|&i| r[i].1).collect();
        // Beginner: the weakest at or above 382; master: the strongest;
        // targets 600, 800, 1000 in between.
        assert_eq!(elos, [400.0, 600.0, 800.0, 1000.0, 1200.0]);
        let few: Vec<(String, f64)> = r[..5].to_vec();
        assert!(choose(&few).is_err());
    }

    #[test]
    fn spread_keeps_the_oldest_and_the_newest() {
        let v: Vec<u32> = (0..10).collect();
        assert_eq!(spread(&v, 4), [0, 3, 6, 9]);
        assert_eq!(spread(&v[..3], 4), [0, 1, 2]);
    }
}

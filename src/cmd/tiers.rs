//! `shax tiers`: calibrate five difficulty tiers from trained checkpoints and
//! write the manifest that `tier:<name>`, `shax play --tier` and
//! `shax_bot::Bot::from_tier` read.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use shax_bot::{TIERS, TierEntry, TierManifest};
use shax_core::Rules;
use shax_train::{ArenaConfig, LadderConfig, run_arena, run_ladder};

use super::players::registry;
use super::progress::with_progress;

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
    /// More candidates (any player specs, `;`-separated): classic players for the
    /// bottom tiers, or a network at a high simulation count for the top.
    #[arg(
        long,
        value_delimiter = ';',
        default_value = "greedy;alphabeta:depth=2"
    )]
    classic: Vec<String>,
    /// The player `beginner` must be rated below (it loses to it more often than
    /// it wins); it must be among the candidates. Empty: no such bound.
    #[arg(long, default_value = "alphabeta:depth=2")]
    beginner_below: String,
    /// The band every tier's score against the tier below must fall in.
    #[arg(long, value_delimiter = ',', num_args = 2, default_values_t = vec![0.60f64, 0.85])]
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

/// Elo of a player that scores 90% against the anchor (`random`).
const NINETY_PERCENT: f64 = 382.0;

/// The candidates eligible for a tier, weakest first: every one rated at or
/// above the weakest that still scores about 90% against random.
fn eligible(ratings: &[(String, f64)]) -> anyhow::Result<Vec<usize>> {
    let mut order: Vec<usize> = (0..ratings.len())
        .filter(|&i| ratings[i].0 != "random")
        .collect();
    order.sort_by(|&a, &b| ratings[a].1.total_cmp(&ratings[b].1));
    if order.is_empty() {
        bail!("no candidates besides random")
    }
    let first = order
        .iter()
        .position(|&i| ratings[i].1 >= NINETY_PERCENT)
        .unwrap_or(0);
    let pool = order.split_off(first);
    if pool.len() < TIERS.len() {
        bail!(
            "only {} candidates at or above the beginner's strength; five tiers need five (add checkpoints, sims or temps)",
            pool.len()
        );
    }
    Ok(pool)
}

/// The first guess, as positions in `pool`: `beginner` the weakest, `master`
/// the strongest, the three between the candidates nearest to even steps in
/// (ladder) Elo.
fn choose(ratings: &[(String, f64)], pool: &[usize]) -> Vec<usize> {
    let elo = |p: usize| ratings[pool[p]].1;
    let top = pool.len() - 1;
    let (lo, hi) = (elo(0), elo(top));
    let mut chosen = vec![0];
    for k in 1..TIERS.len() - 1 {
        let target = lo + (hi - lo) * k as f64 / (TIERS.len() - 1) as f64;
        let last = *chosen.last().expect("beginner chosen");
        // Nearest to the target above the previous tier, leaving room for the rest.
        let end = pool.len() - (TIERS.len() - 1 - k);
        let best = (last + 1..end)
            .min_by(|&a, &b| (elo(a) - target).abs().total_cmp(&(elo(b) - target).abs()))
            .expect("room for every tier");
        chosen.push(best);
    }
    chosen.push(top);
    chosen
}

/// Games between two tiers, from the stronger one's side.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Tally {
    games: u64,
    wins: u64,
    draws: u64,
}

impl Tally {
    fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }

    fn add(self, o: Tally) -> Tally {
        Tally {
            games: self.games + o.games,
            wins: self.wins + o.wins,
            draws: self.draws + o.draws,
        }
    }
}

/// How far a score lies outside the band (0 inside).
fn miss(score: f64, band: (f64, f64)) -> f64 {
    (band.0 - score).max(score - band.1).max(0.0)
}

/// `tally` (a screen) made up to a full match of `games` games.
fn complete(
    play: &mut impl FnMut(usize, usize, u32, u64) -> anyhow::Result<Tally>,
    upper: usize,
    lower: usize,
    tally: Tally,
    games: u64,
    salt: u64,
) -> anyhow::Result<Tally> {
    if tally.games >= games {
        return Ok(tally);
    }
    Ok(tally.add(play(upper, lower, (games - tally.games) as u32, salt)?))
}

/// What the head-to-head refinement needs.
struct Refine {
    /// Every tier's score against the one below must fall in it.
    band: (f64, f64),
    /// Games of a screening match.
    screen: u32,
    /// Games of a full match.
    games: u32,
    /// Candidates tried per tier.
    tries: u32,
    /// Positions in the pool below this one may be `beginner`.
    bottom_end: usize,
}

/// Moves the tiers below `master` until each scores inside the band against
/// the one below it, top down: for each tier, a bisection over the candidates
/// between its lower neighbours and itself (in ladder order), screened with a
/// short match and confirmed with a full one. `play(upper, lower, games,
/// salt)` plays positions of the pool. Returns each tier's full match against
/// the one below (`None` for `beginner`) and whether all fell in the band.
fn refine(
    chosen: &mut [usize],
    r: &Refine,
    mut play: impl FnMut(usize, usize, u32, u64) -> anyhow::Result<Tally>,
) -> anyhow::Result<(Vec<Option<Tally>>, bool)> {
    let mut out = vec![None; chosen.len()];
    let mut all_in = true;
    for k in (1..chosen.len()).rev() {
        let upper = chosen[k];
        // Room for the k - 1 tiers below the one searched.
        let lo_bound = k - 1;
        let mut hi_bound = upper.saturating_sub(1);
        if k == 1 {
            hi_bound = hi_bound.min(r.bottom_end.saturating_sub(1));
        }
        if upper == 0 || lo_bound > hi_bound {
            bail!(
                "no candidate left for {} below {} (add checkpoints, sims or temps)",
                TIERS[k - 1],
                TIERS[k]
            );
        }
        let (mut lo, mut hi) = (lo_bound, hi_bound);
        let mut p = chosen[k - 1].clamp(lo, hi);
        let games = u64::from(r.games);
        // The closest so far: (miss, only a screen, position, tally).
        let mut best: Option<(f64, bool, usize, Tally)> = None;
        for t in 0..r.tries.max(1) {
            let salt = ((k as u64) << 40) ^ ((t as u64) << 20);
            let mut tally = play(upper, p, r.screen.min(r.games), salt)?;
            if miss(tally.score(), r.band) == 0.0 {
                tally = complete(&mut play, upper, p, tally, games, salt ^ 1)?;
            }
            let m = miss(tally.score(), r.band);
            let key = (m, tally.games < games);
            if best.is_none_or(|b| key < (b.0, b.1)) {
                best = Some((key.0, key.1, p, tally));
            }
            eprintln!(
                "  {} vs {} (candidate {p}): {:.1}% of {} games{}",
                TIERS[k],
                TIERS[k - 1],
                100.0 * tally.score(),
                tally.games,
                if m == 0.0 { "" } else { ", outside the band" }
            );
            if m == 0.0 {
                break;
            }
            if tally.score() > r.band.1 {
                lo = p + 1; // the lower tier is too weak
            } else if p == lo {
                break; // too strong, and nothing weaker is left
            } else {
                hi = p - 1; // too strong
            }
            if lo > hi {
                break;
            }
            p = (lo + hi).div_ceil(2);
        }
        let (_, _, p, tally) = best.expect("one try at least");
        let tally = complete(&mut play, upper, p, tally, games, ((k as u64) << 40) ^ 3)?;
        if miss(tally.score(), r.band) > 0.0 {
            all_in = false;
            eprintln!(
                "warning: {} scores {:.1}% against {} (outside {:.0}%-{:.0}%); the closest candidate is kept",
                TIERS[k],
                100.0 * tally.score(),
                TIERS[k - 1],
                100.0 * r.band.0,
                100.0 * r.band.1
            );
        }
        chosen[k - 1] = p;
        out[k] = Some(tally);
    }
    Ok((out, all_in))
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let rules = Rules::load(&a.rules)?;
    if a.games == 0 || a.ladder_games == 0 {
        bail!("--games and --ladder-games must be at least 1");
    }
    if !(0.0 <= a.band[0] && a.band[0] < a.band[1] && a.band[1] <= 1.0) {
        bail!(
            "--band {},{}: needs two scores with 0 <= low < high <= 1",
            a.band[0],
            a.band[1]
        );
    }
    if a.screen_games == 0 || a.tries == 0 {
        bail!("--screen-games and --tries must be at least 1");
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
    if !a.beginner_below.is_empty() && !specs.contains(&a.beginner_below) {
        bail!(
            "--beginner-below {} is not among the candidates (add it to --classic)",
            a.beginner_below
        );
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
    let cfg = LadderConfig {
        games_per_pair: a.ladder_games,
        threads: a.threads,
        seed: a.seed,
        ..LadderConfig::new(rules, &refs)
    };
    let ladder = with_progress("ladder", cfg.total_games(), |progress| {
        run_ladder(&LadderConfig { progress, ..cfg }, &reg)
    })?;
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
    let pool = eligible(&ratings)?;
    let bottom_end = if a.beginner_below.is_empty() {
        pool.len()
    } else {
        let bound = ratings
            .iter()
            .find(|r| r.0 == a.beginner_below)
            .context("the bound was rated")?
            .1;
        pool.iter().take_while(|&&i| ratings[i].1 < bound).count()
    };
    if bottom_end == 0 {
        bail!(
            "no candidate is rated between 90% against random and {}: beginner needs one",
            a.beginner_below
        );
    }
    let mut chosen = choose(&ratings, &pool);
    let mut total_games = ladder.pairs.iter().map(|p| p.games).sum::<u64>();
    let spec_of = |p: usize| ladder.ratings[pool[p]].player.clone();
    let (matches, all_in) = refine(
        &mut chosen,
        &Refine {
            band: (a.band[0], a.band[1]),
            screen: a.screen_games,
            games: a.games,
            tries: a.tries,
            bottom_end,
        },
        |upper, lower, games, salt| {
            let m = with_progress("match", games.into(), |progress| {
                let cfg = ArenaConfig {
                    games,
                    threads: a.threads,
                    seed: a.seed ^ salt ^ ((upper as u64) << 8) ^ lower as u64,
                    progress,
                    ..ArenaConfig::new(rules, &spec_of(upper), &spec_of(lower))
                };
                run_arena(&cfg, &reg)
            })?;
            total_games += m.games;
            Ok(Tally {
                games: m.games,
                wins: m.a_wins,
                draws: m.draws,
            })
        },
    )?;
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
    for (k, &p) in chosen.iter().enumerate() {
        let r = &ladder.ratings[pool[p]];
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
        let (score_vs_below, games_vs_below) = match matches[k] {
            Some(t) => (Some(t.score()), t.games as u32),
            None => (None, 0),
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
    if !all_in {
        eprintln!(
            "warning: not every tier scores {:.0}%-{:.0}% against the one below (see above)",
            100.0 * a.band[0],
            100.0 * a.band[1]
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratings(elos: &[f64]) -> Vec<(String, f64)> {
        elos.iter()
            .enumerate()
            .map(|(i, &e)| {
                let name = if i == 0 {
                    "random".to_string()
                } else {
                    format!("p{i}")
                };
                (name, e)
            })
            .collect()
    }

    #[test]
    fn choose_spaces_tiers_evenly_from_ninety_percent_to_the_top() {
        let r = ratings(&[
            0.0, 100.0, 400.0, 450.0, 600.0, 640.0, 800.0, 1000.0, 1200.0,
        ]);
        let pool = eligible(&r).unwrap();
        // Beginner: the weakest at or above 382; master: the strongest;
        // targets 600, 800, 1000 in between.
        let elos: Vec<f64> = choose(&r, &pool).iter().map(|&p| r[pool[p]].1).collect();
        assert_eq!(elos, [400.0, 600.0, 800.0, 1000.0, 1200.0]);
        assert!(eligible(&r[..5]).is_err());
    }

    /// 60%-85%, 40-game screens, 200-game matches, six tries.
    fn band_60_85(bottom_end: usize) -> Refine {
        Refine {
            band: (0.6, 0.85),
            screen: 40,
            games: 200,
            tries: 6,
            bottom_end,
        }
    }

    /// A match between pool positions whose true strengths are `elo`: the
    /// expected score, rounded to whole games (so the test is exact).
    fn simulated(elo: &[f64]) -> impl FnMut(usize, usize, u32, u64) -> anyhow::Result<Tally> + '_ {
        move |upper, lower, games, _| {
            assert!(upper > lower, "the stronger tier plays the weaker");
            let e = 1.0 / (1.0 + 10f64.powf((elo[lower] - elo[upper]) / 400.0));
            Ok(Tally {
                games: games as u64,
                wins: (e * games as f64).round() as u64,
                draws: 0,
            })
        }
    }

    #[test]
    fn refine_moves_tiers_until_every_neighbour_score_is_in_the_band() {
        // True strengths: the top is far above the rest (the even ladder guess
        // would give it a 95% step), and intermediate candidates exist.
        let elo = [
            400.0, 500.0, 600.0, 700.0, 800.0, 900.0, 1000.0, 1100.0, 1300.0, 1400.0,
        ];
        let mut chosen = vec![0, 2, 4, 6, 9];
        let r = band_60_85(elo.len());
        let (m, all_in) = refine(&mut chosen, &r, simulated(&elo)).unwrap();
        assert!(all_in);
        assert!(chosen.windows(2).all(|w| w[0] < w[1]), "{chosen:?}");
        assert_eq!(chosen[4], 9, "master stays the strongest");
        assert!(m[0].is_none());
        for (k, t) in m.iter().enumerate().skip(1) {
            let t = t.unwrap();
            assert_eq!(t.games, 200, "full matches are reported");
            assert!((0.6..=0.85).contains(&t.score()), "tier {k}: {}", t.score());
        }
    }

    #[test]
    fn refine_keeps_the_closest_and_says_so_when_no_candidate_fits() {
        // Every candidate is 600 Elo from its neighbour: every step is too wide.
        let elo = [0.0, 600.0, 1200.0, 1800.0, 2400.0, 3000.0];
        let mut chosen = vec![0, 1, 2, 3, 5];
        let r = band_60_85(elo.len());
        let (m, all_in) = refine(&mut chosen, &r, simulated(&elo)).unwrap();
        assert!(!all_in);
        assert!(chosen.windows(2).all(|w| w[0] < w[1]), "{chosen:?}");
        assert_eq!(chosen[4], 5);
        assert_eq!(m[4].unwrap().games, 200);
        assert!(m[4].unwrap().score() > 0.85);
    }

    #[test]
    fn refine_keeps_beginner_below_its_bound() {
        let elo = [400.0, 450.0, 500.0, 900.0, 1000.0, 1100.0, 1200.0];
        let mut chosen = vec![0, 3, 4, 5, 6];
        let r = band_60_85(2);
        let (_, all_in) = refine(&mut chosen, &r, simulated(&elo)).unwrap();
        // Easy (900) is 91% over any allowed beginner (400 or 450).
        assert!(!all_in);
        assert!(chosen[0] < 2, "{chosen:?}");
    }

    #[test]
    fn spread_keeps_the_oldest_and_the_newest() {
        let v: Vec<u32> = (0..10).collect();
        assert_eq!(spread(&v, 4), [0, 3, 6, 9]);
        assert_eq!(spread(&v[..3], 4), [0, 1, 2]);
    }
}

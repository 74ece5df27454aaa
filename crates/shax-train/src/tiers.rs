//! Tier calibration (`shax tiers`): five difficulty tiers chosen from trained
//! checkpoints (at several simulation counts and temperatures) and classic
//! players, written as the manifest that `tier:<name>`, `shax play --tier`
//! and `shax_bot::Bot::from_tier` read.
//!
//! A ladder rates every candidate; the first guess spaces the tiers evenly in
//! Elo from the weakest candidate that scores about 90% against `random` to
//! the strongest; then the tiers are settled head to head, top down, until
//! each scores inside a band against the one below (see [`calibrate`]), and
//! the weakest tier plays its checks against `random` and
//! `--beginner-below` (and gives way to a candidate that passes them, where
//! one fits under the tier above: see `beginner.rs`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use shax_bot::{BotError, TIERS, TierEntry, TierManifest};
use shax_core::Rules;
use shax_search::{PlayerSpec, SpecError};

use crate::arena::{ArenaConfig, ArenaError, run_arena};
use crate::elo::elo_from_score;
use crate::ladder::{LadderConfig, LadderResult, run_ladder};
use crate::paths::step_of_folder;

mod beginner;
mod refine;

pub use beginner::{BeginnerCheck, Need};
use beginner::{Checks, settle_beginner};
pub use refine::Tally;
use refine::{Matches, Played, Refine, all_in_band, refine};

/// What to calibrate from, and how.
#[derive(Clone, Debug)]
pub struct TiersConfig {
    /// The rules (a preset: tiers ship per preset).
    pub rules: Rules,
    /// The tiers to make, weakest first: all of [`TIERS`] or some of them in
    /// their order (a game with room for fewer distinct strengths).
    pub tiers: Vec<String>,
    /// Network checkpoints (`.bpk`), oldest first ([`find_checkpoints`]).
    pub candidates: Vec<PathBuf>,
    /// Checkpoints taken from the candidates, spread over their ages.
    pub checkpoints: usize,
    /// Simulation counts tried for each checkpoint.
    pub sims: Vec<u32>,
    /// Move temperatures tried for each checkpoint and simulation count.
    pub temps: Vec<f32>,
    /// More candidates: any player specs.
    pub classic: Vec<String>,
    /// The candidate `beginner` must be rated below, if any.
    pub beginner_below: Option<String>,
    /// A player pinned as the top tier (added to the candidates when not
    /// among them); the tiers below are chosen among the candidates rated
    /// below it. `None`: the strongest candidate is the top tier.
    pub master: Option<String>,
    /// The score against `random` the weakest tier must reach: a rough
    /// guide by the ladder's ratings for the first guess, then a full match
    /// ([`BeginnerCheck`]); 0.9 in games that reward skill from the first
    /// move, lower where chance decides many games (Shax with flying).
    pub beginner_floor: f64,
    /// The band every tier's score against the tier below must fall in.
    pub band: (f64, f64),
    /// Games of a screening match.
    pub screen_games: u32,
    /// Candidates tried per tier before the closest is kept.
    pub tries: u32,
    /// Games per pair in the ladder.
    pub ladder_games: u32,
    /// Games of a full match between neighbouring tiers.
    pub games: u32,
    /// Worker threads; 0: one per core.
    pub threads: usize,
    /// Games each thread keeps going at once, network calls pooled (as
    /// [`crate::ArenaConfig::games_in_flight`]).
    pub games_in_flight: usize,
    /// Master seed.
    pub seed: u64,
    /// The manifest to write; the chosen checkpoints are copied beside it.
    pub out: PathBuf,
    /// Write `out` even when a tier misses the band. Without it such a
    /// manifest goes to [`out_of_band_path`] and `out` is left as it was.
    pub accept_out_of_band: bool,
}

/// Why a calibration could not be done.
#[derive(Debug, thiserror::Error)]
pub enum TiersError {
    /// A setting is out of range or inconsistent.
    #[error("{0}")]
    Config(String),
    /// The candidates cannot make the tiers asked for.
    #[error("{0}")]
    Candidates(String),
    /// A candidate spec does not build.
    #[error("candidate {spec}: {error}")]
    Spec {
        /// The candidate.
        spec: String,
        /// Why it does not build.
        error: Box<SpecError>,
    },
    /// A match could not run.
    #[error(transparent)]
    Arena(#[from] ArenaError),
    /// A checkpoint could not be found or copied.
    #[error("{path}: {message}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// The manifest could not be written.
    #[error(transparent)]
    Manifest(#[from] BotError),
}

/// Where a calibration's messages and match progress go.
pub trait TiersObserver {
    /// A line of progress (ratings, neighbour scores, warnings).
    fn line(&mut self, line: &str);
    /// Runs `run`, a match or ladder of `games` games labelled `what`,
    /// handing it a counter of finished games to show.
    fn with_progress(
        &mut self,
        _what: &str,
        _games: u64,
        run: &mut dyn FnMut(Option<Arc<AtomicU64>>),
    ) {
        run(None);
    }
}

/// What a calibration chose.
#[derive(Clone, Debug)]
pub struct Calibration {
    /// The manifest written.
    pub manifest: TierManifest,
    /// The ladder over every candidate.
    pub ladder: LadderResult,
    /// Whether every tier scored inside the band against the one below.
    pub all_in_band: bool,
    /// The weakest tier's full matches against `random` and
    /// `--beginner-below`.
    pub checks: Vec<BeginnerCheck>,
    /// Where the manifest was written: [`TiersConfig::out`], or
    /// [`out_of_band_path`] of it when a tier missed the band or a check
    /// failed and that was not accepted.
    pub written: PathBuf,
}

impl Calibration {
    /// Every step in the band and every check of the weakest tier passed.
    pub fn passed(&self) -> bool {
        self.all_in_band && self.checks.iter().all(BeginnerCheck::passed)
    }
}

/// Where a manifest with a tier outside the band goes unless accepted:
/// `tiers.toml` becomes `tiers.out-of-band.toml`, beside it.
pub fn out_of_band_path(out: &Path) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or_else(|| "tiers".to_string(), |s| s.to_string_lossy().into_owned());
    let name = match out.extension() {
        Some(ext) => format!("{stem}.out-of-band.{}", ext.to_string_lossy()),
        None => format!("{stem}.out-of-band"),
    };
    out.with_file_name(name)
}

/// Every network checkpoint (`.bpk` with its metadata beside it; optimizer
/// state has none) under `dir`, sorted.
///
/// # Errors
///
/// [`TiersError::Io`] when a folder cannot be read.
pub fn find_checkpoints(dir: &Path) -> Result<Vec<PathBuf>, TiersError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "bpk")
                && shax_nn::metadata_path(&path).exists()
            {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, &mut out).map_err(|e| TiersError::Io {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    out.sort();
    Ok(out)
}

impl TiersConfig {
    /// Checks the settings.
    fn check(&self) -> Result<(), TiersError> {
        let bad = |s: &str| Err(TiersError::Config(s.to_string()));
        if self.games == 0 || self.ladder_games == 0 {
            return bad("--games and --ladder-games must be at least 1");
        }
        let (lo, hi) = self.band;
        if !(0.0 <= lo && lo < hi && hi <= 1.0) {
            return Err(TiersError::Config(format!(
                "--band {lo},{hi}: needs two scores with 0 <= low < high <= 1"
            )));
        }
        if !(0.0..1.0).contains(&self.beginner_floor) {
            return Err(TiersError::Config(format!(
                "--beginner-floor {}: needs a score with 0 <= score < 1",
                self.beginner_floor
            )));
        }
        if self.screen_games == 0 || self.tries == 0 {
            return bad("--screen-games and --tries must be at least 1");
        }
        if self.checkpoints == 0 || self.sims.is_empty() || self.temps.is_empty() {
            return bad("--checkpoints, --sims and --temps need at least one value each");
        }
        if self.candidates.is_empty() {
            return bad("no checkpoints (.bpk) among the candidates");
        }
        check_tier_names(&self.tiers)
    }

    /// Every candidate's spec: `random`, the classic ones, then each spread
    /// checkpoint at each simulation count and temperature.
    fn candidate_specs(&self) -> Vec<String> {
        let mut specs = vec!["random".to_string()];
        specs.extend(self.classic.iter().filter(|s| !s.is_empty()).cloned());
        for c in spread(&self.candidates, self.checkpoints) {
            for &s in &self.sims {
                for &t in &self.temps {
                    specs.push(if t > 0.0 {
                        format!("net:{},sims={s},temp={t}", c.display())
                    } else {
                        format!("net:{},sims={s}", c.display())
                    });
                }
            }
        }
        if let Some(m) = &self.master
            && !specs.contains(m)
        {
            specs.push(m.clone());
        }
        specs
    }
}

/// Checks tier names: at least two, each one of [`TIERS`], in their order.
fn check_tier_names(names: &[String]) -> Result<(), TiersError> {
    let order: Option<Vec<usize>> = names
        .iter()
        .map(|n| TIERS.iter().position(|t| t == n))
        .collect();
    match order {
        Some(o) if o.len() >= 2 && o.windows(2).all(|w| w[0] < w[1]) => Ok(()),
        _ => Err(TiersError::Config(format!(
            "--tiers {}: needs two or more of {}, weakest first",
            names.join(","),
            TIERS.join(", ")
        ))),
    }
}

/// Calibrates the tiers (all five by default) and writes their manifest (and the chosen
/// checkpoints beside it): a ladder over every candidate, a first guess
/// evenly spaced in Elo, then neighbours settled head to head, then the
/// weakest tier's checks ([`BeginnerCheck`]). A manifest with a tier outside
/// the band or a failed check is written to [`out_of_band_path`] instead
/// unless [`TiersConfig::accept_out_of_band`], so a failed calibration does
/// not replace a good manifest.
///
/// # Errors
///
/// [`TiersError`] naming what was wrong; nothing is written then.
pub fn calibrate(
    cfg: &TiersConfig,
    obs: &mut dyn TiersObserver,
) -> Result<Calibration, TiersError> {
    cfg.check()?;
    let registry = shax_bot::registry(cfg.rules);
    let specs = checked_specs(cfg, &registry)?;
    obs.line(&format!(
        "tiers: {} candidates ({} checkpoints), ladder {} games per pair",
        specs.len(),
        cfg.checkpoints.min(cfg.candidates.len()),
        cfg.ladder_games
    ));
    let ladder = play_ladder(cfg, &specs, obs)?;
    let ratings: Vec<(String, f64)> = ladder
        .ratings
        .iter()
        .map(|r| (r.player.clone(), r.elo))
        .collect();
    let mut pool = eligible(
        &ratings,
        cfg.tiers.len(),
        elo_from_score(cfg.beginner_floor),
    )?;
    if let Some(master) = &cfg.master {
        pool = pin_master(&ratings, pool, master, cfg.tiers.len())?;
    }
    let bottom_end = beginner_bound(cfg, &ratings, &pool)?;
    let mut chosen = choose(&ratings, &pool, cfg.tiers.len());
    let mut referee = Referee {
        cfg,
        registry: &registry,
        specs: pool.iter().map(|&i| ratings[i].0.clone()).collect(),
        obs,
        games: ladder.pairs.iter().map(|p| p.games).sum(),
    };
    let refine_cfg = Refine {
        band: cfg.band,
        screen: cfg.screen_games,
        games: cfg.games,
        tries: cfg.tries,
        bottom_end,
        names: cfg.tiers.clone(),
    };
    let mut matches = refine(&mut chosen, &refine_cfg, &mut referee)?;
    let checks = settle_beginner(cfg, &refine_cfg, &mut chosen, &mut matches, &mut referee)?;
    // After settle_beginner: a beginner found there may bring its step into the band.
    let all_in_band = all_in_band(&matches, &refine_cfg, &mut referee);
    let total_games = referee.games;
    let tiers = write_tiers(cfg, &ladder, &pool, &chosen, &matches)?;
    let manifest = TierManifest {
        format_version: shax_bot::MANIFEST_VERSION,
        rules: cfg.rules.name(),
        created: shax_nn::utc_string(crate::run::unix_secs()),
        ladder_games_per_pair: cfg.ladder_games,
        total_games,
        tiers,
    };
    let mut c = Calibration {
        manifest,
        ladder,
        all_in_band,
        checks,
        written: cfg.out.clone(),
    };
    if !c.passed() && !cfg.accept_out_of_band {
        c.written = out_of_band_path(&cfg.out);
    }
    c.manifest.save(&c.written)?;
    Ok(c)
}

/// The candidates' specs, each one that builds, `--beginner-below` among them.
fn checked_specs(
    cfg: &TiersConfig,
    registry: &shax_search::Registry,
) -> Result<Vec<String>, TiersError> {
    let specs = cfg.candidate_specs();
    if let Some(b) = &cfg.beginner_below
        && !specs.contains(b)
    {
        return Err(TiersError::Config(format!(
            "--beginner-below {b} is not among the candidates (add it to --classic)"
        )));
    }
    for s in &specs {
        registry.build_str(s).map_err(|error| TiersError::Spec {
            spec: s.clone(),
            error: Box::new(error),
        })?;
    }
    Ok(specs)
}

/// The ladder over every candidate, its ratings said.
fn play_ladder(
    cfg: &TiersConfig,
    specs: &[String],
    obs: &mut dyn TiersObserver,
) -> Result<LadderResult, TiersError> {
    let refs: Vec<&str> = specs.iter().map(String::as_str).collect();
    let lcfg = LadderConfig {
        games_per_pair: cfg.ladder_games,
        threads: cfg.threads,
        games_in_flight: cfg.games_in_flight,
        seed: cfg.seed,
        ..LadderConfig::new(cfg.rules, &refs)
    };
    let registry = shax_bot::registry(cfg.rules);
    let mut result = None;
    obs.with_progress("ladder", lcfg.total_games(), &mut |progress| {
        result = Some(run_ladder(
            &LadderConfig {
                progress,
                ..lcfg.clone()
            },
            &registry,
        ));
    });
    let ladder = result.expect("the ladder ran")?;
    for r in &ladder.ratings {
        obs.line(&format!(
            "  {:>7.0}  [{:>6.0}, {:>6.0}]  {}",
            r.elo, r.elo_low, r.elo_high, r.player
        ));
    }
    Ok(ladder)
}

/// Positions of the pool below this one may be `beginner` (those rated
/// below `--beginner-below`; the whole pool without the bound).
fn beginner_bound(
    cfg: &TiersConfig,
    ratings: &[(String, f64)],
    pool: &[usize],
) -> Result<usize, TiersError> {
    let Some(below) = &cfg.beginner_below else {
        return Ok(pool.len());
    };
    let bound = ratings
        .iter()
        .find(|r| r.0 == *below)
        .map_or(f64::INFINITY, |r| r.1);
    let end = pool.iter().take_while(|&&i| ratings[i].1 < bound).count();
    if end == 0 {
        return Err(TiersError::Candidates(format!(
            "no candidate is rated between 90% against random and {below}: beginner needs one"
        )));
    }
    Ok(end)
}

/// Plays the refinement's matches between pool positions, counting games.
struct Referee<'a> {
    cfg: &'a TiersConfig,
    registry: &'a shax_search::Registry,
    specs: Vec<String>,
    obs: &'a mut dyn TiersObserver,
    games: u64,
}

impl Referee<'_> {
    /// Plays `a` against `b` (any specs): `a`'s tally.
    fn play_specs(&mut self, a: &str, b: &str, games: u32, seed: u64) -> Played {
        let acfg = ArenaConfig {
            games,
            threads: self.cfg.threads,
            games_in_flight: self.cfg.games_in_flight,
            seed: self.cfg.seed ^ seed,
            ..ArenaConfig::new(self.cfg.rules, a, b)
        };
        let mut result = None;
        let registry = self.registry;
        self.obs
            .with_progress("match", games.into(), &mut |progress| {
                result = Some(run_arena(
                    &ArenaConfig {
                        progress,
                        ..acfg.clone()
                    },
                    registry,
                ));
            });
        let m = result.expect("the match ran")?;
        self.games += m.tally.games;
        Ok(Tally {
            games: m.tally.games,
            wins: m.tally.a_wins,
            draws: m.tally.draws,
        })
    }
}

impl Checks for Referee<'_> {
    fn play_against(&mut self, p: usize, against: &str, games: u32, salt: u64) -> Played {
        let spec = self.specs[p].clone();
        self.play_specs(&spec, against, games, salt)
    }
}

impl Matches for Referee<'_> {
    fn play(&mut self, (upper, lower): (usize, usize), games: u32, salt: u64) -> Played {
        let (a, b) = (self.specs[upper].clone(), self.specs[lower].clone());
        self.play_specs(&a, &b, games, salt ^ ((upper as u64) << 8) ^ lower as u64)
    }

    fn line(&mut self, line: &str) {
        self.obs.line(line);
    }
}

/// The manifest's entries of the chosen tiers; each chosen network is copied
/// beside the manifest, and its spec names the copy.
fn write_tiers(
    cfg: &TiersConfig,
    ladder: &LadderResult,
    pool: &[usize],
    chosen: &[usize],
    matches: &[Option<Tally>],
) -> Result<Vec<TierEntry>, TiersError> {
    let out_dir = cfg
        .out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    std::fs::create_dir_all(&out_dir).map_err(io(&out_dir))?;
    let mut tiers = Vec::new();
    for (k, &p) in chosen.iter().enumerate() {
        let r = &ladder.ratings[pool[p]];
        let (player, checkpoint) = copy_network(&r.player, &out_dir)?;
        let (score_vs_below, games_vs_below) = match matches[k] {
            Some(t) => (Some(t.score()), t.games as u32),
            None => (None, 0),
        };
        tiers.push(TierEntry {
            name: cfg.tiers[k].clone(),
            player,
            checkpoint,
            elo: r.elo,
            elo_low: r.elo_low,
            elo_high: r.elo_high,
            score_vs_below,
            games_vs_below,
        });
    }
    Ok(tiers)
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> TiersError + '_ {
    move |e| TiersError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// A `net:` player's checkpoint copied into `out_dir` (with its metadata):
/// the spec naming the copy relatively, and the copy's name. Other players
/// are kept as they are.
fn copy_network(player: &str, out_dir: &Path) -> Result<(String, Option<String>), TiersError> {
    let spec: PlayerSpec = player.parse().map_err(|error| TiersError::Spec {
        spec: player.to_string(),
        error: Box::new(error),
    })?;
    if spec.kind != "net" {
        return Ok((player.to_string(), None));
    }
    let src = PathBuf::from(&spec.args[0]);
    // A trainer checkpoint is `<run>/checkpoints/step-N/net.bpk`: name the
    // copy after its folder, so networks of different steps do not collide.
    let folder = src
        .parent()
        .and_then(|d| d.file_name())
        .map(|d| d.to_string_lossy().into_owned());
    let name = match folder {
        Some(dir) if step_of_folder(&dir).is_some() => format!("{dir}.bpk"),
        _ => src
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .ok_or_else(|| TiersError::Config(format!("{player}: no checkpoint file name")))?,
    };
    let dst = out_dir.join(&name);
    if src != dst {
        std::fs::copy(&src, &dst).map_err(io(&src))?;
        let (ms, md) = (shax_nn::metadata_path(&src), shax_nn::metadata_path(&dst));
        std::fs::copy(&ms, &md).map_err(io(&ms))?;
    }
    let mut rel = spec.clone();
    rel.args[0] = name.clone();
    Ok((rel.to_string(), Some(name)))
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

/// The candidates eligible for a tier, weakest first: every one rated at or
/// above the weakest that still scores about the floor's score against
/// random (Elo `floor`).
fn eligible(ratings: &[(String, f64)], tiers: usize, floor: f64) -> Result<Vec<usize>, TiersError> {
    let mut order: Vec<usize> = (0..ratings.len())
        .filter(|&i| ratings[i].0 != "random")
        .collect();
    order.sort_by(|&a, &b| ratings[a].1.total_cmp(&ratings[b].1));
    if order.is_empty() {
        return Err(TiersError::Candidates(
            "no candidates besides random".to_string(),
        ));
    }
    let first = order
        .iter()
        .position(|&i| ratings[i].1 >= floor)
        .unwrap_or(0);
    let pool = order.split_off(first);
    if pool.len() < tiers {
        return Err(TiersError::Candidates(format!(
            "only {} candidates at or above the beginner's floor against random; {tiers} tiers need {tiers} (add checkpoints, sims or temps, or lower --beginner-floor)",
            pool.len()
        )));
    }
    Ok(pool)
}

/// The pool cut to `master` and the candidates rated below it, `master`
/// last (the top tier), when enough are left for `tiers` tiers.
fn pin_master(
    ratings: &[(String, f64)],
    pool: Vec<usize>,
    master: &str,
    tiers: usize,
) -> Result<Vec<usize>, TiersError> {
    let Some(&m) = pool.iter().find(|&&i| ratings[i].0 == master) else {
        return Err(TiersError::Candidates(format!(
            "--master {master} is rated below the beginner's floor against random"
        )));
    };
    let mut below: Vec<usize> = pool
        .into_iter()
        .filter(|&i| i != m && ratings[i].1 < ratings[m].1)
        .collect();
    if below.len() + 1 < tiers {
        return Err(TiersError::Candidates(format!(
            "only {} candidates rated between the beginner's floor and --master {master}; {tiers} tiers need {}",
            below.len(),
            tiers - 1
        )));
    }
    below.push(m);
    Ok(below)
}

/// The first guess for `tiers` tiers, as positions in `pool`: the lowest tier
/// the weakest, the highest the strongest, those between the candidates
/// nearest to even steps in (ladder) Elo.
fn choose(ratings: &[(String, f64)], pool: &[usize], tiers: usize) -> Vec<usize> {
    let elo = |p: usize| ratings[pool[p]].1;
    let top = pool.len() - 1;
    let (lo, hi) = (elo(0), elo(top));
    let mut chosen = vec![0];
    for k in 1..tiers - 1 {
        let target = lo + (hi - lo) * k as f64 / (tiers - 1) as f64;
        let last = *chosen.last().expect("beginner chosen");
        // Nearest to the target above the previous tier, leaving room for the rest.
        let end = pool.len() - (tiers - 1 - k);
        let best = (last + 1..end)
            .min_by(|&a, &b| (elo(a) - target).abs().total_cmp(&(elo(b) - target).abs()))
            .expect("room for every tier");
        chosen.push(best);
    }
    chosen.push(top);
    chosen
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
    fn an_out_of_band_manifest_goes_beside_the_one_asked_for() {
        let p = |s: &str| out_of_band_path(Path::new(s));
        assert_eq!(
            p("checkpoints/shax/tiers.toml"),
            Path::new("checkpoints/shax/tiers.out-of-band.toml")
        );
        assert_eq!(p("tiers"), Path::new("tiers.out-of-band"));
    }

    #[test]
    fn choose_spaces_tiers_evenly_from_ninety_percent_to_the_top() {
        let r = ratings(&[
            0.0, 100.0, 400.0, 450.0, 600.0, 640.0, 800.0, 1000.0, 1200.0,
        ]);
        let pool = eligible(&r, 5, elo_from_score(0.9)).unwrap();
        // Beginner: the weakest at or above 382; master: the strongest;
        // targets 600, 800, 1000 in between.
        let elos: Vec<f64> = choose(&r, &pool, 5).iter().map(|&p| r[pool[p]].1).collect();
        assert_eq!(elos, [400.0, 600.0, 800.0, 1000.0, 1200.0]);
        assert!(eligible(&r[..5], 5, elo_from_score(0.9)).is_err());
        // Three tiers: the ends and the one nearest 800.
        let elos: Vec<f64> = choose(&r, &pool, 3).iter().map(|&p| r[pool[p]].1).collect();
        assert_eq!(elos, [400.0, 800.0, 1200.0]);
        assert!(eligible(&r[..5], 2, elo_from_score(0.9)).is_ok());
    }

    #[test]
    fn a_pinned_master_tops_the_pool_and_drops_the_candidates_above_it() {
        let r = ratings(&[
            0.0, 100.0, 400.0, 450.0, 600.0, 640.0, 800.0, 1000.0, 1200.0,
        ]);
        let pool = eligible(&r, 5, elo_from_score(0.9)).unwrap();
        // p7 (1000) pinned: p8 (1200) is left out, the tiers end at p7.
        let pinned = pin_master(&r, pool.clone(), "p7", 5).unwrap();
        let names: Vec<&str> = pinned.iter().map(|&i| r[i].0.as_str()).collect();
        assert_eq!(names, ["p2", "p3", "p4", "p5", "p6", "p7"]);
        let elos: Vec<f64> = choose(&r, &pinned, 5)
            .iter()
            .map(|&p| r[pinned[p]].1)
            .collect();
        assert_eq!(elos, [400.0, 600.0, 640.0, 800.0, 1000.0]);
        // Too few below it, or below the floor: errors that name the flag.
        let few = pin_master(&r, pool.clone(), "p4", 5).unwrap_err();
        assert!(few.to_string().contains("--master p4"), "{few}");
        let weak = pin_master(&r, pool, "p1", 3).unwrap_err();
        assert!(weak.to_string().contains("floor"), "{weak}");
    }

    #[test]
    fn a_lower_beginner_floor_lets_weaker_candidates_in() {
        // A game where chance decides many games: nothing reaches 90% against random.
        let r = ratings(&[0.0, 80.0, 160.0, 250.0, 390.0]);
        assert!((elo_from_score(0.9) - 381.7).abs() < 0.1);
        assert!(eligible(&r, 3, elo_from_score(0.9)).is_err());
        let pool = eligible(&r, 3, elo_from_score(0.6)).unwrap();
        let elos: Vec<f64> = pool.iter().map(|&i| r[i].1).collect();
        // 60% against random is +70 Elo: the 80 and everything above.
        assert_eq!(elos, [80.0, 160.0, 250.0, 390.0]);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn tier_names_are_two_or_more_known_ones_weakest_first() {
        let names = |s: &str| -> Vec<String> { s.split(',').map(str::to_string).collect() };
        assert!(check_tier_names(&names("beginner,easy,medium,hard,master")).is_ok());
        assert!(check_tier_names(&names("beginner,medium,master")).is_ok());
        for bad in ["master", "master,beginner", "beginner,expert", "easy,easy"] {
            let e = check_tier_names(&names(bad)).unwrap_err().to_string();
            assert!(e.contains(bad) && e.contains("weakest first"), "{bad}: {e}");
        }
    }

    #[test]
    fn spread_keeps_the_oldest_and_the_newest() {
        let v: Vec<u32> = (0..10).collect();
        assert_eq!(spread(&v, 4), [0, 3, 6, 9]);
        assert_eq!(spread(&v[..3], 4), [0, 1, 2]);
    }
}

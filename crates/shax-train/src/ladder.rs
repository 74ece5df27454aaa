//! Round robins: every pair of specs plays a match (both colours, shared
//! random openings), and one Bradley-Terry fit rates everyone at once, with
//! `random` pinned at 0 (the first player when `random` is absent).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use serde::Serialize;
use shax_core::Rules;
use shax_search::{Limits, PlayerSpec, Registry, mix_seed};

use crate::arena::{ArenaError, Job, check_common, openings, run_jobs, validate};
use crate::elo::{Z95, fit_bradley_terry};
use crate::record::GameRecord;

/// A round robin.
#[derive(Clone, Debug)]
pub struct LadderConfig {
    /// The rules.
    pub rules: Rules,
    /// The players' specs (at least two).
    pub players: Vec<String>,
    /// Games per pair, split between the colours.
    pub games_per_pair: u32,
    /// Worker threads; 0: one per core.
    pub threads: usize,
    /// The master seed.
    pub seed: u64,
    /// Random actions before the players take over.
    pub opening_plies: u32,
    /// Budget overrides for every decision.
    pub limits: Limits,
    /// Counts finished games while the ladder runs (for a progress display).
    pub progress: Option<Arc<AtomicU64>>,
}

impl LadderConfig {
    /// 20 games per pair, all cores, seed 0, 4 opening plies.
    pub fn new(rules: Rules, players: &[&str]) -> LadderConfig {
        LadderConfig {
            rules,
            players: players.iter().map(|s| s.to_string()).collect(),
            games_per_pair: 20,
            threads: 0,
            seed: 0,
            opening_plies: 4,
            limits: Limits::NONE,
            progress: None,
        }
    }

    /// Games the round robin plays: `games_per_pair` for every pair.
    pub fn total_games(&self) -> u64 {
        let n = self.players.len() as u64;
        n * n.saturating_sub(1) / 2 * u64::from(self.games_per_pair)
    }
}

/// One pair's results.
#[derive(Clone, Debug, Serialize)]
pub struct PairResult {
    /// The first player.
    pub a: String,
    /// The second player.
    pub b: String,
    /// Games.
    pub games: u64,
    /// A's wins.
    pub a_wins: u64,
    /// B's wins.
    pub b_wins: u64,
    /// Draws.
    pub draws: u64,
}

/// One player's rating.
#[derive(Clone, Debug, Serialize)]
pub struct Rating {
    /// The spec.
    pub player: String,
    /// Fitted Elo (the anchor is 0).
    pub elo: f64,
    /// Lower end of the 95% interval (relative to the anchor).
    pub elo_low: f64,
    /// Upper end of the 95% interval.
    pub elo_high: f64,
    /// Games played.
    pub games: u64,
    /// Score over all games, 0 to 1.
    pub score: f64,
}

/// The result of a round robin.
#[derive(Clone, Debug, Serialize)]
pub struct LadderResult {
    /// The rules' name.
    pub rules: String,
    /// The player pinned at 0.
    pub anchor: String,
    /// Ratings, best first.
    pub ratings: Vec<Rating>,
    /// Every pair's results.
    pub pairs: Vec<PairResult>,
    /// Worker threads used.
    pub threads: usize,
    /// The master seed.
    pub seed: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Every game, pair by pair.
    #[serde(skip)]
    pub records: Vec<GameRecord>,
}

/// Plays a round robin and fits the ratings.
///
/// # Errors
///
/// [`ArenaError`] for a bad spec, fewer than two players, zero games per pair,
/// or a thread count or opening length out of range.
pub fn run_ladder(cfg: &LadderConfig, registry: &Registry) -> Result<LadderResult, ArenaError> {
    check_common(cfg.games_per_pair, cfg.threads, cfg.opening_plies)?;
    if cfg.players.len() < 2 {
        return Err(ArenaError::TooFewPlayers(cfg.players.len()));
    }
    let specs: Vec<PlayerSpec> = cfg
        .players
        .iter()
        .map(|s| validate(registry, s, s))
        .collect::<Result<_, _>>()?;
    let n = specs.len();
    let per = cfg.games_per_pair as usize;
    let lines = openings(cfg.rules, per.div_ceil(2), cfg.opening_plies, cfg.seed);
    let mut pairs = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            pairs.push((i, j));
        }
    }
    let mut jobs = Vec::with_capacity(pairs.len() * per);
    for (k, &(i, j)) in pairs.iter().enumerate() {
        for g in 0..per {
            let i_white = g % 2 == 0;
            jobs.push(Job {
                white: if i_white { &specs[i] } else { &specs[j] },
                black: if i_white { &specs[j] } else { &specs[i] },
                opening: &lines[g / 2],
                seed: mix_seed(mix_seed(cfg.seed, k as u64 + 1), g as u64),
            });
        }
    }
    let ran = run_jobs(
        cfg.rules,
        &jobs,
        registry,
        &cfg.limits,
        cfg.threads,
        cfg.progress.as_deref(),
    )?;
    let (threads, seconds) = (ran.threads, ran.seconds);
    let records: Vec<GameRecord> = ran.games.into_iter().map(|(r, _)| r).collect();

    let mut results = Vec::new();
    let mut pair_results = Vec::new();
    let mut points = vec![0.0f64; n];
    let mut games = vec![0u64; n];
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let mut p = PairResult {
            a: specs[i].to_string(),
            b: specs[j].to_string(),
            games: per as u64,
            a_wins: 0,
            b_wins: 0,
            draws: 0,
        };
        for g in 0..per {
            let rec = &records[k * per + g];
            let i_color = if g % 2 == 0 { "white" } else { "black" };
            if rec.winner == "none" {
                p.draws += 1;
            } else if rec.winner == i_color {
                p.a_wins += 1;
            } else {
                p.b_wins += 1;
            }
        }
        let s = p.a_wins as f64 + 0.5 * p.draws as f64;
        results.push((i, j, s, per as f64));
        points[i] += s;
        points[j] += per as f64 - s;
        games[i] += per as u64;
        games[j] += per as u64;
        pair_results.push(p);
    }
    let anchor = specs.iter().position(|s| s.kind == "random").unwrap_or(0);
    let fit = fit_bradley_terry(n, &results, anchor);
    let mut ratings: Vec<Rating> = (0..n)
        .map(|i| Rating {
            player: specs[i].to_string(),
            elo: fit[i].elo,
            elo_low: fit[i].elo - Z95 * fit[i].se,
            elo_high: fit[i].elo + Z95 * fit[i].se,
            games: games[i],
            score: points[i] / games[i].max(1) as f64,
        })
        .collect();
    ratings.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    Ok(LadderResult {
        rules: cfg.rules.name(),
        anchor: specs[anchor].to_string(),
        ratings,
        pairs: pair_results,
        threads,
        seed: cfg.seed,
        seconds,
        records,
    })
}

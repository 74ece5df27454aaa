//! Round robins: every pair of specs plays a match (both colours, shared
//! random openings), and one Bradley-Terry fit rates everyone at once, with
//! `random` pinned at 0 (the first player when `random` is absent).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use shax_core::{Color, Rules};
use shax_search::{Limits, PlayerSpec, Registry, mix_seed};

use crate::arena::{ArenaError, GameResult, check_common, openings, validate};
use crate::elo::Results;
use crate::play::{Job, Played, run_jobs};
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
    /// Games each thread keeps going at once, network calls pooled (as
    /// [`crate::ArenaConfig::games_in_flight`]).
    pub games_in_flight: usize,
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
            games_in_flight: 1,
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
/// or a thread count, opening length or games in flight out of range.
pub fn run_ladder(cfg: &LadderConfig, registry: &Registry) -> Result<LadderResult, ArenaError> {
    check_common(
        cfg.games_per_pair,
        cfg.threads,
        cfg.opening_plies,
        cfg.games_in_flight,
    )?;
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
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    // Player i of a pair is White in even games; each opening twice.
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
        cfg.games_in_flight,
        &|_, _| {
            if let Some(p) = &cfg.progress {
                p.fetch_add(1, Ordering::Relaxed);
            }
        },
    )?;
    let names: Vec<String> = specs.iter().map(PlayerSpec::to_string).collect();
    let anchor = specs.iter().position(|s| s.kind == "random").unwrap_or(0);
    let (pair_results, records) = tally_pairs(&names, &pairs, per, ran.games);
    Ok(LadderResult {
        rules: cfg.rules.name(),
        anchor: names[anchor].clone(),
        ratings: rate(&names, &pairs, &pair_results, anchor),
        pairs: pair_results,
        threads: ran.threads,
        seed: cfg.seed,
        seconds: ran.seconds,
        records,
    })
}

/// Each pair's results from its games (in job order), and the records.
fn tally_pairs(
    names: &[String],
    pairs: &[(usize, usize)],
    per: usize,
    played: Vec<Played>,
) -> (Vec<PairResult>, Vec<GameRecord>) {
    let mut played = played.into_iter();
    let mut records = Vec::with_capacity(pairs.len() * per);
    let mut out = Vec::with_capacity(pairs.len());
    for &(i, j) in pairs {
        let mut p = PairResult {
            a: names[i].clone(),
            b: names[j].clone(),
            games: per as u64,
            a_wins: 0,
            b_wins: 0,
            draws: 0,
        };
        for g in 0..per {
            let game = played.next().expect("one game per job");
            let i_color = if g % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            match GameResult::of(game.winner, i_color) {
                GameResult::Win => p.a_wins += 1,
                GameResult::Draw => p.draws += 1,
                GameResult::Loss => p.b_wins += 1,
            }
            records.push(game.record);
        }
        out.push(p);
    }
    (out, records)
}

/// Everyone's rating from one fit over the pairs, strongest first.
fn rate(
    names: &[String],
    indices: &[(usize, usize)],
    pairs: &[PairResult],
    anchor: usize,
) -> Vec<Rating> {
    let n = names.len();
    let mut results = Results::default();
    let mut points = vec![0.0f64; n];
    let mut games = vec![0u64; n];
    for name in names {
        results.new_player(name);
    }
    for (&(i, j), p) in indices.iter().zip(pairs) {
        let s = p.a_wins as f64 + 0.5 * p.draws as f64;
        results.add_indices(i, j, s, p.games as f64);
        points[i] += s;
        points[j] += p.games as f64 - s;
        games[i] += p.games;
        games[j] += p.games;
    }
    let mut ratings: Vec<Rating> = results
        .fit_anchored(anchor)
        .into_iter()
        .enumerate()
        .map(|(i, (player, r))| {
            let (elo_low, elo_high) = r.interval();
            Rating {
                player,
                elo: r.elo,
                elo_low,
                elo_high,
                games: games[i],
                score: points[i] / games[i].max(1) as f64,
            }
        })
        .collect();
    ratings.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    ratings
}

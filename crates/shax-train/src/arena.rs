//! Matches between two player specs: both colours equally, distinct random
//! openings, games in parallel, per-game seeds derived from one master seed
//! (so the results do not depend on the thread count for budgets that are not
//! time, with one game in flight per thread), every game kept as a
//! [`GameRecord`].

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use shax_core::{Action, Color, KeyHistory, Position, Rules};
use shax_search::{Limits, PlayerSpec, Registry, SpecError, mix_seed};

use crate::elo::{Elo, elo_interval};
use crate::play::{Job, Played, run_jobs};
use crate::record::GameRecord;

/// Most random opening actions.
pub const MAX_OPENING: u32 = 40;
/// Most threads.
pub const MAX_THREADS: usize = 1024;
/// Most games in flight per thread.
pub const MAX_IN_FLIGHT: usize = 1024;

/// A match between players `a` and `b`.
#[derive(Clone, Debug)]
pub struct ArenaConfig {
    /// The rules.
    pub rules: Rules,
    /// Player A's spec.
    pub a: String,
    /// Player B's spec.
    pub b: String,
    /// Games; A plays White in the even-numbered ones, each opening is played
    /// once with each colour.
    pub games: u32,
    /// Worker threads; 0: one per core.
    pub threads: usize,
    /// The master seed.
    pub seed: u64,
    /// Random actions before the players take over (0 to 40).
    pub opening_plies: u32,
    /// Budget overrides for every decision (none: the specs' budgets).
    pub limits: Limits,
    /// Games each thread keeps going at once, their network players' leaves
    /// pooled into one network call (1 to 1024; 1: one game at a time). Above 1,
    /// a network player's time per decision is its share of the pooled calls,
    /// not the time it takes alone; budgets of time are played one game at a time.
    pub games_in_flight: usize,
    /// Counts finished games while the match runs (for a progress display).
    pub progress: Option<Arc<AtomicU64>>,
    /// Hears of each game as it ends, in the order they end.
    pub on_game: Option<GameHook>,
}

/// A game of a match as it ends: its number (A plays White in the even
/// ones), its record and A's result.
pub struct FinishedGame<'g> {
    /// The game's number in the match, from 0.
    pub index: usize,
    /// Its record.
    pub record: &'g GameRecord,
    /// A's result.
    pub a_result: GameResult,
}

/// Called for each game of a match as it ends, from the worker thread that
/// played it: to keep games as they finish or show a running score.
#[derive(Clone)]
pub struct GameHook(pub Arc<dyn Fn(FinishedGame<'_>) + Send + Sync>);

impl std::fmt::Debug for GameHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GameHook")
    }
}

impl ArenaConfig {
    /// 100 games, all cores, seed 0, 4 opening plies, the specs' budgets.
    pub fn new(rules: Rules, a: &str, b: &str) -> ArenaConfig {
        ArenaConfig {
            rules,
            a: a.to_string(),
            b: b.to_string(),
            games: 100,
            threads: 0,
            seed: 0,
            opening_plies: 4,
            limits: Limits::NONE,
            games_in_flight: 1,
            progress: None,
            on_game: None,
        }
    }
}

/// Why a match could not run.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// A player spec is wrong.
    #[error("player {which}: {error}")]
    Spec {
        /// Which player (`A`, `B`, or the spec).
        which: String,
        /// What was wrong.
        error: Box<SpecError>,
    },
    /// No games asked for.
    #[error("the number of games must be at least 1")]
    ZeroGames,
    /// A ladder needs two players.
    #[error("a ladder needs at least two players, got {0}")]
    TooFewPlayers(usize),
    /// Thread count out of range.
    #[error("threads must be 0 (one per core) to {MAX_THREADS}, got {0}")]
    Threads(usize),
    /// Games in flight out of range.
    #[error("games in flight must be 1 to {MAX_IN_FLIGHT}, got {0}")]
    InFlight(usize),
    /// Opening length out of range.
    #[error("openings must be 0 to {MAX_OPENING} random actions, got {0}")]
    Opening(u32),
    /// The thread pool could not start.
    #[error("thread pool: {0}")]
    Pool(String),
}

/// One colour's results, from A's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ColorStats {
    /// Games A played with this colour.
    pub games: u64,
    /// A's wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// A's losses.
    pub losses: u64,
}

impl ColorStats {
    /// Counts one game of A's with this colour.
    pub fn add(&mut self, result: GameResult) {
        self.games += 1;
        match result {
            GameResult::Win => self.wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::Loss => self.losses += 1,
        }
    }
}

/// A finished game's result for one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// The side won.
    Win,
    /// A draw.
    Draw,
    /// The side lost.
    Loss,
}

impl GameResult {
    /// The result for `side` of a game that `winner` won (`None`: a draw).
    pub fn of(winner: Option<Color>, side: Color) -> GameResult {
        match winner {
            None => GameResult::Draw,
            Some(w) if w == side => GameResult::Win,
            Some(_) => GameResult::Loss,
        }
    }
}

/// How long one player took to decide, over a match (wall clock, each
/// decision on one worker thread).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ThinkStats {
    /// Decisions (actions chosen; a removal after a mill is its own).
    pub decisions: u64,
    /// Mean milliseconds per decision.
    pub mean_ms: f64,
    /// The longest decision, in milliseconds.
    pub max_ms: f64,
}

impl ThinkStats {
    pub(crate) fn add(&mut self, secs: f64) {
        let ms = secs * 1e3;
        self.mean_ms += (ms - self.mean_ms) / (self.decisions + 1) as f64;
        self.decisions += 1;
        self.max_ms = self.max_ms.max(ms);
    }

    /// Both together: decisions added, means weighted, the longest kept.
    pub fn merge(&mut self, o: &ThinkStats) {
        let n = self.decisions + o.decisions;
        if n > 0 {
            self.mean_ms =
                (self.mean_ms * self.decisions as f64 + o.mean_ms * o.decisions as f64) / n as f64;
        }
        self.decisions = n;
        self.max_ms = self.max_ms.max(o.max_ms);
    }
}

/// The games of a match from A's side: wins, draws and losses overall and
/// per colour, the score and its Elo, how the games ended, their length and
/// each side's time per decision. `shax arena` and `shax match` both count
/// with it (flattened into their JSON).
#[derive(Clone, Debug, Default, Serialize)]
pub struct MatchTally {
    /// Games played.
    pub games: u64,
    /// A's wins.
    pub a_wins: u64,
    /// B's wins.
    pub b_wins: u64,
    /// Draws.
    pub draws: u64,
    /// A's score, 0 to 1 (draws count half).
    pub score: f64,
    /// A's Elo advantage over B.
    pub elo: f64,
    /// Lower end of its 95% interval.
    pub elo_low: f64,
    /// Upper end of its 95% interval.
    pub elo_high: f64,
    /// A's results as White.
    pub a_white: ColorStats,
    /// A's results as Black.
    pub a_black: ColorStats,
    /// A's time per decision.
    pub a_think: ThinkStats,
    /// B's time per decision.
    pub b_think: ThinkStats,
    /// How the games ended: reason -> count.
    pub reasons: BTreeMap<String, u64>,
    /// Mean actions per game.
    pub actions_per_game: f64,
    /// Actions in all games.
    #[serde(skip)]
    actions: u64,
}

/// One finished game, as [`MatchTally::add`] counts it.
#[derive(Clone, Copy, Debug)]
pub struct GameSummary<'a> {
    /// A's colour.
    pub a_color: Color,
    /// The winner; `None`: a draw.
    pub winner: Option<Color>,
    /// How it ended (the record's `reason`).
    pub reason: &'a str,
    /// Actions played, the opening included.
    pub actions: usize,
    /// A's and B's time per decision in it.
    pub think: (&'a ThinkStats, &'a ThinkStats),
}

impl MatchTally {
    /// Counts one game, then the score, Elo and mean length so far.
    pub fn add(&mut self, g: GameSummary<'_>) {
        self.a_think.merge(g.think.0);
        self.b_think.merge(g.think.1);
        let result = GameResult::of(g.winner, g.a_color);
        match g.a_color {
            Color::White => self.a_white.add(result),
            Color::Black => self.a_black.add(result),
        }
        match result {
            GameResult::Win => self.a_wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::Loss => self.b_wins += 1,
        }
        *self.reasons.entry(g.reason.to_string()).or_insert(0) += 1;
        self.games += 1;
        self.actions += g.actions as u64;
        let n = self.games as f64;
        self.actions_per_game = self.actions as f64 / n;
        self.score = (self.a_wins as f64 + 0.5 * self.draws as f64) / n;
        let e = elo_interval(self.a_wins, self.draws, self.b_wins);
        (self.elo, self.elo_low, self.elo_high) = (e.elo, e.low, e.high);
    }

    /// A's Elo with its interval.
    pub fn elo(&self) -> Elo {
        Elo {
            elo: self.elo,
            low: self.elo_low,
            high: self.elo_high,
        }
    }
}

/// The result of a match.
#[derive(Clone, Debug, Serialize)]
pub struct ArenaResult {
    /// The rules' name.
    pub rules: String,
    /// Player A.
    pub a: String,
    /// Player B.
    pub b: String,
    /// The games, counted.
    #[serde(flatten)]
    pub tally: MatchTally,
    /// Worker threads used.
    pub threads: usize,
    /// The master seed.
    pub seed: u64,
    /// Random opening actions per game.
    pub opening_plies: u32,
    /// Games each thread kept going at once (1: one at a time, so each
    /// decision's time is its own).
    pub games_in_flight: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Games per second.
    pub games_per_sec: f64,
    /// Every game, in game order.
    #[serde(skip)]
    pub records: Vec<GameRecord>,
}

impl ArenaResult {
    /// A's Elo with its interval.
    pub fn elo(&self) -> Elo {
        self.tally.elo()
    }
}

/// `count` random openings of `plies` random legal actions each, none ending
/// the game, distinct while the rules allow (`plies = 0`: all empty).
pub fn openings(rules: Rules, count: usize, plies: u32, seed: u64) -> Vec<Vec<Action>> {
    let mut out = Vec::with_capacity(count);
    let mut seen = HashSet::new();
    let mut misses = 0;
    let mut attempt = 0u64;
    while out.len() < count {
        attempt += 1;
        let mut state = mix_seed(seed ^ 0x6f70_656e, attempt);
        let (line, pos, hist) = random_line(rules, plies, |n| {
            state = mix_seed(state, 1);
            (state % n as u64) as usize
        });
        if hist.outcome(&pos).is_some() && misses < 1000 {
            misses += 1;
            continue;
        }
        if seen.insert(line.clone()) || misses >= 1000 {
            out.push(line);
        } else {
            misses += 1;
        }
    }
    out
}

/// Up to `plies` random legal actions from the rules' start, the one of `n`
/// legal actions at each step chosen by `pick(n)`; stops where the game ends.
/// Returns the actions, the position they reach and its history (whose
/// outcome says whether the game ended).
pub(crate) fn random_line(
    rules: Rules,
    plies: u32,
    mut pick: impl FnMut(usize) -> usize,
) -> (Vec<Action>, Position, KeyHistory) {
    let mut pos = Position::new(rules);
    let mut hist = KeyHistory::new(&pos);
    let mut line = Vec::with_capacity(plies as usize);
    for _ in 0..plies {
        let legal = pos.legal_actions();
        if hist.outcome(&pos).is_some() || legal.is_empty() {
            break;
        }
        let a = legal[pick(legal.len())];
        pos.play_unchecked(a);
        hist.push(a, &pos);
        line.push(a);
    }
    (line, pos, hist)
}

pub(crate) fn check_common(
    games: u32,
    threads: usize,
    opening: u32,
    in_flight: usize,
) -> Result<(), ArenaError> {
    if games == 0 {
        return Err(ArenaError::ZeroGames);
    }
    if threads > MAX_THREADS {
        return Err(ArenaError::Threads(threads));
    }
    if opening > MAX_OPENING {
        return Err(ArenaError::Opening(opening));
    }
    if !(1..=MAX_IN_FLIGHT).contains(&in_flight) {
        return Err(ArenaError::InFlight(in_flight));
    }
    Ok(())
}

/// Parses a spec and builds it once, so that a bad spec fails before any game.
pub(crate) fn validate(
    registry: &Registry,
    spec: &str,
    which: &str,
) -> Result<PlayerSpec, ArenaError> {
    let err = |source| ArenaError::Spec {
        which: which.to_string(),
        error: Box::new(source),
    };
    let parsed: PlayerSpec = spec.parse().map_err(err)?;
    registry.build(&parsed).map_err(err)?;
    Ok(parsed)
}

/// Plays a match.
///
/// # Errors
///
/// [`ArenaError`] for a bad spec (naming the player), zero games, or a thread
/// count or opening length out of range; nothing is played then.
///
/// # Panics
///
/// When a player returns an illegal action (a bug in that player).
pub fn run_arena(cfg: &ArenaConfig, registry: &Registry) -> Result<ArenaResult, ArenaError> {
    check_common(
        cfg.games,
        cfg.threads,
        cfg.opening_plies,
        cfg.games_in_flight,
    )?;
    let a = validate(registry, &cfg.a, "A")?;
    let b = validate(registry, &cfg.b, "B")?;
    let n = cfg.games as usize;
    let lines = openings(cfg.rules, n.div_ceil(2), cfg.opening_plies, cfg.seed);
    // A plays White in even games, Black in odd ones; each opening twice.
    let jobs: Vec<Job<'_>> = (0..n)
        .map(|i| {
            let a_white = i % 2 == 0;
            Job {
                white: if a_white { &a } else { &b },
                black: if a_white { &b } else { &a },
                opening: &lines[i / 2],
                seed: mix_seed(cfg.seed, i as u64),
            }
        })
        .collect();
    let ran = run_jobs(
        cfg.rules,
        &jobs,
        registry,
        &cfg.limits,
        cfg.threads,
        cfg.games_in_flight,
        &|i, g: &Played| {
            if let Some(GameHook(hook)) = &cfg.on_game {
                hook(FinishedGame {
                    index: i,
                    record: &g.record,
                    a_result: GameResult::of(g.winner, a_color(i)),
                });
            }
            if let Some(p) = &cfg.progress {
                p.fetch_add(1, Ordering::Relaxed);
            }
        },
    )?;
    let mut r = ArenaResult {
        rules: cfg.rules.name(),
        a: a.to_string(),
        b: b.to_string(),
        tally: MatchTally::default(),
        threads: ran.threads,
        seed: cfg.seed,
        opening_plies: cfg.opening_plies,
        games_in_flight: cfg.games_in_flight,
        seconds: ran.seconds,
        games_per_sec: n as f64 / ran.seconds.max(1e-9),
        records: Vec::new(),
    };
    r.tally(ran.games);
    Ok(r)
}

/// A's colour in game `i` of a match (`shax arena`, `shax match`): White in
/// the even games, so each opening is played once with each colour.
pub fn a_color(i: usize) -> Color {
    if i.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    }
}

impl ArenaResult {
    /// Counts the games of a match (A White in even games) and keeps their records.
    fn tally(&mut self, games: Vec<Played>) {
        for (i, g) in games.into_iter().enumerate() {
            let a_color = a_color(i);
            let (a, b) = (a_color.index(), a_color.opponent().index());
            self.tally.add(GameSummary {
                a_color,
                winner: g.winner,
                reason: &g.record.reason,
                actions: g.record.opening.len() + g.record.actions.len(),
                think: (&g.think[a], &g.think[b]),
            });
            self.records.push(g.record);
        }
    }
}

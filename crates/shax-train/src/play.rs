//! Playing the games of a match or a ladder on a pool of threads: one game at
//! a time per thread, or many in flight per thread with the network players'
//! leaves of all of them pooled into one network call a round
//! ([`step_pooled`], as KataGo's match runner batches its games). A network
//! player at one leaf per call spends most of a lone decision on calls of
//! one position; pooled, a match of such players costs a fraction of that.
//! Its moves are the ones it makes alone, up to the rounding of a larger
//! batch.

use std::time::Instant;

use rayon::prelude::*;
use shax_core::{Action, Color, Game, KeyHistory, Position, Rules};
use shax_search::{
    EvalBuffers, Limits, NeuralPlayer, Player, PlayerSpec, Registry, SpecError, mix_seed,
    step_pooled,
};

use crate::arena::{ArenaError, ThinkStats};
use crate::record::GameRecord;

/// One game to play.
pub(crate) struct Job<'a> {
    pub white: &'a PlayerSpec,
    pub black: &'a PlayerSpec,
    pub opening: &'a [Action],
    pub seed: u64,
}

/// A game played.
pub(crate) struct Played {
    /// Its record.
    pub record: GameRecord,
    /// Who won (`None`: a draw).
    pub winner: Option<Color>,
    /// White's and Black's decision times.
    pub think: [ThinkStats; 2],
}

/// What [`run_jobs`] played.
pub(crate) struct Ran {
    /// The games in job order, each with White's and Black's decision times.
    pub games: Vec<Played>,
    /// Worker threads used.
    pub threads: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// A game in progress: its players (White's first), the position after the
/// opening and the actions since.
struct Table<'j, 'a> {
    job: &'j Job<'a>,
    players: [Box<dyn Player>; 2],
    game: Game,
    opening: usize,
    pos: Position,
    hist: KeyHistory,
    actions: Vec<Action>,
    think: [ThinkStats; 2],
    /// A network player's decision is in progress, with the seconds it has
    /// taken so far (its share of each pooled round).
    deciding: Option<f64>,
}

impl<'j, 'a> Table<'j, 'a> {
    /// Builds both players and plays the opening.
    fn new(rules: Rules, job: &'j Job<'a>, registry: &Registry) -> Result<Self, SpecError> {
        let players = [registry.build(job.white)?, registry.build(job.black)?];
        let mut game = Game::new(rules);
        let mut opening = 0;
        for &a in job.opening {
            if game.outcome().is_some() {
                break;
            }
            game.play(a).expect("openings are legal");
            opening += 1;
        }
        let pos = *game.position();
        Ok(Table {
            job,
            players,
            game,
            opening,
            pos,
            hist: KeyHistory::new(&pos),
            actions: Vec::new(),
            think: [ThinkStats::default(); 2],
            deciding: None,
        })
    }

    fn over(&self) -> bool {
        self.hist.outcome(&self.pos).is_some()
    }

    /// The side to act (0 White, 1 Black) and its seed for this decision.
    fn turn(&self) -> (usize, u64) {
        let side = usize::from(self.pos.to_act() != Color::White);
        (side, mix_seed(self.job.seed, self.actions.len() as u64))
    }

    /// Plays the side to act's choice, which took `secs`.
    ///
    /// # Panics
    ///
    /// When the action is illegal (a bug in that player).
    fn play(&mut self, side: usize, a: Action, secs: f64) {
        self.think[side].add(secs);
        assert!(
            self.pos.is_legal(a),
            "player {} chose illegal {a} in {}",
            self.players[side].spec(),
            self.pos.fen()
        );
        self.pos.play_unchecked(a);
        self.hist.push(a, &self.pos);
        self.actions.push(a);
    }

    /// One decision by the side to act, start to end.
    fn decide(&mut self, limits: &Limits) {
        let (side, seed) = self.turn();
        let t = Instant::now();
        let a = self.players[side]
            .choose(&self.pos, &self.hist, limits, seed)
            .expect("a player returns an action while the game is on");
        self.play(side, a, t.elapsed().as_secs_f64());
    }

    /// Plays on until the game ends or a network player's search waits for
    /// its network: classic players decide at once, a network player's
    /// decision is begun, or concluded once its search has finished.
    fn advance(&mut self, limits: &Limits) {
        while !self.over() {
            let (side, seed) = self.turn();
            let Some(net) = self.players[side].as_neural() else {
                self.decide(limits);
                continue;
            };
            let Some(secs) = self.deciding else {
                net.begin(&self.pos, &self.hist, limits, seed);
                self.deciding = Some(0.0);
                continue;
            };
            if !net.search().finished() {
                return;
            }
            let a = net.conclude().expect("the game is on");
            self.deciding = None;
            self.play(side, a, secs);
        }
    }

    /// The network player whose search waits, if any.
    fn waiting(&mut self) -> Option<&mut NeuralPlayer> {
        if self.deciding.is_none() || self.over() {
            return None;
        }
        let (side, _) = self.turn();
        self.players[side].as_neural()
    }

    /// The finished game, with its record.
    fn into_played(mut self) -> Played {
        for &a in &self.actions {
            self.game.play(a).expect("checked legal");
        }
        let record = GameRecord::new(
            &self.game,
            self.opening,
            &self.job.white.to_string(),
            &self.job.black.to_string(),
            self.job.seed,
        );
        Played {
            record,
            winner: self.game.outcome().and_then(|o| o.winner),
            think: self.think,
        }
    }
}

/// Plays one game to its end, one decision at a time.
fn play_game(
    rules: Rules,
    job: &Job<'_>,
    registry: &Registry,
    limits: &Limits,
) -> Result<Played, SpecError> {
    let mut table = Table::new(rules, job, registry)?;
    while !table.over() {
        table.decide(limits);
    }
    Ok(table.into_played())
}

/// Plays `jobs` on `in_flight` tables at once on this thread, the waiting
/// network searches of every table stepped together, one pooled round per
/// network; each round's time is shared out among its searches.
fn play_in_flight<'j, 'a: 'j>(
    rules: Rules,
    jobs: impl Iterator<Item = (usize, &'j Job<'a>)>,
    registry: &Registry,
    limits: &Limits,
    in_flight: usize,
    done: &Done<'_>,
) -> Result<Vec<(usize, Played)>, SpecError> {
    let mut jobs = jobs.peekable();
    let mut tables: Vec<(usize, Table)> = Vec::with_capacity(in_flight);
    let mut finished = Vec::new();
    let mut buf = EvalBuffers::default();
    while jobs.peek().is_some() || !tables.is_empty() {
        while tables.len() < in_flight
            && let Some((i, job)) = jobs.next()
        {
            tables.push((i, Table::new(rules, job, registry)?));
        }
        let mut k = 0;
        while k < tables.len() {
            tables[k].1.advance(limits);
            if tables[k].1.over() {
                let (i, t) = tables.remove(k);
                let played = t.into_played();
                done(i, &played);
                finished.push((i, played));
            } else {
                k += 1;
            }
        }
        step_round(&mut tables, &mut buf);
    }
    Ok(finished)
}

/// One pooled round for each network among the waiting searches.
fn step_round(tables: &mut [(usize, Table)], buf: &mut EvalBuffers) {
    // Tables by network, in table order; unnamed networks alone.
    let mut groups: Vec<(Option<String>, Vec<usize>)> = Vec::new();
    for (k, (_, t)) in tables.iter_mut().enumerate() {
        let Some(net) = t.waiting() else { continue };
        let key = net.network().map(str::to_string);
        match groups.iter_mut().find(|g| key.is_some() && g.0 == key) {
            Some(g) => g.1.push(k),
            None => groups.push((key, vec![k])),
        }
    }
    for (_, members) in groups {
        let t = Instant::now();
        let mut players: Vec<&mut NeuralPlayer> = tables
            .iter_mut()
            .enumerate()
            .filter(|(k, _)| members.contains(k))
            .filter_map(|(_, (_, t))| t.waiting())
            .collect();
        step_pooled(&mut players, buf);
        let share = t.elapsed().as_secs_f64() / members.len() as f64;
        for k in members {
            if let Some(secs) = &mut tables[k].1.deciding {
                *secs += share;
            }
        }
    }
}

/// Told of each game as it ends, by the worker that played it: the job's
/// index and the game.
pub(crate) type Done<'f> = dyn Fn(usize, &Played) + Sync + 'f;

/// Runs jobs on a pool of `threads` workers (0: one per core); `done` hears
/// of each game as it ends. With `in_flight` above 1 each worker keeps that
/// many games going and pools their network calls (not where `limits` has a
/// time budget or a cutoff, which a pooled decision cannot keep): worker `w`
/// of `n` plays jobs `w, w + n, ...` in order, so the games depend on the
/// thread count and `in_flight`, not on timing.
pub(crate) fn run_jobs(
    rules: Rules,
    jobs: &[Job<'_>],
    registry: &Registry,
    limits: &Limits,
    threads: usize,
    in_flight: usize,
    done: &Done<'_>,
) -> Result<Ran, ArenaError> {
    let t = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| ArenaError::Pool(e.to_string()))?;
    let used = pool.current_num_threads();
    let timed = limits.movetime.is_some() || limits.cutoff.is_some();
    let games: Result<Vec<Played>, SpecError> = if in_flight > 1 && !timed {
        let per_worker = pool.broadcast(|ctx| {
            let mine = jobs
                .iter()
                .enumerate()
                .skip(ctx.index())
                .step_by(ctx.num_threads());
            play_in_flight(rules, mine, registry, limits, in_flight, done)
        });
        per_worker
            .into_iter()
            .collect::<Result<Vec<_>, _>>()
            .map(|lists| {
                let mut all: Vec<(usize, Played)> = lists.into_iter().flatten().collect();
                all.sort_by_key(|(i, _)| *i);
                all.into_iter().map(|(_, p)| p).collect()
            })
    } else {
        pool.install(|| {
            jobs.par_iter()
                .enumerate()
                .with_max_len(1)
                .map(|(i, j)| {
                    let played = play_game(rules, j, registry, limits)?;
                    done(i, &played);
                    Ok(played)
                })
                .collect()
        })
    };
    let games = games.map_err(|source| ArenaError::Spec {
        which: "spec".to_string(),
        error: Box::new(source),
    })?;
    Ok(Ran {
        games,
        threads: used,
        seconds: t.elapsed().as_secs_f64(),
    })
}

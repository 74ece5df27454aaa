//! Self-play workers: one thread per worker, each with its own network copy
//! and many games in flight whose leaves share one network call
//! ([`step_batched`]). Playout cap randomization: a fraction of moves get a
//! full search (with root noise) and are recorded with their policy target;
//! the rest get a fast search and are not trained on. Move selection follows
//! the temperature schedule (`temperature` for the first `temperature_moves`
//! actions, then `final_temperature`): a PUCT root samples by visits, a
//! Gumbel root scales its noise by it, so at 0 it plays the best of
//! `logit + sigma(Q)` without noise (full and fast moves alike). With
//! `opening_plies`, each game starts with that many uniformly random actions,
//! never trained on; the schedule's action count includes them. With
//! `start_records`, a share of the games starts at a recorded game's position
//! instead ([`StartPositions`]), its actions likewise never trained on.
//!
//! A [`Worker`] keeps its games in flight between calls, so a generation
//! that stops when enough positions are made loses no half-played game: the
//! next call goes on with them (and with the newer network).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shax_core::{Action, Color, KeyHistory, Outcome, Position, Reason, Rules, Task};
use shax_nn::{Backend, NetWeights};
use shax_search::{EvalBuffers, GumbelConfig, Puct, PuctConfig, mix_seed, step_batched};

use crate::arena::random_line;
use crate::config::SelfPlayConfig;
use crate::shard::{GameData, SearchSample, Shard};
use crate::starts::StartPositions;

/// A game longer than this many actions is adjudicated a draw (the rules'
/// own limits normally end games long before).
pub const MAX_GAME_ACTIONS: usize = 3000;

/// What self-play did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SelfPlayStats {
    /// Games finished.
    pub games: u64,
    /// Positions recorded for training (full searches).
    pub positions: u64,
    /// Actions played in finished games.
    pub actions: u64,
    /// Simulations searched.
    pub sims: u64,
    /// White wins.
    pub white: u64,
    /// Black wins.
    pub black: u64,
    /// Draws.
    pub draws: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl SelfPlayStats {
    /// Adds another's counts (seconds: the longest).
    pub fn merge(&mut self, o: &SelfPlayStats) {
        self.games += o.games;
        self.positions += o.positions;
        self.actions += o.actions;
        self.sims += o.sims;
        self.white += o.white;
        self.black += o.black;
        self.draws += o.draws;
        self.seconds = self.seconds.max(o.seconds);
    }

    /// Counts one finished game.
    pub fn count_game(&mut self, g: &GameData) {
        self.games += 1;
        self.positions += g.samples.len() as u64;
        self.actions += g.actions.len() as u64;
        match g.outcome.winner {
            Some(Color::White) => self.white += 1,
            Some(Color::Black) => self.black += 1,
            None => self.draws += 1,
        }
    }
}

struct Slot {
    pos: Position,
    history: KeyHistory,
    actions: Vec<Action>,
    full: Vec<bool>,
    samples: Vec<SearchSample>,
    this_full: bool,
}

/// One self-play worker and its games in flight.
pub struct Worker {
    rules: Rules,
    cfg: SelfPlayConfig,
    full_cfg: PuctConfig,
    fast_cfg: PuctConfig,
    rng: SmallRng,
    searches: Vec<Puct>,
    slots: Vec<Slot>,
    /// Where `start_fraction` of the games start.
    starts: Option<Arc<StartPositions>>,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("games_in_flight", &self.slots.len())
            .finish()
    }
}

impl Worker {
    /// A worker for `rules` with the settings `cfg`, seeded by `seed`,
    /// starting `cfg.start_fraction` of its games at positions of `starts`.
    pub fn new(
        rules: Rules,
        cfg: &SelfPlayConfig,
        starts: Option<Arc<StartPositions>>,
        seed: u64,
    ) -> Worker {
        let gumbel = cfg.gumbel.then_some(GumbelConfig {
            considered: cfg.gumbel_considered,
            ..GumbelConfig::default()
        });
        let full_cfg = PuctConfig {
            simulations: cfg.sims,
            dirichlet_alpha: cfg.dirichlet_alpha,
            dirichlet_epsilon: if cfg.gumbel {
                0.0
            } else {
                cfg.dirichlet_epsilon
            },
            leaves_per_batch: cfg.leaves_per_batch,
            c_init: cfg.c_puct,
            fpu_reduction: cfg.fpu_reduction,
            gumbel,
            ..PuctConfig::default()
        };
        let fast_cfg = PuctConfig {
            simulations: cfg.fast_sims,
            dirichlet_epsilon: 0.0,
            ..full_cfg
        };
        let start = Position::new(rules);
        let mut w = Worker {
            rules,
            cfg: cfg.clone(),
            full_cfg,
            fast_cfg,
            rng: SmallRng::seed_from_u64(seed),
            searches: (0..cfg.games_in_flight)
                .map(|i| Puct::new(full_cfg, mix_seed(seed, i as u64 + 1)))
                .collect(),
            slots: (0..cfg.games_in_flight)
                .map(|_| Slot {
                    pos: start,
                    history: KeyHistory::new(&start),
                    actions: Vec::new(),
                    full: Vec::new(),
                    samples: Vec::new(),
                    this_full: true,
                })
                .collect(),
            starts,
        };
        for i in 0..w.slots.len() {
            w.new_game(i);
        }
        w
    }

    /// Starts slot `i`'s next game: `opening_plies` uniformly random legal
    /// actions from the rules' start, or a recorded position in
    /// `start_fraction` of the games (recorded as fast moves, no sample; an
    /// opening that ends the game is drawn again), then its first search.
    fn new_game(&mut self, i: usize) {
        let (rules, plies, rng) = (self.rules, self.cfg.opening_plies, &mut self.rng);
        if let Some(starts) = &self.starts
            && rng.random::<f32>() < self.cfg.start_fraction
        {
            let start = starts.pick(rules, |n| rng.random_range(0..n));
            return self.begin_game(i, start);
        }
        let mut opening = || random_line(rules, plies, |n| rng.random_range(0..n));
        let (mut line, mut pos, mut history) = opening();
        for _attempt in 1..100 {
            if history.outcome(&pos).is_none() {
                break;
            }
            (line, pos, history) = opening();
        }
        if history.outcome(&pos).is_some() {
            // A hundred openings all ended the game: start without one.
            (line, pos, history) = random_line(rules, 0, |_| 0);
        }
        self.begin_game(i, (line, pos, history));
    }

    /// Puts a game that has played `line` to `pos` into slot `i` and starts
    /// its first search.
    fn begin_game(&mut self, i: usize, (line, pos, history): (Vec<Action>, Position, KeyHistory)) {
        let slot = &mut self.slots[i];
        slot.full = vec![false; line.len()];
        slot.actions = line;
        slot.pos = pos;
        slot.history = history;
        self.start_move(i);
    }

    /// Chooses a full or fast search for slot `i`'s next move and sets its root.
    fn start_move(&mut self, i: usize) {
        let fraction = match self.cfg.place_full_search_fraction {
            Some(f) if self.slots[i].pos.task() == Task::Place => f,
            _ => self.cfg.full_search_fraction,
        };
        let full = self.rng.random::<f32>() < fraction;
        let config = self.move_config(full, self.slots[i].actions.len());
        let slot = &mut self.slots[i];
        slot.this_full = full;
        let search = &mut self.searches[i];
        search.set_config(config);
        search.set_root(slot.pos, slot.history.clone());
    }

    /// The move-selection temperature at `ply`: `temperature` for the first
    /// `temperature_moves` actions of a game, `final_temperature` after.
    fn temperature_at(&self, ply: usize) -> f32 {
        if ply < self.cfg.temperature_moves as usize {
            self.cfg.temperature
        } else {
            self.cfg.final_temperature
        }
    }

    /// The search settings of a full or fast move at `ply`. With a Gumbel
    /// root the temperature scales its Gumbel noise (fast moves too): 1 is
    /// Gumbel MuZero's sampling, 0 (the default after the opening) no noise,
    /// the best of `logit + sigma(Q)`.
    fn move_config(&self, full: bool, ply: usize) -> PuctConfig {
        let mut config = if full { self.full_cfg } else { self.fast_cfg };
        if let Some(g) = &mut config.gumbel {
            g.temperature = self.temperature_at(ply);
        }
        config
    }

    /// Plays with the network `weights` until `stop` says so (checked after
    /// every network call) or `target` positions have been recorded by all
    /// workers together (`produced`); returns the games finished here.
    ///
    /// # Errors
    ///
    /// A message when the network cannot be built.
    pub fn play(
        &mut self,
        weights: &NetWeights,
        backend: Backend,
        produced: &AtomicU64,
        target: u64,
        stop: &AtomicBool,
    ) -> Result<(Vec<GameData>, SelfPlayStats), String> {
        let batch = self.cfg.games_in_flight * self.cfg.leaves_per_batch;
        let mut eval = weights
            .evaluator_on(backend)
            .map_err(|e| e.to_string())?
            .with_preferred_batch(batch);
        let mut buf = EvalBuffers::default();
        let mut stats = SelfPlayStats::default();
        let mut done = Vec::new();
        let t = Instant::now();
        while produced.load(Ordering::Relaxed) < target && !stop.load(Ordering::Relaxed) {
            step_batched(&mut self.searches, &mut eval, &mut buf);
            for i in 0..self.slots.len() {
                if !self.searches[i].finished() {
                    continue;
                }
                if let Some(game) = self.finish_move(i, &mut stats) {
                    produced.fetch_add(game.samples.len() as u64, Ordering::Relaxed);
                    stats.count_game(&game);
                    done.push(game);
                }
            }
        }
        stats.seconds = t.elapsed().as_secs_f64();
        Ok((done, stats))
    }

    /// Plays slot `i`'s searched move; returns the game when it ended.
    fn finish_move(&mut self, i: usize, stats: &mut SelfPlayStats) -> Option<GameData> {
        let ply = self.slots[i].actions.len();
        // A PUCT root samples by visits at this temperature; a Gumbel root
        // was given it as its noise's scale when the move started.
        let temperature = self.temperature_at(ply);
        let search = &mut self.searches[i];
        stats.sims += u64::from(search.done());
        let slot = &mut self.slots[i];
        if slot.this_full {
            let rs = search.root_stats();
            slot.samples.push(SearchSample {
                ply: ply as u32,
                root_value: rs.value,
                policy: rs
                    .actions
                    .iter()
                    .zip(&rs.target)
                    .map(|(a, &p)| (a.policy_index() as u16, p))
                    .collect(),
            });
        }
        let action = search.best_action(temperature);
        let outcome = match action {
            Some(a) => {
                slot.pos.play_unchecked(a);
                slot.history.push(a, &slot.pos);
                slot.actions.push(a);
                slot.full.push(slot.this_full);
                slot.history.outcome(&slot.pos).or_else(|| {
                    (slot.actions.len() >= MAX_GAME_ACTIONS).then_some(Outcome {
                        winner: None,
                        reason: Reason::MaxActions,
                    })
                })
            }
            // No legal action but not over: cannot happen with the rules' own
            // outcome; adjudicate a draw rather than loop.
            None => Some(slot.history.outcome(&slot.pos).unwrap_or(Outcome {
                winner: None,
                reason: Reason::MaxActions,
            })),
        };
        let game = outcome.map(|outcome| GameData {
            actions: std::mem::take(&mut slot.actions),
            full_search: std::mem::take(&mut slot.full),
            outcome,
            samples: std::mem::take(&mut slot.samples),
        });
        if game.is_some() {
            self.new_game(i);
        } else {
            self.start_move(i);
        }
        game
    }
}

/// Runs `workers` on their own threads (one thread each, network inference on
/// it) with `weights` until they recorded `target` positions together or
/// `stop` is set; returns one shard per worker that finished games (played
/// by the network of step `net_step`) and the merged statistics.
///
/// # Errors
///
/// A message when a worker's network cannot be built or a thread fails.
pub fn play_generation(
    workers: &mut [Worker],
    weights: &NetWeights,
    backend: Backend,
    net_step: u64,
    target: u64,
    stop: &AtomicBool,
) -> Result<(Vec<Shard>, SelfPlayStats), String> {
    let produced = AtomicU64::new(0);
    let rules = workers.first().map(|w| w.rules).unwrap_or_default();
    let results: Vec<Result<(Vec<GameData>, SelfPlayStats), String>> =
        std::thread::scope(|scope| {
            let handles: Vec<_> = workers
                .iter_mut()
                .map(|w| {
                    let produced = &produced;
                    scope.spawn(move || {
                        // One thread per worker: inference stays on it.
                        let pool = rayon::ThreadPoolBuilder::new()
                            .num_threads(1)
                            .build()
                            .map_err(|e| e.to_string())?;
                        pool.install(|| w.play(weights, backend, produced, target, stop))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("a self-play worker panicked".into()))
                })
                .collect()
        });
    let mut shards = Vec::new();
    let mut stats = SelfPlayStats::default();
    for r in results {
        let (games, s) = r?;
        stats.merge(&s);
        if !games.is_empty() {
            shards.push(Shard {
                rules,
                net_step,
                sims: s.sims,
                seconds: s.seconds as f32,
                games,
            });
        }
    }
    Ok((shards, stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shax_search::UniformEvaluator;

    /// The games a worker with a tiny untrained network finishes under
    /// `cfg` while recording `target` positions.
    fn play_games(
        rules: Rules,
        cfg: &SelfPlayConfig,
        starts: Option<Arc<StartPositions>>,
        target: u64,
    ) -> Vec<GameData> {
        let model = shax_nn::ModelConfig::new().with_hidden(8).with_blocks(0);
        let device = shax_nn::Backend::Cpu.device();
        let weights = shax_nn::NetWeights::from_net(&model, model.init(&device)).unwrap();
        let mut worker = Worker::new(rules, cfg, starts, 7);
        let (produced, stop) = (AtomicU64::new(0), AtomicBool::new(false));
        let (games, _) = worker
            .play(&weights, shax_nn::Backend::Cpu, &produced, target, &stop)
            .unwrap();
        games
    }

    #[test]
    fn searches_take_exploration_and_first_play_urgency_from_the_config() {
        let cfg = SelfPlayConfig {
            c_puct: 0.5,
            fpu_reduction: 0.0,
            ..SelfPlayConfig::default()
        };
        let worker = Worker::new(Rules::default(), &cfg, None, 1);
        for full in [true, false] {
            let c = worker.move_config(full, 30);
            assert_eq!((c.c_init, c.fpu_reduction), (0.5, 0.0), "full {full}");
        }
    }

    /// Regression (issue 11): with a Gumbel root, `temperature_moves` and
    /// `final_temperature` had no effect and every move (fast ones too) was
    /// a Gumbel sample. Now the opening's moves are sampled with Gumbel noise
    /// at `temperature`, and later moves at `final_temperature`: at 0 the
    /// choice is the same for every seed.
    #[test]
    fn gumbel_noise_follows_the_temperature_schedule() {
        let cfg = SelfPlayConfig {
            gumbel: true,
            temperature: 1.0,
            temperature_moves: 4,
            final_temperature: 0.0,
            ..SelfPlayConfig::default()
        };
        let worker = Worker::new(Rules::default(), &cfg, None, 1);
        for full in [true, false] {
            for ply in 0..8 {
                let c = worker.move_config(full, ply);
                let expect = if ply < 4 { 1.0 } else { 0.0 };
                assert_eq!(c.gumbel.unwrap().temperature, expect, "ply {ply}");
                let sims = if full { cfg.sims } else { cfg.fast_sims };
                assert_eq!(c.simulations, sims);
            }
        }
        // Uniform priors and values: only the noise can tell actions apart.
        let pos = Position::new(Rules::default());
        let choices = |full: bool, ply: usize| -> Vec<Action> {
            (0..8)
                .map(|seed| {
                    let mut s = Puct::new(worker.move_config(full, ply), seed);
                    s.set_root(pos, KeyHistory::new(&pos));
                    s.run(&mut UniformEvaluator::default());
                    s.best_action(0.0).unwrap()
                })
                .collect()
        };
        for full in [true, false] {
            let late = choices(full, 4);
            assert!(late.iter().all(|&a| a == late[0]), "{late:?}");
            let opening = choices(full, 3);
            assert!(opening.iter().any(|&a| a != opening[0]), "{opening:?}");
        }
    }

    /// `opening_plies` random actions start every game: never trained on
    /// (no sample before them, recorded as fast moves), and different from
    /// game to game.
    #[test]
    fn games_start_with_random_untrained_openings() {
        let cfg = SelfPlayConfig {
            games_in_flight: 8,
            sims: 4,
            fast_sims: 2,
            opening_plies: 4,
            ..SelfPlayConfig::default()
        };
        let games = play_games(Rules::default(), &cfg, None, 300);
        assert!(games.len() >= 4, "{} games", games.len());
        for g in &games {
            assert!(
                g.full_search[..4].iter().all(|&f| !f),
                "{:?}",
                g.full_search
            );
            assert!(g.samples.iter().all(|s| s.ply >= 4));
        }
        let openings: std::collections::HashSet<_> =
            games.iter().map(|g| g.actions[..4].to_vec()).collect();
        assert!(openings.len() > games.len() / 2, "{openings:?}");
    }

    /// `place_full_search_fraction` 1 searches every decision to place a
    /// piece in full (and trains on it); the other decisions keep
    /// `full_search_fraction`.
    #[test]
    fn placing_decisions_have_their_own_full_search_fraction() {
        let cfg = SelfPlayConfig {
            games_in_flight: 8,
            sims: 4,
            fast_sims: 2,
            full_search_fraction: 0.01,
            place_full_search_fraction: Some(1.0),
            ..SelfPlayConfig::default()
        };
        let rules = Rules::load("nine-mens-morris").unwrap();
        let games = play_games(rules, &cfg, None, 400);
        assert!(games.len() >= 4, "{} games", games.len());
        let (mut placing, mut other) = ([0, 0], [0, 0]);
        for g in &games {
            let mut pos = Position::new(rules);
            for (&a, &full) in g.actions.iter().zip(&g.full_search) {
                let count = if pos.task() == Task::Place {
                    &mut placing
                } else {
                    &mut other
                };
                count[usize::from(full)] += 1;
                pos.play_unchecked(a);
            }
        }
        assert_eq!(placing[0], 0, "a placement searched fast: {placing:?}");
        assert!(placing[1] >= 4 * 9, "{placing:?}");
        assert!(other[1] * 10 < other[0], "others mostly fast: {other:?}");
    }

    /// With `start_fraction` 1 every game starts at a position of the
    /// recorded game, past its opening: the recorded actions are played,
    /// never trained on, and the starts differ from game to game.
    #[test]
    fn games_start_at_recorded_positions() {
        let rules = Rules::default();
        let game = crate::testkit::random_game(rules, 3);
        let recorded = game.actions().to_vec();
        let dir = std::env::temp_dir().join(format!("shax-selfplay-starts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.jsonl");
        let record = crate::record::GameRecord::new(&game, 2, "random", "random", 0);
        crate::record::write_records(&path, &[record]).unwrap();
        let starts = Arc::new(StartPositions::load(&path, &rules).unwrap());
        let cfg = SelfPlayConfig {
            games_in_flight: 8,
            sims: 4,
            fast_sims: 2,
            start_records: path.display().to_string(),
            start_fraction: 1.0,
            ..SelfPlayConfig::default()
        };
        let games = play_games(rules, &cfg, Some(starts), 300);
        assert!(games.len() >= 4, "{} games", games.len());
        let mut shared = std::collections::HashSet::new();
        for g in &games {
            let common = g
                .actions
                .iter()
                .zip(&recorded)
                .take_while(|(a, b)| a == b)
                .count();
            assert!(common >= 2, "past the recorded opening: {common}");
            assert!(g.full_search[..2].iter().all(|&f| !f));
            assert!(g.samples.iter().all(|s| s.ply >= 2));
            shared.insert(common);
        }
        assert!(shared.len() > 2, "starts differ: {shared:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! The network player: a [`Puct`] search guided by an [`Evaluator`]. It
//! decides one game at a time through [`Player::choose`], or a driver that
//! keeps many games in flight steps the searches of every game that uses the
//! same network together ([`step_pooled`]), one evaluator call for all their
//! leaves, as KataGo's match runner batches its games.

use std::time::Instant;

use shax_core::{Action, KeyHistory, Position, Task};

use crate::eval::WIN_BOUND;
use crate::evaluator::Evaluator;
use crate::guard::{Guard, preferred};
use crate::player::{Limits, Player, SearchInfo};
use crate::puct::{EvalBuffers, Puct, PuctConfig, step_batched, step_capped};

/// A player that searches with [`Puct`] guided by an evaluator (the `net`
/// player spec builds one around a network; tests use a double).
pub struct NeuralPlayer {
    spec: String,
    temperature: f32,
    /// The spec's simulations (a decision's `Limits::nodes` replaces them).
    sims: u32,
    /// The simulations of a decision to place a piece, if not `sims`.
    place_sims: Option<u32>,
    search: Puct,
    evaluator: Box<dyn Evaluator + Send>,
    network: Option<String>,
    /// The alpha-beta that may veto the search's choice.
    guard: Option<Guard>,
    /// The seed and the hard stop of the decision begun last.
    seed: u64,
    cutoff: Option<Instant>,
    info: Option<SearchInfo>,
}

impl NeuralPlayer {
    /// A player with these search settings; `spec` is what [`Player::spec`]
    /// reports (the string that builds it).
    pub fn new(
        spec: String,
        config: PuctConfig,
        evaluator: Box<dyn Evaluator + Send>,
    ) -> NeuralPlayer {
        NeuralPlayer {
            spec,
            temperature: 0.0,
            sims: config.simulations,
            place_sims: None,
            search: Puct::new(config, 0),
            evaluator,
            network: None,
            guard: None,
            seed: 0,
            cutoff: None,
            info: None,
        }
    }

    /// Plays the most visited action at temperature 0 (the default); above 0,
    /// samples actions with probability proportional to `visits^(1/t)`: a
    /// weaker but still sensible player. Ignored with a Gumbel root, which
    /// samples through its own Gumbel perturbation.
    #[must_use]
    pub fn with_temperature(mut self, t: f32) -> NeuralPlayer {
        self.temperature = t.max(0.0);
        if self.temperature > 0.0 {
            // Sampling by visits needs every visit the budget allows.
            let mut config = *self.search.config();
            config.stop_when_decided = false;
            self.search.set_config(config);
        }
        self
    }

    /// Searches decisions to place a piece with `sims` simulations, the
    /// others with the spec's: a budget spent where a game is decided (Shax
    /// is decided while placing).
    #[must_use]
    pub fn with_place_sims(mut self, sims: u32) -> NeuralPlayer {
        self.place_sims = Some(sims.max(1));
        self
    }

    /// Has `guard` review every choice (see [`Guard`]).
    #[must_use]
    pub fn with_guard(mut self, guard: Guard) -> NeuralPlayer {
        self.guard = Some(guard);
        self
    }

    /// Names the network the evaluator computes (a checkpoint's path):
    /// players that name the same one give the same answers for a position,
    /// so [`step_pooled`] may evaluate their leaves in one call. Unnamed
    /// players are pooled with nobody.
    #[must_use]
    pub fn with_network(mut self, network: impl Into<String>) -> NeuralPlayer {
        self.network = Some(network.into());
        self
    }

    /// The network's name, if given ([`NeuralPlayer::with_network`]).
    pub fn network(&self) -> Option<&str> {
        self.network.as_deref()
    }

    /// The search, for its statistics.
    pub fn search(&self) -> &Puct {
        &self.search
    }

    /// Starts a decision on `pos` (the game not over) without evaluating
    /// anything: the budget (`limits.nodes`, else the spec's simulations),
    /// the seed and the root (reusing the tree where it holds `pos`). Step it
    /// with [`step_pooled`] until the search is finished, then
    /// [`NeuralPlayer::conclude`]. Time limits are the stepping driver's to
    /// keep.
    pub fn begin(&mut self, pos: &Position, history: &KeyHistory, limits: &Limits, seed: u64) {
        let mut config = *self.search.config();
        let sims = match self.place_sims {
            Some(n) if pos.task() == Task::Place => n,
            _ => self.sims,
        };
        config.simulations = limits
            .nodes
            .map_or(sims, |n| n.clamp(1, u64::from(u32::MAX)) as u32);
        self.search.set_config(config);
        self.search.reseed(seed);
        self.seed = seed;
        self.cutoff = limits.cutoff;
        self.search.set_root(*pos, history.clone());
    }

    /// Ends the decision begun last: the action to play (a legal one even if
    /// the search was stopped before its first simulation), the `info`
    /// recorded. `None` only when the root's game is over.
    pub fn conclude(&mut self) -> Option<Action> {
        let mut action = self.search.best_action(self.temperature);
        let stats = self.search.root_stats();
        if let (Some(guard), Some(chosen)) = (self.guard.as_mut(), action)
            && self.search.proven().is_none()
        {
            action = guard.review(
                self.search.root_position(),
                self.search.root_history(),
                &preferred(&stats, chosen),
                self.seed,
                self.cutoff,
            );
        }
        self.info = Some(SearchInfo {
            depth: 0,
            nodes: u64::from(self.search.done()),
            // A result the solver proved scores as alpha-beta's found wins.
            score: match self.search.proven() {
                Some(v) if v > 0.0 => WIN_BOUND,
                Some(_) => -WIN_BOUND,
                None => (stats.value * 1000.0) as i32,
            },
            pv: action.into_iter().collect(),
        });
        let mut config = *self.search.config();
        config.simulations = self.sims;
        self.search.set_config(config);
        action.or_else(|| self.search.root_position().legal_actions().first().copied())
    }
}

impl Player for NeuralPlayer {
    fn spec(&self) -> String {
        self.spec.clone()
    }

    fn choose(
        &mut self,
        pos: &Position,
        history: &KeyHistory,
        limits: &Limits,
        seed: u64,
    ) -> Option<Action> {
        if history.outcome(pos).is_some() {
            return None;
        }
        self.begin(pos, history, limits, seed);
        let deadline = limits.deadline(limits.movetime.map(|t| Instant::now() + t));
        let mut buf = EvalBuffers::default();
        while step_batched(
            std::slice::from_mut(&mut self.search),
            self.evaluator.as_mut(),
            &mut buf,
        ) {
            if deadline.is_some_and(|d| Instant::now() >= d) && self.search.done() > 0 {
                break;
            }
        }
        self.conclude()
    }

    fn info(&self) -> Option<SearchInfo> {
        self.info.clone()
    }

    fn reset(&mut self) {
        let config = *self.search.config();
        self.search = Puct::new(config, 0);
        if let Some(g) = self.guard.as_mut() {
            g.reset();
        }
    }

    fn as_neural(&mut self) -> Option<&mut NeuralPlayer> {
        Some(self)
    }
}

/// One round for the decisions in progress of players that share a network
/// (the same [`NeuralPlayer::network`], or a single player): each unfinished
/// search gathers its leaves (its `leaves_per_batch`), the first player's
/// evaluator evaluates all of them in one call, each search takes its own.
/// A search makes the same tree as it would alone, up to the rounding of a
/// larger batch. Returns false when every search had finished.
pub fn step_pooled(players: &mut [&mut NeuralPlayer], buf: &mut EvalBuffers) -> bool {
    let mut evaluator: Option<&mut (dyn Evaluator + Send)> = None;
    let mut searches: Vec<&mut Puct> = Vec::with_capacity(players.len());
    let mut cap = 0;
    for p in players.iter_mut() {
        let NeuralPlayer {
            search,
            evaluator: e,
            ..
        } = &mut **p;
        cap += search.config().leaves_per_batch.max(1);
        if evaluator.is_none() {
            evaluator = Some(e.as_mut());
        }
        searches.push(search);
    }
    match evaluator {
        Some(e) => step_capped(&mut searches, e, cap, buf),
        None => false,
    }
}

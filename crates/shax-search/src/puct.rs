//! The neural MCTS: PUCT selection guided by an [`Evaluator`], AlphaZero's
//! terms, Dirichlet noise at the root, tree reuse between moves, virtual loss
//! so one search can put many leaves into a batch, and a Gumbel root
//! (Gumbel-top-k sampling and sequential halving, "Policy improvement by
//! planning with Gumbel", Danihelka et al. 2022) for low simulation counts.
//!
//! Values are backed up with the sign of the player to act at each node: a
//! node's value is kept from the view of the player who chose the action
//! leading to it, and a leaf's value is added where that player is the
//! leaf's player to act and subtracted elsewhere. Removals, Shax's opening
//! removals and freeing moves are plies by the same or the other player;
//! nothing assumes alternation. Finished games use the true result
//! (repetition included, through the path's history); with
//! [`PuctConfig::two_fold_draws`] a cycle inside the search is a draw at once.
//!
//! With [`PuctConfig::solver`], won and lost games found in the tree are
//! proven up it (MCTS-Solver, Winands et al. 2008): a node where the player
//! to act has a winning action is won, one where every action loses is lost;
//! the search then plays a proven win, never chooses a proven loss while
//! another action is open, backs up a proven node's exact value without
//! searching below it, and stops once the root is proven.
//!
//! With [`PuctConfig::eval_cache`], a leaf whose position the search has
//! evaluated before (a transposition) takes the kept answer at once instead
//! of waiting for the evaluator.
//!
//! With a [`PuctConfig::draw_score`], a draw is worth that much to the root's
//! player to act and its negative to the other: finished draws, and the
//! evaluator's chance of a draw at each leaf ([`Evaluator::evaluate_wdl`]).
//!
//! Many games in flight: each [`Puct`] gathers its leaves, [`run_batched`]
//! puts the leaves of all searches into one evaluator call.

use std::borrow::BorrowMut;
use std::collections::VecDeque;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Gamma};
use shax_core::{Action, Color, KeyHistory, POLICY_SIZE, Position};

use crate::evaluator::Evaluator;
use crate::player::PathHistory;

mod cache;
mod gumbel;
mod solver;

use cache::EvalCache;
pub use gumbel::GumbelConfig;
use solver::Proof;

const NONE: u32 = u32::MAX;

/// Search settings. Defaults follow AlphaZero where it has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuctConfig {
    /// Simulations per decision.
    pub simulations: u32,
    /// `c_init` of AlphaZero's exploration term `log((1 + N + c_base) / c_base) + c_init`.
    pub c_init: f32,
    /// `c_base` of the same.
    pub c_base: f32,
    /// First-play urgency: an unvisited child counts as the parent's value minus this.
    pub fpu_reduction: f32,
    /// The search's priors are `softmax(logits / policy_temperature)`: above
    /// 1 they are flatter than the network's policy, so the search looks at
    /// more of the moves the network ranks second (lc0's policy softmax
    /// temperature). The Gumbel root and [`RootStats::prior`] keep the
    /// network's own logits.
    pub policy_temperature: f32,
    /// Dirichlet noise concentration at the root.
    pub dirichlet_alpha: f32,
    /// Weight of the noise in the root priors; 0 turns it off (evaluation play).
    pub dirichlet_epsilon: f32,
    /// Leaves one search may have waiting for the evaluator at once.
    pub leaves_per_batch: usize,
    /// Value counted against a child for each simulation in flight through it.
    pub virtual_loss: f32,
    /// Gumbel root instead of PUCT and noise at the root.
    pub gumbel: Option<GumbelConfig>,
    /// Prove won and lost nodes from finished games in the tree (see the
    /// module docs).
    pub solver: bool,
    /// Stop a search once its most visited root action can no longer be
    /// overtaken within the budget (lc0's smart pruning): the same choice at
    /// temperature 0, fewer simulations. Not with a Gumbel root, and not
    /// for searches whose visit counts are a training target.
    pub stop_when_decided: bool,
    /// Score a position that repeats one since the root (the root included)
    /// as a draw, as lc0 and chess engines do, instead of waiting for the
    /// rules' third occurrence: a side ahead then makes progress rather
    /// than shuffle, since the network does not see repetitions.
    pub two_fold_draws: bool,
    /// Keep the evaluator's answers by position and reuse them for leaves
    /// the search reaches again by another order of moves (lc0's `NNCache`).
    /// The same answers, fewer evaluations; off only to measure it.
    pub eval_cache: bool,
    /// What a draw is worth to the player the search decides for (the
    /// root's player to act) where a win is 1: lc0's draw score. The
    /// evaluator's P(draw) times this is added to a position's value from
    /// that player's view (taken from it from the opponent's), and a
    /// finished draw scores it. Above 0 the search takes a safe draw over a
    /// win it is unsure of, and a loss weighs more than a win: for a player
    /// that must rarely lose. 0, the default, is the plain result. With an
    /// evaluator that does not estimate draws only finished draws change.
    pub draw_score: f32,
}

impl PuctConfig {
    /// The `c_init` a user may set (a player spec, a training config).
    pub const C_INIT_RANGE: (f32, f32) = (0.0, 100.0);
    /// The `fpu_reduction` a user may set: values are in [-1, 1], so 2 keeps
    /// every unvisited child behind every visited one.
    pub const FPU_REDUCTION_RANGE: (f32, f32) = (0.0, 2.0);
    /// The `policy_temperature` a user may set.
    pub const POLICY_TEMPERATURE_RANGE: (f32, f32) = (0.1, 10.0);
    /// The `draw_score` a user may set: short of a win or a loss, which
    /// only finished games prove.
    pub const DRAW_SCORE_RANGE: (f32, f32) = (-0.9, 0.9);
}

impl Default for PuctConfig {
    fn default() -> PuctConfig {
        PuctConfig {
            simulations: 200,
            c_init: 1.25,
            c_base: 19652.0,
            fpu_reduction: 0.25,
            policy_temperature: 1.0,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.0,
            leaves_per_batch: 8,
            virtual_loss: 1.0,
            gumbel: None,
            solver: false,
            stop_when_decided: false,
            two_fold_draws: false,
            eval_cache: true,
            draw_score: 0.0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Never reached.
    Fresh,
    /// Waiting for the evaluator.
    Pending,
    /// Children created.
    Expanded,
    /// The game is over here.
    Terminal,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    parent: u32,
    first_child: u32,
    num_children: u16,
    state: State,
    /// Who chose the action leading here (the parent's player to act); at
    /// the root, its own player to act (so the root's values are that player's).
    mover: Color,
    /// The player to act here (known once reached).
    to_act: Color,
    action: Action,
    prior: f32,
    logit: f32,
    visits: u32,
    in_flight: u32,
    /// Sum of backed-up values, from `mover`'s view.
    value_sum: f32,
    /// For terminal nodes: the result for `to_act`.
    terminal_value: f32,
    /// What the solver proved, from `mover`'s view.
    proof: Proof,
}

impl Node {
    fn new(parent: u32, action: Action, mover: Color) -> Node {
        Node {
            parent,
            first_child: NONE,
            num_children: 0,
            state: State::Fresh,
            mover,
            to_act: mover,
            action,
            prior: 0.0,
            logit: 0.0,
            visits: 0,
            in_flight: 0,
            value_sum: 0.0,
            terminal_value: 0.0,
            proof: Proof::Unknown,
        }
    }

    fn children(&self) -> std::ops::Range<usize> {
        if self.first_child == NONE {
            0..0
        } else {
            self.first_child as usize..self.first_child as usize + self.num_children as usize
        }
    }

    /// Mean value from `mover`'s view.
    fn q(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value_sum / self.visits as f32
        }
    }
}

/// What the last search found at the root, per legal action.
#[derive(Clone, Debug, PartialEq)]
pub struct RootStats {
    /// The root's legal actions, in generation order.
    pub actions: Vec<Action>,
    /// Visits of each.
    pub visits: Vec<u32>,
    /// Mean value of each for the player to act at the root (0 when unvisited).
    pub q: Vec<f32>,
    /// The network's prior of each (before noise).
    pub prior: Vec<f32>,
    /// The policy training target: visit counts normalised (AlphaZero) or the
    /// Gumbel improved policy `softmax(logits + sigma(completed Q))`.
    pub target: Vec<f32>,
    /// The root's value for the player to act (the mean over its visits).
    pub value: f32,
    /// What the solver proved of each action for the player to act at the
    /// root: 1 a win, -1 a loss (always `None` without [`PuctConfig::solver`]).
    pub proven: Vec<Option<f32>>,
}

/// One game's search tree.
///
/// # Examples
///
/// ```
/// use shax_core::{KeyHistory, Position, Rules};
/// use shax_search::{Puct, PuctConfig, UniformEvaluator};
///
/// let pos = Position::new(Rules::default());
/// let mut search = Puct::new(PuctConfig { simulations: 64, ..PuctConfig::default() }, 1);
/// search.set_root(pos, KeyHistory::new(&pos));
/// search.run(&mut UniformEvaluator::default());
/// let action = search.best_action(0.0).unwrap();
/// assert!(pos.is_legal(action));
/// ```
pub struct Puct {
    config: PuctConfig,
    nodes: Vec<Node>,
    root: u32,
    root_pos: Position,
    root_history: KeyHistory,
    /// Root visits when this decision's search started (tree reuse).
    start_visits: u32,
    pending: Vec<(u32, Position)>,
    rng: SmallRng,
    /// Gumbel state: the perturbation per root child, the candidates left and
    /// the visits still scheduled this phase.
    gumbel: Vec<f32>,
    candidates: Vec<u32>,
    schedule: VecDeque<u32>,
    phase_budget: u32,
    /// Descents abandoned because they reached a leaf already waiting.
    pub collisions: u64,
    /// Answers kept by position ([`PuctConfig::eval_cache`]).
    cache: EvalCache,
    /// Leaves answered from the cache instead of the evaluator.
    pub cache_hits: u64,
}

impl std::fmt::Debug for Puct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Puct")
            .field("nodes", &self.nodes.len())
            .field("config", &self.config)
            .finish()
    }
}

impl Puct {
    /// An empty search; call [`Puct::set_root`] before searching.
    pub fn new(config: PuctConfig, seed: u64) -> Puct {
        let start = Position::new(shax_core::Rules::default());
        Puct {
            config,
            nodes: Vec::new(),
            root: NONE,
            root_pos: start,
            root_history: KeyHistory::new(&start),
            start_visits: 0,
            pending: Vec::new(),
            rng: SmallRng::seed_from_u64(seed),
            gumbel: Vec::new(),
            candidates: Vec::new(),
            schedule: VecDeque::new(),
            phase_budget: 0,
            collisions: 0,
            cache: EvalCache::default(),
            cache_hits: 0,
        }
    }

    /// The settings.
    pub fn config(&self) -> &PuctConfig {
        &self.config
    }

    /// Changes the settings (the tree is kept).
    pub fn set_config(&mut self, config: PuctConfig) {
        self.config = config;
    }

    /// Reseeds the search's randomness (noise, Gumbel, temperature).
    pub fn reseed(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }

    /// Nodes in the tree.
    pub fn tree_size(&self) -> usize {
        self.nodes.len()
    }

    /// The root position.
    pub fn root_position(&self) -> &Position {
        &self.root_pos
    }

    /// The game's repetition history up to the root.
    pub fn root_history(&self) -> &KeyHistory {
        &self.root_history
    }

    /// Makes `pos` (with the game's repetition `history`) the root of the next
    /// search. When the tree holds `pos` within three plies below the current
    /// root, that subtree is kept (tree reuse); otherwise the tree is cleared.
    /// Returns whether a subtree was reused.
    pub fn set_root(&mut self, pos: Position, history: KeyHistory) -> bool {
        // Values scored with a draw score are one player's: the other's
        // search starts afresh.
        let same_side = self.config.draw_score == 0.0 || self.root_pos.to_act() == pos.to_act();
        let found = self.find(&pos, 3).filter(|_| same_side);
        self.pending.clear();
        let reused = match found {
            Some(idx) if self.nodes[idx as usize].state == State::Expanded => {
                self.compact(idx);
                true
            }
            _ => {
                self.nodes.clear();
                // Another game, or a position far from the last search's.
                self.cache.clear();
                self.nodes.push(Node::new(
                    NONE,
                    Action::Place(shax_core::Point::ALL[0]),
                    pos.to_act(),
                ));
                self.root = 0;
                false
            }
        };
        self.root_pos = pos;
        self.root_history = history;
        let root = &mut self.nodes[self.root as usize];
        root.parent = NONE;
        if root.mover != pos.to_act() {
            // A reused node kept its values from the view of the player who
            // moved into it; the root keeps them from its player to act's.
            root.value_sum = -root.value_sum;
            root.proof = root.proof.flipped();
            root.mover = pos.to_act();
        }
        self.start_visits = root.visits;
        if reused {
            self.prepare_root();
        }
        reused
    }

    /// Finds the node holding `pos` within `depth` plies of the root.
    fn find(&self, pos: &Position, depth: u32) -> Option<u32> {
        if self.root == NONE {
            return None;
        }
        let mut frontier = vec![(self.root, self.root_pos)];
        for _ in 0..=depth {
            let mut next = Vec::new();
            for (idx, p) in frontier {
                if p == *pos {
                    return Some(idx);
                }
                let node = &self.nodes[idx as usize];
                if node.state == State::Expanded {
                    for c in node.children() {
                        let mut q = p;
                        q.play_unchecked(self.nodes[c].action);
                        next.push((c as u32, q));
                    }
                }
            }
            frontier = next;
        }
        None
    }

    /// Keeps only the subtree under `idx`, which becomes the root.
    fn compact(&mut self, idx: u32) {
        let mut out: Vec<Node> = Vec::with_capacity(self.nodes.len());
        let mut root = self.nodes[idx as usize];
        root.parent = NONE;
        root.in_flight = 0;
        out.push(root);
        let mut queue = VecDeque::from([(idx, 0u32)]);
        while let Some((old, new)) = queue.pop_front() {
            let node = self.nodes[old as usize];
            if node.first_child == NONE {
                continue;
            }
            let first = out.len() as u32;
            out[new as usize].first_child = first;
            for (k, c) in node.children().enumerate() {
                let mut child = self.nodes[c];
                child.parent = new;
                if child.state == State::Pending {
                    // Its evaluation belonged to the old search.
                    child.state = State::Fresh;
                }
                child.in_flight = 0;
                out.push(child);
                queue.push_back((c as u32, first + k as u32));
            }
        }
        self.nodes = out;
        self.root = 0;
    }

    /// Root priors from the logits again, then noise or the Gumbel sample.
    fn prepare_root(&mut self) {
        let range = self.nodes[self.root as usize].children();
        if range.is_empty() {
            return;
        }
        set_priors(
            &mut self.nodes[range.clone()],
            self.config.policy_temperature,
        );
        if let Some(g) = self.config.gumbel {
            self.start_gumbel(g);
        } else if self.config.dirichlet_epsilon > 0.0 && range.len() > 1 {
            let gamma = Gamma::new(self.config.dirichlet_alpha.max(1e-3) as f64, 1.0)
                .expect("positive alpha");
            let noise: Vec<f64> = range.clone().map(|_| gamma.sample(&mut self.rng)).collect();
            let total: f64 = noise.iter().sum::<f64>().max(1e-30);
            let eps = self.config.dirichlet_epsilon;
            for (n, x) in self.nodes[range].iter_mut().zip(noise) {
                n.prior = (1.0 - eps) * n.prior + eps * (x / total) as f32;
            }
        }
    }

    /// The root's result for its player to act when the solver proved it
    /// (1 a win, -1 a loss).
    pub fn proven(&self) -> Option<f32> {
        self.nodes.get(self.root as usize)?.proof.value()
    }

    /// Simulations completed in this decision's search.
    pub fn done(&self) -> u32 {
        if self.root == NONE {
            return 0;
        }
        self.nodes[self.root as usize].visits - self.start_visits
    }

    /// Whether this decision's search has used its budget.
    pub fn finished(&self) -> bool {
        self.root == NONE
            || self.done() >= self.config.simulations
            || self.root_settled()
            || self.decided()
    }

    /// The positions waiting for the evaluator, in order.
    pub fn pending_positions(&self) -> impl Iterator<Item = &Position> {
        self.pending.iter().map(|(_, p)| p)
    }

    /// Number of leaves waiting for the evaluator.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Descends until up to `max_leaves` leaves wait for the evaluator (or
    /// the budget is met). Finished games met on the way are backed up at once.
    pub fn gather(&mut self, max_leaves: usize) {
        if self.root == NONE {
            return;
        }
        let base = std::mem::take(&mut self.root_history);
        let mut path = PathHistory::new(&base);
        let mut attempts = 0;
        while self.pending.len() < max_leaves && attempts < 4 * max_leaves.max(1) {
            let budget_left = self.config.simulations.saturating_sub(self.done()) as usize;
            if budget_left <= self.pending.len() || self.root_settled() {
                break;
            }
            // The root is expanded by the first evaluation alone.
            if self.nodes[self.root as usize].state == State::Pending {
                break;
            }
            attempts += 1;
            self.descend(&mut path);
        }
        self.root_history = base;
    }

    /// One descent from the root: ends at a new leaf (queued), a finished game
    /// (backed up) or a leaf already queued (a collision, undone).
    fn descend(&mut self, path: &mut PathHistory<'_>) {
        let mark = path.mark();
        let mut idx = self.root;
        let mut pos = self.root_pos;
        let mut depth = 0;
        let mut scheduled = None;
        loop {
            self.nodes[idx as usize].in_flight += 1;
            let n = self.nodes[idx as usize];
            if let Some(v) = n.proof.value() {
                // Proven: its value is known, nothing below needs a visit.
                self.backup(idx, v, n.mover);
                break;
            }
            match n.state {
                State::Terminal => {
                    self.backup(idx, n.terminal_value, n.to_act);
                    break;
                }
                State::Pending => {
                    self.undo_flight(idx);
                    self.collisions += 1;
                    // A Gumbel visit that collided is owed: retry it later.
                    if let Some(c) = scheduled {
                        self.schedule.push_back(c);
                    }
                    break;
                }
                State::Fresh => {
                    let result = match path.outcome(&pos) {
                        Some(o) => Some(o.value_for(pos.to_act())),
                        None if self.config.two_fold_draws
                            && path.repeats_since_root(self.root_pos.key()) =>
                        {
                            Some(0.0)
                        }
                        None => None,
                    }
                    .map(|v| self.scored(v, if v == 0.0 { 1.0 } else { 0.0 }, pos.to_act()));
                    let node = &mut self.nodes[idx as usize];
                    node.to_act = pos.to_act();
                    if let Some(value) = result {
                        node.state = State::Terminal;
                        node.terminal_value = value;
                        self.backup(idx, value, pos.to_act());
                        if self.config.solver {
                            self.prove_terminal(idx);
                        }
                    } else if !self.expand_from_cache(idx, &pos) {
                        self.nodes[idx as usize].state = State::Pending;
                        self.pending.push((idx, pos));
                    }
                    break;
                }
                State::Expanded => {
                    let child = if depth == 0
                        && self.config.gumbel.is_some()
                        && !self.candidates.is_empty()
                    {
                        let c = self.next_gumbel_child();
                        scheduled = Some(c);
                        c
                    } else {
                        self.select(idx)
                    };
                    let a = self.nodes[child as usize].action;
                    pos.play_unchecked(a);
                    path.push(a, &pos);
                    idx = child;
                    depth += 1;
                }
            }
        }
        path.pop(mark);
    }

    /// The PUCT choice among `idx`'s children, virtual losses counted.
    fn select(&self, idx: u32) -> u32 {
        let p = &self.nodes[idx as usize];
        let n_parent = (p.visits + p.in_flight) as f32;
        let c =
            ((1.0 + n_parent + self.config.c_base) / self.config.c_base).ln() + self.config.c_init;
        let explore = c * n_parent.max(1.0).sqrt();
        // The parent's value for its player to act (the chooser).
        let parent_q = if p.visits == 0 {
            0.0
        } else if p.mover == p.to_act {
            p.q()
        } else {
            -p.q()
        };
        let fpu = parent_q - self.config.fpu_reduction;
        let vl = self.config.virtual_loss;
        let mut best = (f32::NEG_INFINITY, p.first_child);
        for ci in p.children() {
            let ch = &self.nodes[ci];
            // A child's proof is from the chooser's view.
            match ch.proof {
                Proof::Win => return ci as u32,
                Proof::Loss => continue,
                Proof::Unknown => {}
            }
            let n = ch.visits + ch.in_flight;
            let q = if n == 0 {
                fpu
            } else {
                (ch.value_sum - vl * ch.in_flight as f32) / n as f32
            };
            let score = q + explore * ch.prior / (1.0 + n as f32);
            if score > best.0 {
                best = (score, ci as u32);
            }
        }
        best.1
    }

    /// Whether [`PuctConfig::stop_when_decided`] ends the search: the most
    /// visited root action that is not a proven loss leads the next by more
    /// visits than the budget has left. Checked once a round ([`Puct::finished`]),
    /// not for every leaf of a gathering: visits change when the leaves are applied.
    fn decided(&self) -> bool {
        if !self.config.stop_when_decided || self.config.gumbel.is_some() {
            return false;
        }
        let root = &self.nodes[self.root as usize];
        let (mut first, mut second) = (0, 0);
        for c in &self.nodes[root.children()] {
            if c.proof == Proof::Loss {
                continue;
            }
            if c.visits > first {
                (first, second) = (c.visits, first);
            } else if c.visits > second {
                second = c.visits;
            }
        }
        let left = self.config.simulations.saturating_sub(self.done());
        first > second + left
    }

    fn undo_flight(&mut self, mut idx: u32) {
        while idx != NONE {
            let n = &mut self.nodes[idx as usize];
            n.in_flight -= 1;
            idx = n.parent;
        }
    }

    /// Adds `value`, the result for `color`, along the path to the root.
    fn backup(&mut self, mut idx: u32, value: f32, color: Color) {
        while idx != NONE {
            let n = &mut self.nodes[idx as usize];
            n.visits += 1;
            n.in_flight -= 1;
            n.value_sum += if n.mover == color { value } else { -value };
            idx = n.parent;
        }
    }

    /// Takes the evaluator's answers for the pending leaves, in order: row `i`
    /// of `logits` (POLICY_SIZE wide), `values[i]` and `draws[i]` belong to
    /// the `i`-th.
    ///
    /// # Panics
    ///
    /// When the slices are shorter than the pending leaves need.
    pub fn apply(&mut self, logits: &[f32], values: &[f32], draws: &[f32]) {
        let pending = std::mem::take(&mut self.pending);
        for (i, &(idx, pos)) in pending.iter().enumerate() {
            let row = &logits[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
            let value = self.scored(values[i].clamp(-1.0, 1.0), draws[i], pos.to_act());
            self.expand(idx, &pos, |_, a| row[a.policy_index()], value);
            if self.config.eval_cache {
                let kids = &self.nodes[self.nodes[idx as usize].children()];
                self.cache
                    .insert(pos.full_key(), value, kids.iter().map(|n| n.logit));
            }
        }
        self.pending = pending;
        self.pending.clear();
    }

    /// `value`, a result for `to_act` with a chance `draw` of a draw in it,
    /// with the draw scored at [`PuctConfig::draw_score`] for the root's
    /// player and at minus that for the other.
    fn scored(&self, value: f32, draw: f32, to_act: Color) -> f32 {
        let score = self.config.draw_score;
        if score == 0.0 {
            return value;
        }
        let score = if to_act == self.root_pos.to_act() {
            score
        } else {
            -score
        };
        (value + score * draw).clamp(-1.0, 1.0)
    }

    /// Expands `idx` from the evaluator's answer kept for `pos`, if any.
    fn expand_from_cache(&mut self, idx: u32, pos: &Position) -> bool {
        if !self.config.eval_cache {
            return false;
        }
        // Out of `self` while `expand` reads it (moving a map copies no entries).
        let cache = std::mem::take(&mut self.cache);
        let hit = cache.get(pos.full_key());
        if let Some((value, logits)) = hit {
            self.cache_hits += 1;
            self.expand(idx, pos, |i, _| logits[i], value);
        }
        let found = hit.is_some();
        self.cache = cache;
        found
    }

    /// Creates `idx`'s children, the legal actions of `pos`, with the logit
    /// `logit(i, action)` for the `i`-th, and backs up `value`.
    fn expand(
        &mut self,
        idx: u32,
        pos: &Position,
        logit: impl Fn(usize, Action) -> f32,
        value: f32,
    ) {
        let legal = pos.legal_actions();
        let first = self.nodes.len() as u32;
        let mover = pos.to_act();
        for (i, &a) in legal.iter().enumerate() {
            let l = logit(i, a);
            let mut child = Node::new(idx, a, mover);
            child.logit = if l.is_finite() { l } else { 0.0 };
            self.nodes.push(child);
        }
        set_priors(
            &mut self.nodes[first as usize..],
            self.config.policy_temperature,
        );
        let node = &mut self.nodes[idx as usize];
        node.first_child = first;
        node.num_children = legal.len() as u16;
        node.state = State::Expanded;
        self.backup(idx, value, mover);
        if idx == self.root {
            self.prepare_root();
        }
    }

    /// Runs this search alone to its budget, batching its own leaves.
    pub fn run<E: Evaluator + ?Sized>(&mut self, evaluator: &mut E) {
        run_batched(
            std::slice::from_mut(self),
            evaluator,
            &mut EvalBuffers::default(),
        );
    }

    fn root_value(&self) -> f32 {
        let r = &self.nodes[self.root as usize];
        if r.mover == r.to_act { r.q() } else { -r.q() }
    }

    /// The root's statistics and the policy target.
    pub fn root_stats(&self) -> RootStats {
        let root = &self.nodes[self.root as usize];
        let kids = &self.nodes[root.children()];
        let visits: Vec<u32> = kids.iter().map(|n| n.visits).collect();
        let total: u32 = visits.iter().sum();
        let target = if self.config.gumbel.is_some() && !kids.is_empty() {
            let sigma = self.sigma_completed_q();
            let z: Vec<f32> = kids.iter().zip(&sigma).map(|(n, s)| n.logit + s).collect();
            let m = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let e: Vec<f32> = z.iter().map(|x| (x - m).exp()).collect();
            let s: f32 = e.iter().sum();
            e.iter().map(|x| x / s).collect()
        } else if total > 0 {
            visits.iter().map(|&v| v as f32 / total as f32).collect()
        } else {
            kids.iter().map(|n| n.prior).collect()
        };
        let max = kids
            .iter()
            .map(|n| n.logit)
            .fold(f32::NEG_INFINITY, f32::max);
        let sum: f32 = kids.iter().map(|n| (n.logit - max).exp()).sum();
        RootStats {
            actions: kids.iter().map(|n| n.action).collect(),
            visits,
            q: kids.iter().map(|n| n.q()).collect(),
            prior: kids.iter().map(|n| (n.logit - max).exp() / sum).collect(),
            target,
            value: if root.visits > 0 {
                self.root_value()
            } else {
                0.0
            },
            proven: kids.iter().map(|n| n.proof.value()).collect(),
        }
    }

    /// The action to play: with a Gumbel root, the best candidate by
    /// `g + logit + sigma(Q)` (`g` scaled by [`GumbelConfig::temperature`],
    /// none at 0; `temperature` here is ignored); otherwise the most visited child at temperature
    /// 0, or one sampled with probability proportional to `visits^(1/t)`.
    /// `None` when the root has no children (a finished game).
    pub fn best_action(&mut self, temperature: f32) -> Option<Action> {
        let root = self.nodes.get(self.root as usize)?;
        let range = root.children();
        if range.is_empty() {
            return None;
        }
        let kids = &self.nodes[range.clone()];
        if let Some(win) = kids
            .iter()
            .filter(|n| n.proof == Proof::Win)
            .max_by_key(|n| n.visits)
        {
            return Some(win.action);
        }
        // Proven losses only when nothing else is left.
        let open: Vec<Node> = kids
            .iter()
            .filter(|n| n.proof != Proof::Loss)
            .copied()
            .collect();
        let kids = if open.is_empty() { kids } else { &open[..] };
        if self.config.gumbel.is_some() && !self.candidates.is_empty() {
            let sigma = self.sigma_completed_q();
            let open = |c: u32| self.nodes[c as usize].proof != Proof::Loss;
            let best = self.candidates.iter().copied().max_by(|&a, &b| {
                (open(a).cmp(&open(b))).then(
                    self.gumbel_score(a, &sigma)
                        .total_cmp(&self.gumbel_score(b, &sigma)),
                )
            })?;
            return Some(self.nodes[best as usize].action);
        }
        if temperature <= 1e-3 {
            let best = kids
                .iter()
                .max_by(|a, b| a.visits.cmp(&b.visits).then(a.prior.total_cmp(&b.prior)))?;
            return Some(best.action);
        }
        let weights: Vec<f64> = kids
            .iter()
            .map(|n| (n.visits as f64).powf(1.0 / temperature as f64))
            .collect();
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            return Some(kids[self.rng.random_range(0..kids.len())].action);
        }
        let mut x = self.rng.random_range(0.0..total);
        for (n, w) in kids.iter().zip(&weights) {
            if x < *w {
                return Some(n.action);
            }
            x -= w;
        }
        kids.last().map(|n| n.action)
    }
}

/// Sets `kids`' priors to the softmax of their logits divided by
/// `temperature` (see [`PuctConfig::policy_temperature`]).
fn set_priors(kids: &mut [Node], temperature: f32) {
    let max = kids
        .iter()
        .map(|n| n.logit)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for n in kids.iter_mut() {
        n.prior = ((n.logit - max) / temperature).exp();
        sum += n.prior;
    }
    for n in kids {
        n.prior /= sum;
    }
}

/// Reusable buffers for [`run_batched`].
#[derive(Default)]
pub struct EvalBuffers {
    positions: Vec<Position>,
    logits: Vec<f32>,
    values: Vec<f32>,
    draws: Vec<f32>,
    /// Evaluator calls and positions evaluated so far.
    pub calls: u64,
    /// Positions evaluated so far.
    pub evaluated: u64,
}

/// Runs every search to its budget, putting the leaves of all of them into
/// one evaluator call per round (up to the evaluator's preferred batch; each
/// search contributes up to its `leaves_per_batch`).
pub fn run_batched<E: Evaluator + ?Sized>(
    searches: &mut [Puct],
    evaluator: &mut E,
    buf: &mut EvalBuffers,
) {
    loop {
        if !step_batched(searches, evaluator, buf) {
            break;
        }
    }
}

/// One round of [`run_batched`]: gather, evaluate once, apply. Returns false
/// when every search had finished (nothing was evaluated).
pub fn step_batched<E: Evaluator + ?Sized>(
    searches: &mut [Puct],
    evaluator: &mut E,
    buf: &mut EvalBuffers,
) -> bool {
    let cap = evaluator.preferred_batch().max(1);
    step_capped(searches, evaluator, cap, buf)
}

/// [`step_batched`] with at most `cap` leaves in the call, over searches
/// owned or borrowed.
pub(crate) fn step_capped<S: BorrowMut<Puct>, E: Evaluator + ?Sized>(
    searches: &mut [S],
    evaluator: &mut E,
    cap: usize,
    buf: &mut EvalBuffers,
) -> bool {
    let mut any = false;
    buf.positions.clear();
    for s in searches.iter_mut() {
        let s = s.borrow_mut();
        if s.finished() {
            continue;
        }
        any = true;
        let room = cap.saturating_sub(buf.positions.len());
        if room == 0 {
            continue;
        }
        s.gather(s.config.leaves_per_batch.min(room).max(1));
        buf.positions.extend(s.pending_positions().copied());
    }
    if buf.positions.is_empty() {
        // Only finished games were met (or nothing is left): go round again.
        return any && searches.iter().any(|s| !s.borrow().finished());
    }
    let n = buf.positions.len();
    buf.logits.resize(n * POLICY_SIZE, 0.0);
    buf.values.resize(n, 0.0);
    buf.draws.resize(n, 0.0);
    evaluator.evaluate_wdl(
        &buf.positions,
        &mut buf.logits,
        &mut buf.values,
        &mut buf.draws,
    );
    buf.calls += 1;
    buf.evaluated += n as u64;
    let mut off = 0;
    for s in searches.iter_mut() {
        let s = s.borrow_mut();
        let k = s.pending_len();
        if k > 0 {
            s.apply(
                &buf.logits[off * POLICY_SIZE..(off + k) * POLICY_SIZE],
                &buf.values[off..off + k],
                &buf.draws[off..off + k],
            );
            off += k;
        }
    }
    true
}

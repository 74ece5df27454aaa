//! `mcts`: plain UCT with uniformly random rollouts, the kind OpenSpiel's
//! `MCTSBot` is: a node is expanded (all children, in random order) on its
//! second visit, unvisited children are tried first, then UCB1 with constant
//! `c`; one random rollout per simulation; the most visited root child is played.
//!
//! The tree lives in a `Vec` arena reused between decisions, and rollouts copy
//! the `Copy` position and reuse one action list: nothing is allocated per
//! simulation once the vectors have grown.

use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shax_core::{Action, ActionList, Bitboard, Color, KeyHistory, Outcome, Point, Position, Task};

use crate::player::{Limits, PathHistory, Player, SearchInfo, irreversible, mix_seed};
use crate::spec::{Param, PlayerSpec, SEED, SpecError};

const DEFAULT_SIMS: u64 = 1000;
const DEFAULT_C: f64 = 2.0;
const SIMS: Param<u64> = Param::new("sims", 1, 1_000_000_000);
const MS: Param<u64> = Param::new("ms", 1, 3_600_000);
const C: Param<f64> = Param::new("c", 0.0, 100.0);

#[derive(Clone, Copy, Debug)]
struct Node {
    /// The action leading here.
    action: Action,
    /// Who played it (the player to act at the parent).
    mover: Color,
    expanded: bool,
    n_children: u16,
    first_child: u32,
    visits: u32,
    /// Sum of results for `mover`.
    value: f32,
}

/// The UCT player.
#[derive(Debug)]
pub struct Uct {
    sims: Option<u64>,
    ms: Option<u64>,
    c: Option<f64>,
    seed: Option<u64>,
    tree: Vec<Node>,
    path: Vec<u32>,
    info: Option<SearchInfo>,
}

/// Statistics of one search, for benchmarks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UctStats {
    /// Simulations run.
    pub simulations: u64,
    /// Actions played in rollouts, all simulations together.
    pub rollout_actions: u64,
    /// Nodes in the tree at the end.
    pub tree_nodes: usize,
}

impl Uct {
    /// A UCT player with a simulation budget (default 1000).
    pub fn new(sims: Option<u64>) -> Uct {
        Uct {
            sims,
            ms: None,
            c: None,
            seed: None,
            tree: Vec::new(),
            path: Vec::new(),
            info: None,
        }
    }

    /// From an `mcts[:sims=N][,ms=T][,c=X][,seed=S]` spec.
    ///
    /// # Errors
    ///
    /// [`SpecError`] naming an unknown parameter or a value out of range.
    pub fn from_spec(spec: &PlayerSpec) -> Result<Uct, SpecError> {
        spec.check_no_args()?;
        spec.check_params(&[SIMS.key, MS.key, C.key, SEED.key])?;
        let mut p = Uct::new(spec.get(SIMS)?);
        p.ms = spec.get(MS)?;
        p.c = spec.get(C)?;
        p.seed = spec.get(SEED)?;
        Ok(p)
    }

    /// The registry's help line: the parameters and their ranges.
    pub(crate) fn help() -> String {
        format!(
            "plain UCT with random rollouts {} {} {} {}; default sims=1000",
            SIMS.help(),
            MS.help(),
            C.help(),
            SEED.help()
        )
    }

    /// Runs one search of `sims` simulations (or until `deadline`) from `pos`
    /// and returns the most visited root action with the statistics.
    /// `None` when the game is over.
    pub fn search(
        &mut self,
        pos: &Position,
        history: &KeyHistory,
        sims: u64,
        deadline: Option<Instant>,
        seed: u64,
    ) -> Option<(Action, UctStats)> {
        if history.outcome(pos).is_some() {
            return None;
        }
        let c = self.c.unwrap_or(DEFAULT_C) as f32;
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut hist = PathHistory::new(history);
        let mut list = ActionList::new();
        let tree = &mut self.tree;
        let path = &mut self.path;
        tree.clear();
        tree.push(Node {
            action: Action::Place(Point::ALL[0]),
            mover: pos.to_act().opponent(),
            expanded: false,
            n_children: 0,
            first_child: 0,
            visits: 0,
            value: 0.0,
        });
        let root_mark = hist.mark();
        let mut rollout_actions = 0u64;
        let mut done = 0u64;
        while done < sims.max(1) {
            if done & 63 == 0
                && done > 0
                && let Some(d) = deadline
                && Instant::now() >= d
            {
                break;
            }
            done += 1;
            let mut p = *pos;
            path.clear();
            path.push(0);
            let mut node = 0usize;
            let mut result: Option<Outcome> = None;
            loop {
                if node != 0
                    && let Some(o) = hist.outcome(&p)
                {
                    result = Some(o);
                    break;
                }
                if !tree[node].expanded {
                    if node != 0 && tree[node].visits == 0 {
                        break;
                    }
                    expand(tree, node, &p, &mut list, &mut rng);
                }
                node = select(tree, node, c);
                let a = tree[node].action;
                p.play_unchecked(a);
                hist.push(a, &p);
                path.push(node as u32);
            }
            let o = match result {
                Some(o) => o,
                None => {
                    let (o, n) = rollout(&mut p, &mut hist, &mut rng, &mut list);
                    rollout_actions += n;
                    o
                }
            };
            backup(tree, path, o);
            hist.pop(root_mark);
        }
        self.answer(done, rollout_actions)
    }

    /// The most visited root action (ties: the better total value) after
    /// `done` simulations, with the statistics; sets [`Player::info`].
    fn answer(&mut self, done: u64, rollout_actions: u64) -> Option<(Action, UctStats)> {
        let tree = &self.tree;
        let root = tree[0];
        let kids = &tree[root.first_child as usize..][..root.n_children as usize];
        let best = kids
            .iter()
            .max_by(|a, b| a.visits.cmp(&b.visits).then(a.value.total_cmp(&b.value)))?;
        self.info = Some(SearchInfo {
            depth: 0,
            nodes: done,
            score: (1000.0 * best.value / best.visits.max(1) as f32) as i32,
            pv: vec![best.action],
        });
        Some((
            best.action,
            UctStats {
                simulations: done,
                rollout_actions,
                tree_nodes: tree.len(),
            },
        ))
    }
}

/// Gives `node` a child per action of `p`, in random order (unvisited
/// children are then tried at random).
fn expand(
    tree: &mut Vec<Node>,
    node: usize,
    p: &Position,
    list: &mut ActionList,
    rng: &mut SmallRng,
) {
    p.legal_actions_into(list);
    let first = tree.len();
    let mover = p.to_act();
    for &a in list.iter() {
        tree.push(Node {
            action: a,
            mover,
            expanded: false,
            n_children: 0,
            first_child: 0,
            visits: 0,
            value: 0.0,
        });
    }
    let kids = &mut tree[first..];
    for i in (1..kids.len()).rev() {
        let j = rng.random_range(0..=i);
        kids.swap(i, j);
    }
    let n = &mut tree[node];
    n.expanded = true;
    n.first_child = first as u32;
    n.n_children = list.len() as u16;
}

/// UCB1 among the children of `node` (expanded): the first unvisited one,
/// else the best mean plus `c` times the exploration term. Returns its index.
fn select(tree: &[Node], node: usize, c: f32) -> usize {
    let n = tree[node];
    let first = n.first_child as usize;
    let kids = &tree[first..first + n.n_children as usize];
    let log_n = (n.visits.max(1) as f32).ln();
    let mut best = 0;
    let mut best_v = f32::NEG_INFINITY;
    for (i, k) in kids.iter().enumerate() {
        if k.visits == 0 {
            best = i;
            break;
        }
        let inv = 1.0 / k.visits as f32;
        let v = k.value * inv + c * (log_n * inv).sqrt();
        if v > best_v {
            best_v = v;
            best = i;
        }
    }
    first + best
}

/// Adds a visit and the outcome `o` to every node of `path`, each from the
/// view of the player who chose its action.
fn backup(tree: &mut [Node], path: &[u32], o: Outcome) {
    let (vw, vb) = match o.winner {
        None => (0.0, 0.0),
        Some(Color::White) => (1.0, -1.0),
        Some(Color::Black) => (-1.0, 1.0),
    };
    for &i in path {
        let n = &mut tree[i as usize];
        n.visits += 1;
        n.value += if n.mover == Color::White { vw } else { vb };
    }
}

/// Plays uniformly random actions from `p` (the position recorded last in
/// `hist`, not over) to the end of the game; returns the outcome and the
/// number of actions played.
fn rollout(
    p: &mut Position,
    hist: &mut PathHistory<'_>,
    rng: &mut SmallRng,
    list: &mut ActionList,
) -> (Outcome, u64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has the feature the function is compiled for.
        return unsafe { rollout_popcnt(p, hist, rng, list) };
    }
    rollout_body(p, hist, rng, list)
}

/// [`rollout`] compiled with the `popcnt` instruction (bitboard counts are
/// most of a rollout's work; the baseline x86-64 target lacks it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn rollout_popcnt(
    p: &mut Position,
    hist: &mut PathHistory<'_>,
    rng: &mut SmallRng,
    list: &mut ActionList,
) -> (Outcome, u64) {
    rollout_body(p, hist, rng, list)
}

#[inline(always)]
fn rollout_body(
    p: &mut Position,
    hist: &mut PathHistory<'_>,
    rng: &mut SmallRng,
    list: &mut ActionList,
) -> (Outcome, u64) {
    // A one-word Bloom filter of the keys since the last irreversible action:
    // only a key whose bit is set can have occurred before (the game's own
    // history is not enumerable, so while it still counts every bit is set).
    let mut seen = hist.window_bloom();
    let mut occ = hist.last_occurrences();
    let mut n = 0;
    loop {
        let a = random_action(p, rng, list);
        if let Some(o) = rollout_outcome(p, a.is_none(), occ) {
            return (o, n);
        }
        let a = a.expect("a position that is not over has an action");
        p.play_unchecked(a);
        let key = p.key();
        hist.push_key(a, key);
        let bit = 1u64 << (key & 63);
        if irreversible(a) {
            seen = bit;
            occ = 1;
        } else {
            occ = if seen & bit != 0 {
                hist.last_occurrences()
            } else {
                1
            };
            seen |= bit;
        }
        n += 1;
    }
}

/// The `n`-th (from 0) point of `b`, `n < b.count()`: a branch-free binary
/// search on the counts of halves.
#[inline(always)]
fn nth(b: Bitboard, mut n: u32) -> Point {
    let mut x = b.0;
    let mut base = 0u32;
    for shift in [16u32, 8, 4, 2, 1] {
        let low = x & ((1u32 << shift) - 1);
        let c = low.count_ones();
        let high = u32::from(n >= c);
        n -= c * high;
        x = if high == 1 { x >> shift } else { low };
        base += shift * high;
    }
    Point::ALL[base as usize]
}

/// A uniformly random legal action, `None` when there is none: the same set
/// as [`Position::legal_actions`], usually without listing it (`list` is the
/// fallback's scratch space).
#[inline(always)]
fn random_action(p: &Position, rng: &mut SmallRng, list: &mut ActionList) -> Option<Action> {
    match p.task() {
        Task::Place => {
            let empty = !p.occupied();
            let n = empty.count();
            (n > 0).then(|| Action::Place(nth(empty, rng.random_range(0..n))))
        }
        Task::Remove => {
            let r = p.removable();
            let n = r.count();
            (n > 0).then(|| Action::Remove(nth(r, rng.random_range(0..n))))
        }
        Task::Move if p.no_return_move(p.to_act()).is_none() => {
            let c = p.to_act();
            let own = p.board(c);
            let empty = !p.occupied();
            if p.flies(c) {
                let e = empty.count();
                let n = own.count() * e;
                if n == 0 {
                    return None;
                }
                let r = rng.random_range(0..n);
                return Some(Action::Move(nth(own, r / e), nth(empty, r % e)));
            }
            let geo = p.rules().board.geometry();
            let mut targets = [(Point::ALL[0], Bitboard::EMPTY); 24];
            let mut k = 0;
            let mut total = 0;
            for f in own {
                let t = geo.adjacent[f.index()] & empty;
                targets[k] = (f, t);
                k += 1;
                total += t.count();
            }
            if total == 0 {
                return None;
            }
            let mut r = rng.random_range(0..total);
            for &(f, t) in &targets[..k] {
                let n = t.count();
                if r < n {
                    return Some(Action::Move(f, nth(t, r)));
                }
                r -= n;
            }
            unreachable!("r < total")
        }
        _ => {
            p.legal_actions_into(list);
            (!list.is_empty()).then(|| list[rng.random_range(0..list.len())])
        }
    }
}

/// [`Position::outcome_with_occurrences`], asked only when one of its rules
/// could apply: the legal actions are already listed, so the rules core need
/// not look for one again in the common case.
#[inline(always)]
fn rollout_outcome(p: &Position, no_action: bool, occurrences: u32) -> Option<Outcome> {
    let r = p.rules();
    let maybe = no_action
        || p.pieces(Color::White) <= 2
        || p.pieces(Color::Black) <= 2
        || (r.repetition > 0 && occurrences >= r.repetition as u32)
        || (r.no_removal_limit > 0 && p.no_removal_turns() >= r.no_removal_limit)
        || (r.endgame_no_removal_turns > 0 && p.endgame_turns() >= r.endgame_no_removal_turns)
        || (r.max_actions > 0 && p.action_count() >= r.max_actions);
    if maybe {
        p.outcome_with_occurrences(occurrences)
    } else {
        None
    }
}

impl Player for Uct {
    fn spec(&self) -> String {
        let mut items = Vec::new();
        if let Some(s) = self.sims {
            items.push(format!("sims={s}"));
        }
        if let Some(m) = self.ms {
            items.push(format!("ms={m}"));
        }
        if let Some(c) = self.c {
            items.push(format!("c={c}"));
        }
        if let Some(s) = self.seed {
            items.push(format!("seed={s}"));
        }
        if items.is_empty() {
            "mcts".to_string()
        } else {
            format!("mcts:{}", items.join(","))
        }
    }

    fn choose(
        &mut self,
        pos: &Position,
        history: &KeyHistory,
        limits: &Limits,
        seed: u64,
    ) -> Option<Action> {
        let (sims, time) = if limits.overrides_budget() {
            (limits.nodes, limits.movetime)
        } else {
            (self.sims, self.ms.map(Duration::from_millis))
        };
        let sims = match (sims, time) {
            (Some(s), _) => s,
            (None, Some(_)) => u64::MAX,
            (None, None) => DEFAULT_SIMS,
        };
        let deadline = limits.deadline(time.map(|t| Instant::now() + t));
        let seed = mix_seed(seed, self.seed.unwrap_or(0));
        self.search(pos, history, sims, deadline, seed)
            .map(|(a, _)| a)
    }

    fn info(&self) -> Option<SearchInfo> {
        self.info.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shax_core::{Preset, Rules};

    /// The rollout's action picker draws from exactly the legal actions.
    #[test]
    fn random_action_covers_exactly_the_legal_actions() {
        let mut rng = SmallRng::seed_from_u64(1);
        let mut list = ActionList::new();
        for preset in Preset::ALL {
            for g in 0..20 {
                let mut pos = Position::new(Rules::preset(preset));
                for _ in 0..(g * 7 % 120) {
                    if pos.outcome().is_some() {
                        break;
                    }
                    let a = random_action(&pos, &mut rng, &mut list).unwrap();
                    pos.play_unchecked(a);
                }
                if pos.outcome().is_some() {
                    continue;
                }
                let legal = pos.legal_actions();
                let mut seen = std::collections::HashSet::new();
                for _ in 0..legal.len() * 40 {
                    let a = random_action(&pos, &mut rng, &mut list).unwrap();
                    assert!(legal.contains(&a), "{a} in {}", pos.fen());
                    seen.insert(a);
                }
                assert_eq!(seen.len(), legal.len(), "{}", pos.fen());
            }
        }
    }

    #[test]
    fn nth_finds_every_point() {
        let b = Bitboard(0b1011_0000_0000_0001_0110_1001);
        let pts: Vec<Point> = b.iter().collect();
        for (i, &p) in pts.iter().enumerate() {
            assert_eq!(nth(b, i as u32), p);
        }
    }
}

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
use shax_core::{Action, ActionList, Color, KeyHistory, Outcome, Point, Position};

use crate::player::{Limits, PathHistory, Player, SearchInfo, mix_seed};
use crate::spec::{PlayerSpec, SpecError};

const DEFAULT_SIMS: u64 = 1000;
const DEFAULT_C: f64 = 2.0;

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
        spec.check_params(&["sims", "ms", "c", "seed"])?;
        let mut p = Uct::new(spec.u64_param("sims", 1, 1_000_000_000)?);
        p.ms = spec.u64_param("ms", 1, 3_600_000)?;
        if spec.param("c").is_some() {
            p.c = spec.f64_param("c", 0.0, 100.0)?;
        }
        p.seed = spec.u64_param("seed", 0, u64::MAX)?;
        Ok(p)
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
                    p.legal_actions_into(&mut list);
                    let first = tree.len();
                    let mover = p.to_act();
                    for &a in &list {
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
                    // Random order: unvisited children are then tried at random.
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
                node = first + best;
                let a = tree[node].action;
                p.play_unchecked(a);
                hist.push(a, &p);
                path.push(node as u32);
            }
            let o = match result {
                Some(o) => o,
                None => loop {
                    if let Some(o) = hist.outcome(&p) {
                        break o;
                    }
                    p.legal_actions_into(&mut list);
                    let a = list[rng.random_range(0..list.len())];
                    p.play_unchecked(a);
                    hist.push(a, &p);
                    rollout_actions += 1;
                },
            };
            let (vw, vb) = match o.winner {
                None => (0.0, 0.0),
                Some(Color::White) => (1.0, -1.0),
                Some(Color::Black) => (-1.0, 1.0),
            };
            for &i in path.iter() {
                let n = &mut tree[i as usize];
                n.visits += 1;
                n.value += if n.mover == Color::White { vw } else { vb };
            }
            hist.pop(root_mark);
        }
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
        let (sims, time) = if limits.nodes.is_some() || limits.movetime.is_some() {
            (limits.nodes, limits.movetime)
        } else {
            (self.sims, self.ms.map(Duration::from_millis))
        };
        let sims = match (sims, time) {
            (Some(s), _) => s,
            (None, Some(_)) => u64::MAX,
            (None, None) => DEFAULT_SIMS,
        };
        let deadline = time.map(|t| Instant::now() + t);
        let seed = mix_seed(seed, self.seed.unwrap_or(0));
        self.search(pos, history, sims, deadline, seed)
            .map(|(a, _)| a)
    }

    fn info(&self) -> Option<SearchInfo> {
        self.info.clone()
    }
}

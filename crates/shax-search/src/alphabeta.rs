//! `alphabeta`: iterative deepening negamax with principal variation search,
//! a transposition table keyed by [`Position::full_key`] (two-entry buckets:
//! an entry of the same position is overwritten, or else the one from an
//! earlier decision or searched shallower), move ordering (the
//! table's move, line-forming and blocking actions, killers, history),
//! late-move reductions where the preset's settings say they pay off, and a
//! static evaluation: the mill evaluation of [`crate::eval`] by default,
//! `eval=basic` for the evaluation of commit 67c7f3f.
//!
//! A draw scores what the preset's settings say it is worth to Black
//! ([`crate::eval::Weights::black_draw`], a piece in Shax) and the negative
//! for White; `draw=N` overrides it.
//!
//! When a time or node budget ends an iteration, the last finished
//! iteration's best action is played, or one that beat it in the unfinished
//! iteration.
//!
//! Depth counts turns: a place or move costs one, the removals it earns cost
//! nothing (they are searched as their own plies but extend the turn), and a
//! freeing move costs one like any move. The player to act is read at every
//! node, so a score changes sign only where the player to act changes.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use shax_core::{Action, ActionList, Color, KeyHistory, MAX_ACTIONS, POLICY_SIZE, Position, Task};

use crate::eval::{EvalKind, WIN, WIN_BOUND};
use crate::player::{Limits, PathHistory, Player, SearchInfo, mix_seed};
use crate::spec::{Param, PlayerSpec, SEED, SpecError};

const MAX_PLY: usize = 192;
const MAX_DEPTH: u32 = 64;
const DEFAULT_DEPTH: u32 = 4;
const DEFAULT_TT_MIB: u64 = 16;
const DEPTH: Param<u32> = Param::new("depth", 1, MAX_DEPTH);
const MS: Param<u64> = Param::new("ms", 1, 3_600_000);
const NODES: Param<u64> = Param::new("nodes", 1, u64::MAX);
const TT: Param<u64> = Param::new("tt", 1, 4096);
const LMR: Param<u64> = Param::new("lmr", 0, 1);
const DRAW: Param<u64> = Param::new("draw", 0, 1000);
const INF: i32 = WIN + 1;

const EXACT: u8 = 1;
const LOWER: u8 = 2;
const UPPER: u8 = 3;

/// A node's actions and their ordering keys, picked best first.
struct Ordered {
    acts: ActionList,
    keys: [i32; MAX_ACTIONS],
}

impl Ordered {
    /// Moves the best of the actions from `i` on to place `i` (a selection
    /// sort step, first among equals) and returns it with its key.
    #[inline]
    fn pick(&mut self, i: usize) -> (Action, i32) {
        let mut j = i;
        for k in i + 1..self.acts.len() {
            if self.keys[k] > self.keys[j] {
                j = k;
            }
        }
        if j != i {
            let (ka, aa) = (self.keys[j], self.acts[j]);
            self.keys.copy_within(i..j, i + 1);
            self.acts.copy_within(i..j, i + 1);
            self.keys[i] = ka;
            self.acts[i] = aa;
        }
        (self.acts[i], self.keys[i])
    }
}

#[derive(Clone, Copy, Default)]
struct TtEntry {
    key: u64,
    score: i32,
    /// Policy index + 1 of the best action; 0 none.
    best: u16,
    depth: i8,
    /// The bound (`EXACT`, `LOWER`, `UPPER`) in the low two bits, the
    /// generation of the decision that wrote it above them; 0 empty.
    flag: u8,
}

/// Two entries on one cache line: 32 bytes, aligned to 32, so that a bucket
/// never straddles two 64-byte lines and one prefetch loads all of it.
#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
struct Bucket([TtEntry; 2]);

/// The alpha-beta player. Its table, history and killers persist between
/// decisions of one game (a [`Player::reset`] clears them).
pub struct AlphaBeta {
    depth: Option<u32>,
    ms: Option<u64>,
    nodes: Option<u64>,
    tt_mib: Option<u64>,
    seed: Option<u64>,
    eval: EvalKind,
    /// Late-move reductions (`lmr=1` on, `lmr=0` off); when not given, the
    /// preset's setting ([`crate::eval::Weights::lmr`]) with the mill
    /// evaluation, off with `eval=basic` (commit 67c7f3f's player).
    lmr: Option<bool>,
    /// What a draw is worth to Black in centi-pieces (`draw=N`; to White
    /// -N); when not given, the preset's setting
    /// ([`crate::eval::Weights::black_draw`]) with the mill evaluation, 0
    /// with `eval=basic` (commit 67c7f3f's player).
    draw: Option<i32>,
    /// The search's generation, 0 to 63, in each entry's flag above its bound.
    generation: u8,
    tt: Vec<Bucket>,
    history: Box<[[i32; POLICY_SIZE]; 2]>,
    info: Option<SearchInfo>,
}

impl std::fmt::Debug for AlphaBeta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.spec())
    }
}

impl AlphaBeta {
    /// A player searching to `depth` turns (default 4) and/or for `ms`
    /// milliseconds, whichever ends first.
    pub fn new(depth: Option<u32>, ms: Option<u64>) -> AlphaBeta {
        AlphaBeta {
            depth,
            ms,
            nodes: None,
            tt_mib: None,
            seed: None,
            eval: EvalKind::default(),
            lmr: None,
            draw: None,
            generation: 0,
            tt: Vec::new(),
            history: Box::new([[0; POLICY_SIZE]; 2]),
            info: None,
        }
    }

    /// From an `alphabeta[:depth=D][,ms=T][,nodes=N][,tt=MiB][,seed=S][,eval=mill|basic|<file>.toml][,lmr=0|1]` spec.
    ///
    /// # Errors
    ///
    /// [`SpecError`] naming an unknown parameter or a value out of range.
    pub fn from_spec(spec: &PlayerSpec) -> Result<AlphaBeta, SpecError> {
        spec.check_no_args()?;
        spec.check_params(&[
            DEPTH.key, MS.key, NODES.key, TT.key, SEED.key, "eval", LMR.key, DRAW.key,
        ])?;
        let mut p = AlphaBeta::new(spec.get(DEPTH)?, spec.get(MS)?);
        p.nodes = spec.get(NODES)?;
        p.tt_mib = spec.get(TT)?;
        p.seed = spec.get(SEED)?;
        p.eval = eval_param(spec)?;
        p.lmr = spec.get(LMR)?.map(|v| v == 1);
        p.draw = spec.get(DRAW)?.map(|v| v as i32);
        Ok(p)
    }

    /// The registry's help line: the parameters and their ranges.
    pub(crate) fn help() -> String {
        format!(
            "iterative deepening PVS {} {} {} {} {} [eval={}] {} {}; default depth=4",
            DEPTH.help(),
            MS.help(),
            NODES.help(),
            TT.help(),
            SEED.help(),
            EvalKind::NAMES,
            LMR.help(),
            DRAW.help()
        )
    }

    fn ensure_tt(&mut self) {
        let mib = self.tt_mib.unwrap_or(DEFAULT_TT_MIB);
        let want = ((mib << 20) / std::mem::size_of::<Bucket>() as u64).max(512);
        let buckets = 1usize << (63 - want.leading_zeros());
        if self.tt.len() != buckets {
            self.tt = vec![Bucket::default(); buckets];
        }
    }
}

/// The `eval=` parameter of a spec: `mill` (the default), `basic` or a
/// weights file.
pub(crate) fn eval_param(spec: &PlayerSpec) -> Result<EvalKind, SpecError> {
    match spec.param("eval") {
        None => Ok(EvalKind::default()),
        Some(v) => EvalKind::from_name(v).map_err(|why| SpecError::BadValue {
            kind: spec.kind.clone(),
            param: "eval".to_string(),
            value: v.to_string(),
            why,
        }),
    }
}

impl Player for AlphaBeta {
    fn spec(&self) -> String {
        let mut items = Vec::new();
        let mut add = |k: &str, v: Option<u64>| {
            if let Some(v) = v {
                items.push(format!("{k}={v}"));
            }
        };
        add("depth", self.depth.map(u64::from));
        add("ms", self.ms);
        add("nodes", self.nodes);
        add("tt", self.tt_mib);
        add("seed", self.seed);
        if self.eval != EvalKind::default() {
            items.push(format!("eval={}", self.eval.name()));
        }
        if let Some(l) = self.lmr {
            items.push(format!("lmr={}", u8::from(l)));
        }
        if let Some(d) = self.draw {
            items.push(format!("draw={d}"));
        }
        if items.is_empty() {
            "alphabeta".to_string()
        } else {
            format!("alphabeta:{}", items.join(","))
        }
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
        let mut root: Vec<Action> = pos.legal_actions().to_vec();
        if root.is_empty() {
            return None;
        }
        let (depth, time, nodes) = if limits.overrides_budget() {
            (limits.depth, limits.movetime, limits.nodes)
        } else {
            (self.depth, self.ms.map(Duration::from_millis), self.nodes)
        };
        let max_depth = match (depth, time, nodes) {
            (Some(d), _, _) => d.clamp(1, MAX_DEPTH),
            (None, None, None) => DEFAULT_DEPTH,
            _ => MAX_DEPTH,
        };
        let start = Instant::now();
        let mut rng = SmallRng::seed_from_u64(mix_seed(seed, self.seed.unwrap_or(0)));
        root.shuffle(&mut rng);
        self.ensure_tt();
        self.generation = (self.generation + 1) & 63;
        for side in self.history.iter_mut() {
            for h in side.iter_mut() {
                *h /= 8;
            }
        }
        let preset = crate::eval::weights_for(pos.rules());
        let mut s = Search {
            tt: Table {
                mask: self.tt.len() - 1,
                buckets: &mut self.tt,
                generation: self.generation,
            },
            eval: self.eval.clone(),
            lmr: self.lmr.unwrap_or(match self.eval {
                EvalKind::Basic => false,
                _ => preset.lmr,
            }),
            draw: self.draw.unwrap_or(match self.eval {
                EvalKind::Basic => 0,
                _ => preset.black_draw,
            }),
            hist: PathHistory::new(history),
            history: &mut self.history,
            killers: [[None; 2]; MAX_PLY],
            nodes: 0,
            node_limit: nodes.unwrap_or(u64::MAX),
            deadline: limits.deadline(time.map(|t| start + t)),
            may_stop: false,
            stopped: false,
            root,
            root_best: None,
        };
        let info = s.deepen(pos, max_depth);
        let action = info.pv[0];
        self.info = Some(info);
        Some(action)
    }

    fn info(&self) -> Option<SearchInfo> {
        self.info.clone()
    }

    fn reset(&mut self) {
        self.tt.fill(Bucket::default());
        self.generation = 0;
        for side in self.history.iter_mut() {
            side.fill(0);
        }
        self.info = None;
    }
}

/// The transposition table of one decision: two-entry buckets.
struct Table<'a> {
    buckets: &'a mut [Bucket],
    /// The buckets' count less one (the count a power of two).
    mask: usize,
    /// The decision's generation, 0 to 63.
    generation: u8,
}

impl Table<'_> {
    /// The bucket of `key`, from the key's bits above its lowest. Any bits
    /// would do; these give every key the bucket it had when buckets were
    /// pairs of unaligned entries, so aligning them changed no game.
    #[inline]
    fn index(&self, key: u64) -> usize {
        (key >> 1) as usize & self.mask
    }

    /// The entry for `key`, if its bucket holds one.
    #[inline]
    fn entry(&self, key: u64) -> Option<TtEntry> {
        self.buckets[self.index(key)]
            .0
            .into_iter()
            .find(|e| e.key == key && e.flag != 0)
    }

    /// Writes `e` (its flag the bound alone) to its bucket's entry that holds
    /// its key, or else to the one worth less (empty, from an earlier
    /// decision, or shallower), stamped with the generation.
    #[inline]
    fn store(&mut self, mut e: TtEntry) {
        e.flag |= self.generation << 2;
        let (i, generation) = (self.index(e.key), self.generation);
        let [a, b] = &mut self.buckets[i].0;
        let slot = if a.key == e.key {
            a
        } else if b.key == e.key || worth(a, generation) > worth(b, generation) {
            b
        } else {
            a
        };
        *slot = e;
    }

    /// The bucket of `key`, for a prefetch.
    #[inline]
    fn bucket(&self, key: u64) -> *const Bucket {
        &self.buckets[self.index(key)]
    }
}

/// How much an entry is worth keeping in the decision of `generation`.
#[inline]
fn worth(e: &TtEntry, generation: u8) -> i32 {
    if e.flag == 0 {
        return -1000;
    }
    let stale = e.flag >> 2 != generation;
    e.depth as i32 - if stale { 64 } else { 0 }
}

struct Search<'a, 'h> {
    tt: Table<'a>,
    eval: EvalKind,
    lmr: bool,
    /// What a draw is worth to Black (to White, the negative).
    draw: i32,
    hist: PathHistory<'h>,
    history: &'a mut [[i32; POLICY_SIZE]; 2],
    killers: [[Option<Action>; 2]; MAX_PLY],
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    may_stop: bool,
    stopped: bool,
    /// The root's actions, shuffled by the seed, best of the last iteration first.
    root: Vec<Action>,
    root_best: Option<Action>,
}

/// Whether `pos`, reached with `depth` turns left, is evaluated statically
/// rather than searched: no depth left and no removal owed (a removal is
/// searched past the horizon).
#[inline]
fn at_horizon(pos: &Position, depth: i32) -> bool {
    depth <= 0 && pos.task() != Task::Remove
}

#[inline]
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score + ply as i32
    } else if score <= -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

#[inline]
fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score - ply as i32
    } else if score <= -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl Search<'_, '_> {
    /// Iterative deepening from the root to `max_depth` or until the budget
    /// ends: the action to play, with the depth and score of the last
    /// finished iteration.
    fn deepen(&mut self, pos: &Position, max_depth: u32) -> SearchInfo {
        let mut best = (self.root[0], 0, 0u32);
        for d in 1..=max_depth {
            self.may_stop = d > 1;
            self.root_best = None;
            let score = self.negamax(pos, d as i32, -INF, INF, 0);
            if self.stopped {
                // An action that beat the last iteration's best before the
                // budget ran out replaces it.
                if let Some(a) = self.root_best {
                    best.0 = a;
                }
                break;
            }
            if let Some(a) = self.root_best {
                best = (a, score, d);
                // Search the best action first next time.
                if let Some(i) = self.root.iter().position(|&x| x == a) {
                    self.root[..=i].rotate_right(1);
                }
            }
            if score.abs() >= WIN_BOUND {
                break;
            }
        }
        SearchInfo {
            depth: best.2,
            nodes: self.nodes,
            score: best.1,
            pv: vec![best.0],
        }
    }

    fn check_stop(&mut self) {
        if !self.may_stop {
            return;
        }
        if self.nodes >= self.node_limit {
            self.stopped = true;
        }
        if let Some(d) = self.deadline
            && Instant::now() >= d
        {
            self.stopped = true;
        }
    }

    /// Ordering score of `a` by the player to act in `pos`.
    fn order(&self, pos: &Position, a: Action, tt_move: Option<Action>, ply: usize) -> i32 {
        if Some(a) == tt_move {
            return 10_000_000;
        }
        let me = pos.to_act();
        let geo = pos.rules().board.geometry();
        let own = pos.board(me);
        let opp = pos.board(me.opponent());
        match a {
            Action::Remove(p) => {
                // Prefer pieces that make up the enemy's lines and threats.
                let mut v = 0;
                for &l in &geo.lines_through[p.index()] {
                    if l.is_empty() || !(l & own).is_empty() {
                        continue;
                    }
                    v += [0, 1, 10, 6][(l & opp).count() as usize];
                }
                v += (geo.adjacent[p.index()] & !pos.occupied()).count() as i32;
                1_000_000 + v
            }
            Action::Place(t) | Action::Move(_, t) => {
                let from = match a {
                    Action::Move(f, _) => f.bb().0,
                    _ => 0,
                };
                let after = shax_core::Bitboard((own.0 & !from) | t.bb().0);
                let mut v = 0;
                if geo.lines_at(after, t) > 0 {
                    v += 5_000_000;
                }
                if geo.lines_at(shax_core::Bitboard(opp.0 | t.bb().0), t) > 0 {
                    v += 2_000_000;
                }
                if v == 0 {
                    let k = &self.killers[ply];
                    if k[0] == Some(a) {
                        v = 1_500_000;
                    } else if k[1] == Some(a) {
                        v = 1_400_000;
                    } else {
                        v = self.history[me.index()][a.policy_index()].min(1_000_000);
                    }
                }
                v
            }
        }
    }

    fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        if let Some(v) = self.leaf(pos, depth, ply) {
            return v;
        }
        let key = pos.full_key();
        let (cut, tt_move) = self.probe(key, depth, alpha, beta, ply);
        if let Some(s) = cut {
            return s;
        }
        let mut moves = self.ordered(pos, tt_move, ply);
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        for i in 0..moves.acts.len() {
            let (a, order) = moves.pick(i);
            let score = self.search_action(pos, a, (i, order), depth, (alpha, beta), ply);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(a);
                if score > alpha {
                    if ply == 0 {
                        self.root_best = Some(a);
                    }
                    alpha = score;
                    if alpha >= beta {
                        self.note_cutoff(pos, a, order, depth, ply);
                        break;
                    }
                }
            }
        }
        let flag = if best <= alpha0 {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        self.tt.store(TtEntry {
            key,
            score: to_tt(best, ply),
            best: best_move.map_or(0, |a| a.policy_index() as u16 + 1),
            depth: depth.clamp(0, 127) as i8,
            flag,
        });
        best
    }

    /// Counts the node and ends it early: 0 once stopped, the result of a
    /// finished game, the evaluation at the horizon (a removal owed is
    /// searched past it).
    #[inline]
    fn leaf(&mut self, pos: &Position, depth: i32, ply: usize) -> Option<i32> {
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.check_stop();
        }
        if self.stopped {
            return Some(0);
        }
        if ply > 0
            && let Some(o) = self.hist.outcome(pos)
        {
            return Some(match o.winner {
                None if pos.to_act() == Color::White => -self.draw,
                None => self.draw,
                Some(w) if w == pos.to_act() => WIN - ply as i32,
                Some(_) => -(WIN - ply as i32),
            });
        }
        if at_horizon(pos, depth) || ply >= MAX_PLY - 1 {
            return Some(self.eval.evaluate(pos));
        }
        None
    }

    /// The transposition table's entry for `key`: a score that ends the node
    /// (deep enough and within its bound; never at the root) and the move it stored.
    #[inline]
    fn probe(
        &self,
        key: u64,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> (Option<i32>, Option<Action>) {
        let Some(e) = self.tt.entry(key) else {
            return (None, None);
        };
        let tt_move = e
            .best
            .checked_sub(1)
            .and_then(|i| Action::from_policy_index(i as usize));
        if ply > 0 && e.depth as i32 >= depth {
            let s = from_tt(e.score, ply);
            match e.flag & 3 {
                EXACT => return (Some(s), tt_move),
                LOWER if s >= beta => return (Some(s), tt_move),
                UPPER if s <= alpha => return (Some(s), tt_move),
                _ => {}
            }
        }
        (None, tt_move)
    }

    /// Starts loading the table's entry for `pos` into the cache, so that the
    /// probe at its node does not wait on memory.
    #[inline]
    fn prefetch(&self, pos: &Position) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket = self.tt.bucket(pos.full_key());
            // SAFETY: a prefetch is a hint to the cache; it reads nothing
            // through the pointer, which points into the table anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast()) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = pos;
    }

    /// The actions of `pos` with their ordering keys (at the root, the root's
    /// list, its first action first).
    fn ordered(&self, pos: &Position, tt_move: Option<Action>, ply: usize) -> Ordered {
        let mut moves = Ordered {
            acts: ActionList::new(),
            keys: [0; MAX_ACTIONS],
        };
        if ply == 0 {
            for &a in &self.root {
                moves.acts.push(a);
            }
        } else {
            pos.legal_actions_into(&mut moves.acts);
        }
        for (i, &a) in moves.acts.iter().enumerate() {
            moves.keys[i] = if ply == 0 && i == 0 {
                20_000_000
            } else {
                self.order(pos, a, tt_move, ply)
            };
        }
        moves
    }

    /// The score of the `i`-th action `a` (ordering key `order`) of `pos`:
    /// the first with the full window, the others with a null window (late
    /// quiet ones reduced first) and again with the full window when they
    /// fall inside it.
    fn search_action(
        &mut self,
        pos: &Position,
        a: Action,
        (i, order): (usize, i32),
        depth: i32,
        (alpha, beta): (i32, i32),
        ply: usize,
    ) -> i32 {
        let mut child = *pos;
        child.play_unchecked(a);
        let nd = if a.is_removal() { depth } else { depth - 1 };
        if !at_horizon(&child, nd) {
            self.prefetch(&child);
        }
        let m = self.hist.push(a, &child);
        let same = child.to_act() == pos.to_act();
        let mut score;
        if i == 0 {
            score = self.child(&child, nd, alpha, beta, same, ply + 1);
        } else {
            // Late quiet actions (no line, no block, no killer, not the
            // table's) that do not earn a removal are searched a turn
            // shallower first; one that beats alpha is searched again.
            let r = self.reduction(depth, i, order, a, &child);
            score = self.child(&child, nd - r, alpha, alpha + 1, same, ply + 1);
            if r > 0 && score > alpha {
                score = self.child(&child, nd, alpha, alpha + 1, same, ply + 1);
            }
            if score > alpha && score < beta {
                score = self.child(&child, nd, alpha, beta, same, ply + 1);
            }
        }
        self.hist.pop(m);
        score
    }

    /// A quiet action `a` that cut the search off at `ply` becomes a killer
    /// there and gains history.
    #[inline]
    fn note_cutoff(&mut self, pos: &Position, a: Action, order: i32, depth: i32, ply: usize) {
        if a.is_removal() || order >= 1_500_000 {
            return;
        }
        let k = &mut self.killers[ply];
        if k[0] != Some(a) {
            k[1] = k[0];
            k[0] = Some(a);
        }
        self.history[pos.to_act().index()][a.policy_index()] += depth * depth;
    }

    /// Late-move reduction of the `i`-th action `a` (ordering key `key`)
    /// searched at `depth`, which led to `child`.
    #[inline]
    fn reduction(&self, depth: i32, i: usize, key: i32, a: Action, child: &Position) -> i32 {
        if !self.lmr || depth < 3 || i < 3 || key >= 1_400_000 || a.is_removal() {
            return 0;
        }
        if child.task() == Task::Remove {
            return 0;
        }
        if depth >= 5 && i >= 8 { 2 } else { 1 }
    }

    #[inline]
    fn child(
        &mut self,
        child: &Position,
        depth: i32,
        alpha: i32,
        beta: i32,
        same: bool,
        ply: usize,
    ) -> i32 {
        if same {
            self.negamax(child, depth, alpha, beta, ply)
        } else {
            -self.negamax(child, depth, -beta, -alpha, ply)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_buckets_keep_deeper_entries_and_the_current_decisions() {
        let mut v = vec![Bucket::default(); 512];
        let mut t = Table {
            buckets: &mut v,
            mask: 511,
            generation: 1,
        };
        let e = |key, depth| TtEntry {
            key,
            depth,
            flag: EXACT,
            ..TtEntry::default()
        };
        // Three keys of bucket 2.
        let (k1, k2, k3) = (4 | 1 << 20, 5 | 2 << 20, 4 | 3 << 20);
        t.store(e(k1, 9));
        t.store(e(k2, 2));
        t.store(e(k3, 5));
        let has = |t: &Table, k| t.entry(k).is_some();
        assert!(
            has(&t, k1) && !has(&t, k2) && has(&t, k3),
            "the shallower went"
        );
        t.store(e(k3, 1));
        assert_eq!(
            t.entry(k3).map(|e| e.depth),
            Some(1),
            "its own entry is overwritten"
        );
        assert_eq!(t.entry(k3).map(|e| e.flag), Some(EXACT | 1 << 2));
        // The next decision: its entries outrank the last one's, however deep.
        t.generation = 2;
        t.store(e(k2, 3));
        assert!(has(&t, k1) && has(&t, k2) && !has(&t, k3));
        t.store(e(k3, 1));
        assert!(
            !has(&t, k1) && has(&t, k2) && has(&t, k3),
            "the stale deep one went"
        );
    }
}

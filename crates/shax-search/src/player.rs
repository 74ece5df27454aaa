//! The [`Player`] interface every agent implements, its budget ([`Limits`]),
//! and the path history that searches keep on top of a game's [`KeyHistory`].

use std::time::{Duration, Instant};

use shax_core::{Action, Game, KeyHistory, Outcome, Position};

/// A budget for one decision. Every field is optional; a budget field that is
/// set (`depth`, `nodes`, `movetime`) overrides the player's own default (from
/// its spec). A player ignores the fields that mean nothing to it (`random`
/// ignores all of them). `cutoff` overrides nothing: it ends any search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Search depth in turns (alpha-beta); removals do not count.
    pub depth: Option<u32>,
    /// Nodes: simulations for MCTS, searched nodes for alpha-beta.
    pub nodes: Option<u64>,
    /// Wall-clock time for the decision.
    pub movetime: Option<Duration>,
    /// A hard stop on top of whichever budget applies: the search returns its
    /// best action so far at this instant (a server's time limit per request).
    pub cutoff: Option<Instant>,
}

impl Limits {
    /// No overrides: the player's defaults.
    pub const NONE: Limits = Limits {
        depth: None,
        nodes: None,
        movetime: None,
        cutoff: None,
    };

    /// Whether a budget field is set, replacing the player's own budget.
    pub fn overrides_budget(&self) -> bool {
        self.depth.is_some() || self.nodes.is_some() || self.movetime.is_some()
    }

    /// The earlier of a search's own deadline and the cutoff.
    pub fn deadline(&self, own: Option<Instant>) -> Option<Instant> {
        match (own, self.cutoff) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// What a search learned about its last decision, for `info` lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchInfo {
    /// Depth completed (alpha-beta), 0 where it means nothing.
    pub depth: u32,
    /// Nodes searched or simulations run.
    pub nodes: u64,
    /// Score from the point of view of the player to act: centi-pieces for
    /// alpha-beta (a win is `>= 29000`), `1000 * mean value` for MCTS
    /// (`29000` or `-29000` for a result its solver proved).
    pub score: i32,
    /// Principal variation, the chosen action first (may hold only it).
    pub pv: Vec<Action>,
}

/// An agent that chooses actions: one interface for the classic players here
/// and the network players of other crates.
///
/// Players are `Send`, so an arena can run each game's players on its own
/// thread; they are not shared between threads.
pub trait Player: Send {
    /// The player's spec, canonical: `PlayerSpec::from_str(p.spec())` builds
    /// the same player.
    fn spec(&self) -> String;

    /// Chooses an action for `pos`, the position recorded last in `history`
    /// (the repetition keys since the last irreversible action).
    ///
    /// `seed` drives any randomness: the same position, history, limits and
    /// seed give the same action (for budgets that are not time).
    ///
    /// Returns `None` only when the game is over (`history.outcome(pos)` is
    /// some); otherwise always one of `pos.legal_actions()`.
    fn choose(
        &mut self,
        pos: &Position,
        history: &KeyHistory,
        limits: &Limits,
        seed: u64,
    ) -> Option<Action>;

    /// [`Player::choose`] for the current position of a game.
    fn choose_in_game(&mut self, game: &Game, limits: &Limits, seed: u64) -> Option<Action> {
        if game.outcome().is_some() {
            return None;
        }
        let history = history_of(game);
        self.choose(game.position(), &history, limits, seed)
    }

    /// What the last decision's search learned, where the player searches.
    fn info(&self) -> Option<SearchInfo> {
        None
    }

    /// Forgets everything learned in earlier decisions (a new game).
    fn reset(&mut self) {}

    /// The network player this is, for drivers that step many games'
    /// searches together ([`crate::step_pooled`]); `None` for players that
    /// only [`Player::choose`].
    fn as_neural(&mut self) -> Option<&mut crate::NeuralPlayer> {
        None
    }
}

/// The repetition history of a game's current position.
pub fn history_of(game: &Game) -> KeyHistory {
    let mut pos = *game.start();
    let mut h = KeyHistory::new(&pos);
    for &a in game.actions() {
        pos.play_unchecked(a);
        h.push(a, &pos);
    }
    h
}

/// Mixes a seed (splitmix64): derived seeds for moves, games and players.
#[inline]
pub fn mix_seed(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17);
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Placements and removals change the material: no earlier position recurs.
#[inline]
pub(crate) fn irreversible(a: Action) -> bool {
    !matches!(a, Action::Move(..))
}

/// A search path's repetition keys on top of the game's history, with undo:
/// allocation-free once its vector has grown.
pub(crate) struct PathHistory<'a> {
    base: &'a KeyHistory,
    keys: Vec<u64>,
    /// First index of `keys` after the last irreversible action on the path.
    start: usize,
    /// No irreversible action on the path: the game's history still counts.
    base_live: bool,
}

/// What [`PathHistory::pop`] restores.
#[derive(Clone, Copy)]
pub(crate) struct Mark {
    len: usize,
    start: usize,
    base_live: bool,
}

impl<'a> PathHistory<'a> {
    pub(crate) fn new(base: &'a KeyHistory) -> PathHistory<'a> {
        PathHistory {
            base,
            keys: Vec::with_capacity(256),
            start: 0,
            base_live: true,
        }
    }

    #[inline]
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            len: self.keys.len(),
            start: self.start,
            base_live: self.base_live,
        }
    }

    /// Records the position reached by `action`; returns the mark to pop back to.
    #[inline]
    pub(crate) fn push(&mut self, action: Action, reached: &Position) -> Mark {
        let m = self.mark();
        if irreversible(action) {
            self.start = self.keys.len();
            self.base_live = false;
        }
        self.keys.push(reached.key());
        m
    }

    /// [`PathHistory::push`] with the reached position's key already computed.
    #[inline]
    pub(crate) fn push_key(&mut self, action: Action, key: u64) {
        if irreversible(action) {
            self.start = self.keys.len();
            self.base_live = false;
        }
        self.keys.push(key);
    }

    /// A one-word Bloom filter (bit `key & 63`) of the keys that count for
    /// repetition now; every bit while the game's own history still counts.
    pub(crate) fn window_bloom(&self) -> u64 {
        if self.base_live {
            return !0;
        }
        self.keys[self.start..]
            .iter()
            .fold(0, |b, &k| b | 1u64 << (k & 63))
    }

    #[inline]
    pub(crate) fn pop(&mut self, m: Mark) {
        self.keys.truncate(m.len);
        self.start = m.start;
        self.base_live = m.base_live;
    }

    #[inline]
    pub(crate) fn occurrences(&self, key: u64) -> u32 {
        let own = self.keys[self.start..]
            .iter()
            .filter(|&&k| k == key)
            .count() as u32;
        if self.base_live {
            own + self.base.occurrences(key)
        } else {
            own
        }
    }

    /// Whether the position recorded last repeats one met since `root_key`'s
    /// position, the search's root included, with no irreversible action
    /// between: a cycle inside the search, not one through the game before it.
    #[inline]
    pub(crate) fn repeats_since_root(&self, root_key: u64) -> bool {
        let Some((&last, before)) = self.keys[self.start..].split_last() else {
            return false;
        };
        before.contains(&last) || (self.base_live && last == root_key)
    }

    /// How many times the position recorded last has occurred.
    ///
    /// # Panics
    ///
    /// When nothing was recorded on the path.
    #[inline]
    pub(crate) fn last_occurrences(&self) -> u32 {
        self.occurrences(*self.keys.last().expect("a position on the path"))
    }

    /// The outcome of `pos`, the position recorded last (or the root).
    #[inline]
    pub(crate) fn outcome(&self, pos: &Position) -> Option<Outcome> {
        if self.keys.is_empty() {
            return self.base.outcome(pos);
        }
        pos.outcome_with_occurrences(self.occurrences(pos.key()))
    }
}

impl std::fmt::Debug for dyn Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Player({})", self.spec())
    }
}

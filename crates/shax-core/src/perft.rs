//! Perft: counting the leaves of the game tree to a fixed depth, the standard
//! check of a move generator against independent implementations.
//!
//! Finished games are leaves: a position whose game is over (repetition
//! included) has no children. Counts use bulk counting at the last ply and a
//! transposition table where the subtree cannot depend on the history (right
//! after a placement or removal, no earlier position can recur).

use std::collections::HashMap;

use crate::action::{Action, ActionList};
use crate::position::{Position, Task};

/// How perft counts depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Every action is a ply, removals included.
    Plies,
    /// A place or move together with the removals it earns is one turn; each
    /// of Shax's two full-board removals, and each freeing move, is a turn of its own.
    Turns,
}

/// Leaf count from `pos` (with no history before it) to `depth`.
///
/// # Examples
///
/// ```
/// use shax_core::{perft, Depth, Position, Preset, Rules};
///
/// let pos = Position::new(Rules::preset(Preset::NineMensMorris));
/// assert_eq!(perft(&pos, 3, Depth::Plies), 12_144);
/// ```
pub fn perft(pos: &Position, depth: u32, mode: Depth) -> u64 {
    let mut p = Perft {
        keys: vec![pos.key()],
        table: HashMap::new(),
    };
    match mode {
        Depth::Plies => p.plies(pos, depth, 0),
        Depth::Turns => p.turns(pos, depth, 0),
    }
}

/// Leaf counts below each legal action of `pos` ("divide"), in notation order.
pub fn perft_divide(pos: &Position, depth: u32, mode: Depth) -> Vec<(Action, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    // One table for every child: its entries do not depend on the history.
    let mut p = Perft {
        keys: vec![pos.key()],
        table: HashMap::new(),
    };
    let mut out: Vec<(Action, u64)> = pos
        .legal_actions()
        .iter()
        .map(|&a| (a, p.child(pos, a, depth, mode, 0)))
        .collect();
    out.sort_by_key(|(a, _)| a.to_string());
    out
}

/// Whether the action from `parent` to `child` leaves the turn unfinished:
/// the same player now owes a removal it earned.
#[inline]
fn continues_turn(parent: &Position, child: &Position) -> bool {
    child.to_act() == parent.to_act() && child.task() == Task::Remove && !child.opening_reply()
}

struct Perft {
    /// Repetition keys along the current path.
    keys: Vec<u64>,
    /// (full key, depth, mode) -> leaves, for history-independent subtrees.
    table: HashMap<(u64, u32), u64>,
}

impl Perft {
    /// Pushes the child's key; returns the child's segment start.
    #[inline]
    fn push(&mut self, a: Action, child: &Position, seg: usize) -> usize {
        self.keys.push(child.key());
        if matches!(a, Action::Move(..)) {
            seg
        } else {
            self.keys.len() - 1
        }
    }

    /// Leaves below `a` played in `pos` (searched to `depth` in `mode`), the
    /// child's key pushed for the time of the count.
    fn child(&mut self, pos: &Position, a: Action, depth: u32, mode: Depth, seg: usize) -> u64 {
        let mut child = *pos;
        child.play_unchecked(a);
        let s = self.push(a, &child, seg);
        let n = match mode {
            Depth::Plies => self.plies(&child, depth - 1, s),
            Depth::Turns => {
                let same_turn = continues_turn(pos, &child) && !self.over(&child, s);
                self.turns(&child, if same_turn { depth } else { depth - 1 }, s)
            }
        };
        self.keys.pop();
        n
    }

    #[inline]
    fn over(&self, pos: &Position, seg: usize) -> bool {
        let key = pos.key();
        let occ = self.keys[seg..].iter().filter(|&&k| k == key).count() as u32;
        pos.outcome_with_occurrences(occ).is_some()
    }

    fn plies(&mut self, pos: &Position, depth: u32, seg: usize) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.over(pos, seg) {
            return 0;
        }
        if depth == 1 {
            return pos.count_legal_actions() as u64;
        }
        let cacheable = seg + 1 == self.keys.len() && depth >= 3;
        let tkey = (pos.full_key(), depth);
        if cacheable && let Some(&n) = self.table.get(&tkey) {
            return n;
        }
        let mut list = ActionList::new();
        pos.legal_actions_into(&mut list);
        let mut n = 0;
        for &a in list.iter() {
            n += self.child(pos, a, depth, Depth::Plies, seg);
        }
        if cacheable {
            self.table.insert(tkey, n);
        }
        n
    }

    fn turns(&mut self, pos: &Position, depth: u32, seg: usize) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.over(pos, seg) {
            return 0;
        }
        let cacheable = seg + 1 == self.keys.len() && depth >= 2;
        // Turn depth is part of the key's second half so it never meets plies.
        let tkey = (pos.full_key(), depth | 1 << 31);
        if cacheable && let Some(&n) = self.table.get(&tkey) {
            return n;
        }
        let mut list = ActionList::new();
        pos.legal_actions_into(&mut list);
        let mut n = 0;
        for &a in list.iter() {
            n += self.child(pos, a, depth, Depth::Turns, seg);
        }
        if cacheable {
            self.table.insert(tkey, n);
        }
        n
    }
}

//! Actions, their notation, fixed-capacity action lists and the policy index map.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::str::FromStr;

use crate::board::{POINTS, Point};

/// One decision of the player to act.
///
/// Notation: place `d7`, move `a1-a4`, remove `xg7`.
///
/// # Examples
///
/// ```
/// use shax_core::Action;
///
/// let a: Action = "a1-a4".parse().unwrap();
/// assert_eq!(a.to_string(), "a1-a4");
/// assert_eq!(Action::from_policy_index(a.policy_index()), Some(a));
/// assert!("a1-d4".parse::<Action>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Place a piece from hand on an empty point.
    Place(Point),
    /// Move a piece from one point to another (slide, flight or freeing move).
    Move(Point, Point),
    /// Remove an enemy piece.
    Remove(Point),
}

/// Size of the policy vector: 24 placements, 552 moves, 24 removals.
pub const POLICY_SIZE: usize = POINTS + POINTS * (POINTS - 1) + POINTS;

const MOVE_BASE: usize = POINTS;
const REMOVE_BASE: usize = POINTS + POINTS * (POINTS - 1);

impl Action {
    /// The action's index in the policy vector, `0..POLICY_SIZE`.
    ///
    /// The map is stable (networks depend on it):
    /// - `Place(p)` -> `p` (0..24);
    /// - `Move(f, t)` -> `24 + 23 * f + (t if t < f else t - 1)` (24..576);
    /// - `Remove(p)` -> `576 + p` (576..600),
    ///
    /// with points numbered as in [`crate::board`]. Moves with `f == t` have no index.
    ///
    /// # Panics
    ///
    /// Panics on `Move(p, p)`, which is never a legal action.
    #[inline]
    pub fn policy_index(self) -> usize {
        match self {
            Action::Place(p) => p.index(),
            Action::Move(f, t) => {
                let (f, t) = (f.index(), t.index());
                assert_ne!(f, t, "a move must change points");
                MOVE_BASE + f * (POINTS - 1) + if t < f { t } else { t - 1 }
            }
            Action::Remove(p) => REMOVE_BASE + p.index(),
        }
    }

    /// The action with this policy index, or `None` when `index >= POLICY_SIZE`.
    pub fn from_policy_index(index: usize) -> Option<Action> {
        if index < MOVE_BASE {
            Point::new(index).map(Action::Place)
        } else if index < REMOVE_BASE {
            let i = index - MOVE_BASE;
            let f = i / (POINTS - 1);
            let t = i % (POINTS - 1);
            let t = if t < f { t } else { t + 1 };
            Some(Action::Move(Point::new(f)?, Point::new(t)?))
        } else {
            Point::new(index - REMOVE_BASE).map(Action::Remove)
        }
    }

    /// The point the action puts a piece on, if any.
    #[inline]
    pub fn destination(self) -> Option<Point> {
        match self {
            Action::Place(p) | Action::Move(_, p) => Some(p),
            Action::Remove(_) => None,
        }
    }

    /// Whether this is a removal.
    #[inline]
    pub fn is_removal(self) -> bool {
        matches!(self, Action::Remove(_))
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Place(p) => write!(f, "{p}"),
            Action::Move(a, b) => write!(f, "{a}-{b}"),
            Action::Remove(p) => write!(f, "x{p}"),
        }
    }
}

/// Text that is not an action in notation (whether it is legal is another matter).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// Nothing to parse.
    #[error("empty action")]
    Empty,
    /// A part of the action is not a point name.
    #[error("'{text}' is not an action: {why}")]
    Malformed {
        /// The action as given.
        text: String,
        /// What was wrong.
        why: String,
    },
}

impl FromStr for Action {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Action, NotationError> {
        if s.is_empty() {
            return Err(NotationError::Empty);
        }
        let bad = |why: String| NotationError::Malformed {
            text: s.to_string(),
            why,
        };
        let point = |t: &str| t.parse::<Point>().map_err(|e| bad(e.to_string()));
        if let Some(rest) = s.strip_prefix('x').or_else(|| s.strip_prefix('X')) {
            return Ok(Action::Remove(point(rest)?));
        }
        match s.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (point(a)?, point(b)?);
                if a == b {
                    return Err(bad("a move must go to another point".to_string()));
                }
                Ok(Action::Move(a, b))
            }
            None => Ok(Action::Place(point(s)?)),
        }
    }
}

/// Most legal actions any position can have: `n` flying pieces times `e`
/// empty points with `n + e <= 24` is at most 144; slides (at most 40 edges),
/// placements and removals (24 each) stay below.
pub const MAX_ACTIONS: usize = 144;

/// A list of actions on the stack, without heap allocation.
#[derive(Clone)]
pub struct ActionList {
    len: usize,
    items: [Action; MAX_ACTIONS],
}

impl ActionList {
    /// An empty list.
    #[inline]
    pub fn new() -> ActionList {
        ActionList {
            len: 0,
            items: [Action::Place(Point::ALL[0]); MAX_ACTIONS],
        }
    }

    /// Appends an action.
    ///
    /// # Panics
    ///
    /// Panics when the list already holds [`MAX_ACTIONS`] actions, which no
    /// position's legal actions reach.
    #[inline]
    pub fn push(&mut self, a: Action) {
        self.items[self.len] = a;
        self.len += 1;
    }

    /// Keeps only the actions for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(Action) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            if keep(self.items[i]) {
                self.items[j] = self.items[i];
                j += 1;
            }
        }
        self.len = j;
    }

    /// Removes every action.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl Default for ActionList {
    fn default() -> Self {
        ActionList::new()
    }
}

impl Deref for ActionList {
    type Target = [Action];
    #[inline]
    fn deref(&self) -> &[Action] {
        &self.items[..self.len]
    }
}

impl DerefMut for ActionList {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Action] {
        &mut self.items[..self.len]
    }
}

impl fmt::Debug for ActionList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a ActionList {
    type Item = &'a Action;
    type IntoIter = std::slice::Iter<'a, Action>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_index_is_a_bijection() {
        let mut seen = vec![false; POLICY_SIZE];
        for (i, slot) in seen.iter_mut().enumerate() {
            let a = Action::from_policy_index(i).unwrap();
            assert_eq!(a.policy_index(), i);
            assert!(!*slot);
            *slot = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(Action::from_policy_index(POLICY_SIZE), None);
        assert_eq!(POLICY_SIZE, 600);
    }

    #[test]
    fn notation_round_trips_and_rejects_garbage() {
        for s in ["d7", "a1-a4", "xg7", "c4-e4"] {
            assert_eq!(s.parse::<Action>().unwrap().to_string(), s);
        }
        for s in [
            "", "d4", "x", "a1-", "-a1", "a1-a1", "xx a1", "a1-a4-a7", "z9", "a1a4",
        ] {
            assert!(s.parse::<Action>().is_err(), "{s:?} parsed");
        }
    }
}

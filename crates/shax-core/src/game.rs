//! A game: a position plus the history that the repetition rule needs.

use crate::action::{Action, ActionList, NotationError};
use crate::position::{IllegalAction, Outcome, Position};
use crate::rules::Rules;

/// Irreversible actions (placements and removals) change the material, so no
/// position before one can recur after it.
#[inline]
fn irreversible(a: Action) -> bool {
    !matches!(a, Action::Move(..))
}

/// The repetition keys of the positions since the last irreversible action:
/// the light history that search and playouts keep instead of a [`Game`].
///
/// # Examples
///
/// ```
/// use shax_core::{KeyHistory, Position, Rules};
///
/// let pos = Position::new(Rules::default());
/// let mut h = KeyHistory::new(&pos);
/// assert_eq!(h.occurrences(pos.key()), 1);
/// ```
#[derive(Clone, Debug, Default)]
pub struct KeyHistory {
    keys: Vec<u64>,
}

impl KeyHistory {
    /// A history holding the starting position.
    pub fn new(start: &Position) -> KeyHistory {
        KeyHistory {
            keys: vec![start.key()],
        }
    }

    /// Restarts from `start`, keeping the allocation.
    pub fn reset(&mut self, start: &Position) {
        self.keys.clear();
        self.keys.push(start.key());
    }

    /// Records the position reached by `action`.
    #[inline]
    pub fn push(&mut self, action: Action, reached: &Position) {
        if irreversible(action) {
            self.keys.clear();
        }
        self.keys.push(reached.key());
    }

    /// How many times `key` has been recorded since the last irreversible action.
    #[inline]
    pub fn occurrences(&self, key: u64) -> u32 {
        self.keys.iter().filter(|&&k| k == key).count() as u32
    }

    /// The outcome of `pos`, the position recorded last.
    #[inline]
    pub fn outcome(&self, pos: &Position) -> Option<Outcome> {
        pos.outcome_with_occurrences(self.occurrences(pos.key()))
    }
}

/// Why an action in notation could not be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// The text is not an action.
    #[error(transparent)]
    Notation(#[from] NotationError),
    /// The action is not legal here (or the game is over).
    #[error(transparent)]
    Illegal(#[from] IllegalAction),
}

/// A game from some starting position: every position and action so far.
///
/// # Examples
///
/// ```
/// use shax_core::{Game, Rules};
///
/// let mut game = Game::new(Rules::default());
/// game.play_str("d7").unwrap();
/// assert!(game.play_str("d7").is_err());
/// assert!(game.play_str("d9").is_err());
/// assert_eq!(game.undo().map(|a| a.to_string()), Some("d7".to_string()));
/// assert_eq!(game.len(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<Position>,
    actions: Vec<Action>,
}

impl Game {
    /// A game from the starting position of `rules`.
    pub fn new(rules: Rules) -> Game {
        Game::from_position(Position::new(rules))
    }

    /// A game from `start` (with no history before it).
    pub fn from_position(start: Position) -> Game {
        Game {
            positions: vec![start],
            actions: Vec::new(),
        }
    }

    /// The current position.
    #[inline]
    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game always has a position")
    }

    /// The starting position.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The actions played, in order.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// Number of actions played.
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    /// Whether no action has been played.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// How many times the current position has occurred since the last
    /// irreversible action, now included.
    pub fn occurrences(&self) -> u32 {
        let key = self.position().key();
        let mut n = 1;
        for i in (0..self.actions.len()).rev() {
            if irreversible(self.actions[i]) {
                break;
            }
            if self.positions[i].key() == key {
                n += 1;
            }
        }
        n
    }

    /// The result, if the game is over by any rule, repetition included.
    pub fn outcome(&self) -> Option<Outcome> {
        self.position().outcome_with_occurrences(self.occurrences())
    }

    /// The legal actions; none when the game is over.
    pub fn legal_actions(&self) -> ActionList {
        if self.outcome().is_some() {
            ActionList::new()
        } else {
            self.position().legal_actions()
        }
    }

    /// Plays a legal action.
    ///
    /// # Errors
    ///
    /// [`IllegalAction`] when the game is over or the action is not legal;
    /// the game is unchanged.
    pub fn play(&mut self, action: Action) -> Result<(), IllegalAction> {
        if let Some(o) = self.outcome() {
            return Err(IllegalAction {
                action,
                why: format!("the game is over ({o})"),
            });
        }
        let mut next = *self.position();
        next.play(action)?;
        self.positions.push(next);
        self.actions.push(action);
        Ok(())
    }

    /// Parses and plays an action in notation.
    ///
    /// # Errors
    ///
    /// [`PlayError::Notation`] for text that is not an action,
    /// [`PlayError::Illegal`] for an action that is not legal here.
    pub fn play_str(&mut self, text: &str) -> Result<Action, PlayError> {
        let action: Action = text.parse()?;
        self.play(action)?;
        Ok(action)
    }

    /// Takes back the last action, returning it.
    pub fn undo(&mut self) -> Option<Action> {
        let a = self.actions.pop()?;
        self.positions.pop();
        Some(a)
    }
}

/// Plays a game from `start` to its end, `choose` picking each action from the
/// legal ones (never an empty slice). Returns the outcome and the number of
/// actions played. Allocation-free but for `history`, which is reused.
pub fn play_out(
    start: &Position,
    history: &mut KeyHistory,
    mut choose: impl FnMut(&Position, &[Action]) -> Action,
) -> (Outcome, u32) {
    let mut pos = *start;
    history.reset(&pos);
    let mut actions = ActionList::new();
    let mut n = 0;
    loop {
        if let Some(o) = history.outcome(&pos) {
            return (o, n);
        }
        pos.legal_actions_into(&mut actions);
        let a = choose(&pos, &actions);
        pos.play_unchecked(a);
        history.push(a, &pos);
        n += 1;
    }
}

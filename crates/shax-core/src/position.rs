//! The position: everything that decides the future of a game except the
//! repetition history (kept by [`Game`](crate::Game)).

use std::fmt;

use crate::action::{Action, ActionList};
use crate::board::{Bitboard, Color, Point};
use crate::rules::{Blocked, FullBoard, NoJare, PlacementLines, Rules};
use crate::zobrist;

/// What the player to act must do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Task {
    /// Place a piece from hand.
    Place,
    /// Move a piece.
    Move,
    /// Remove an enemy piece.
    Remove,
    /// Make a freeing move: a move after which the blocked opponent can move (Shax).
    Free,
}

impl Task {
    /// `"place"`, `"move"`, `"remove"` or `"free"`.
    pub const fn name(self) -> &'static str {
        match self {
            Task::Place => "place",
            Task::Move => "move",
            Task::Remove => "remove",
            Task::Free => "free",
        }
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The loser is down to two pieces.
    Pieces,
    /// The player to act has no legal move and cannot be freed.
    Blocked,
    /// Shax's full board with no jare.
    NoJare,
    /// A position occurred for the `repetition`-th time.
    Repetition,
    /// Too many movement turns without a removal (either counter).
    NoRemoval,
    /// The `max_actions` adjudication.
    MaxActions,
}

impl Reason {
    /// The reason's word in the engine protocol and game records.
    pub const fn name(self) -> &'static str {
        match self {
            Reason::Pieces => "pieces",
            Reason::Blocked => "blocked",
            Reason::NoJare => "no-jare",
            Reason::Repetition => "repetition",
            Reason::NoRemoval => "no-removal",
            Reason::MaxActions => "max-actions",
        }
    }

    /// The reason named by its word.
    pub fn from_name(s: &str) -> Option<Reason> {
        [
            Reason::Pieces,
            Reason::Blocked,
            Reason::NoJare,
            Reason::Repetition,
            Reason::NoRemoval,
            Reason::MaxActions,
        ]
        .into_iter()
        .find(|r| r.name() == s)
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winner; `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: Reason,
}

impl Outcome {
    /// The result from `c`'s point of view: 1 win, 0 draw, -1 loss.
    pub fn value_for(self, c: Color) -> f32 {
        match self.winner {
            None => 0.0,
            Some(w) if w == c => 1.0,
            Some(_) => -1.0,
        }
    }
}

impl fmt::Display for Outcome {
    /// `winner <white|black|none> reason <word>`, as in the engine's status line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.winner.map_or("none", Color::name);
        write!(f, "winner {w} reason {}", self.reason.name())
    }
}

/// An action that is well formed but not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal action {action}: {why}")]
pub struct IllegalAction {
    /// The action.
    pub action: Action,
    /// Why it is not legal here.
    pub why: String,
}

/// A position of a mill game under some [`Rules`].
///
/// `Position` is `Copy` (under 100 bytes): search copies it instead of undoing.
/// It holds everything that decides the future except the repetition history,
/// which [`Game`](crate::Game) keeps.
///
/// # Examples
///
/// ```
/// use shax_core::{Action, Position, Rules, Task};
///
/// let mut pos = Position::new(Rules::default());
/// assert_eq!(pos.task(), Task::Place);
/// assert_eq!(pos.legal_actions().len(), 24);
/// pos.play("d7".parse().unwrap()).unwrap();
/// assert!(pos.play("d7".parse().unwrap()).is_err()); // occupied
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) rules: Rules,
    pub(crate) board: [Bitboard; 2],
    pub(crate) hand: [u8; 2],
    pub(crate) to_act: Color,
    /// Removals owed by `to_act`.
    pub(crate) removals: u8,
    /// After `to_act`'s removal the opponent owes one (Shax's full-board removals).
    pub(crate) opening_reply: bool,
    /// `to_act` must make a freeing move for the blocked opponent.
    pub(crate) freeing: bool,
    pub(crate) first_jare: Option<Color>,
    /// Per colour, the last move `(p, q)` that left a complete line at `p`: its
    /// reverse `q-p` may not re-form a line as that colour's next move.
    pub(crate) last_move: [Option<(Point, Point)>; 2],
    pub(crate) no_removal: u32,
    pub(crate) endgame: u32,
    pub(crate) actions: u32,
    /// Zobrist hash of the board and the hands, kept incrementally.
    pub(crate) hash: u64,
}

impl Position {
    /// The starting position: empty board, every piece in hand, White to act.
    ///
    /// # Panics
    ///
    /// Panics when `rules` fails [`Rules::validate`] (only possible for rules
    /// changed by hand: [`Rules::from_toml`] and [`Rules::load`] validate).
    pub fn new(rules: Rules) -> Position {
        if let Err(e) = rules.validate() {
            panic!("Position::new: invalid rules: {e}");
        }
        let mut pos = Position {
            rules,
            board: [Bitboard::EMPTY; 2],
            hand: [rules.pieces; 2],
            to_act: Color::White,
            removals: 0,
            opening_reply: false,
            freeing: false,
            first_jare: None,
            last_move: [None; 2],
            no_removal: 0,
            endgame: 0,
            actions: 0,
            hash: 0,
        };
        pos.hash = pos.hash_from_scratch();
        pos
    }

    /// The rules.
    #[inline]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The player to act: the remover while a removal is owed, the freer while
    /// the opponent is blocked (Shax).
    #[inline]
    pub fn to_act(&self) -> Color {
        self.to_act
    }

    /// What the player to act must do.
    #[inline]
    pub fn task(&self) -> Task {
        if self.removals > 0 {
            Task::Remove
        } else if self.freeing {
            Task::Free
        } else if self.hand[self.to_act.index()] > 0 {
            Task::Place
        } else {
            Task::Move
        }
    }

    /// `c`'s pieces on the board.
    #[inline]
    pub fn board(&self, c: Color) -> Bitboard {
        self.board[c.index()]
    }

    /// All occupied points.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.board[0] | self.board[1]
    }

    /// `c`'s pieces still in hand.
    #[inline]
    pub fn hand(&self, c: Color) -> u32 {
        self.hand[c.index()] as u32
    }

    /// `c`'s pieces: on the board plus in hand.
    #[inline]
    pub fn pieces(&self, c: Color) -> u32 {
        self.board[c.index()].count() + self.hand[c.index()] as u32
    }

    /// Removals the player to act still owes in this turn.
    #[inline]
    pub fn removals_owed(&self) -> u32 {
        self.removals as u32
    }

    /// Whether the opponent removes one piece after the current removal (Shax's
    /// full-board removals).
    #[inline]
    pub fn opening_reply(&self) -> bool {
        self.opening_reply
    }

    /// Who formed the first line of the game (the first jare), if anyone has.
    #[inline]
    pub fn first_jare(&self) -> Option<Color> {
        self.first_jare
    }

    /// `c`'s last move while it is under the no-return restriction: its reverse
    /// may not re-form a line as `c`'s next move.
    #[inline]
    pub fn no_return_move(&self, c: Color) -> Option<(Point, Point)> {
        self.last_move[c.index()]
    }

    /// Completed movement turns without a removal.
    #[inline]
    pub fn no_removal_turns(&self) -> u32 {
        self.no_removal
    }

    /// Completed movement turns without a removal while a side had exactly three pieces.
    #[inline]
    pub fn endgame_turns(&self) -> u32 {
        self.endgame
    }

    /// Actions played since the start, removals included.
    #[inline]
    pub fn action_count(&self) -> u32 {
        self.actions
    }

    /// Whether the player to act is in the placing phase.
    #[inline]
    pub fn is_placing(&self) -> bool {
        self.hand[0] > 0 || self.hand[1] > 0
    }

    /// Whether `c` flies (moves to any empty point) under the flying rule.
    #[inline]
    pub fn flies(&self, c: Color) -> bool {
        self.rules.flies(self.pieces(c))
    }

    // ------------------------------------------------------------------
    // Hashing

    /// The repetition key: board, player to act, what they must do, pieces in
    /// hand and removals owed. Draw counters, the first jare and the
    /// no-return restriction are not part of it (`docs/RULES.md`).
    #[inline]
    pub fn key(&self) -> u64 {
        let mut k = self.hash;
        if self.to_act == Color::Black {
            k ^= zobrist::SIDE;
        }
        if self.removals > 0 {
            k ^= zobrist::REMOVALS[(self.removals as usize).min(2) - 1];
        }
        if self.opening_reply {
            k ^= zobrist::OPENING_REPLY;
        }
        if self.freeing {
            k ^= zobrist::FREEING;
        }
        k
    }

    /// A key of everything in the position, counters and restrictions included:
    /// two positions with equal full keys have the same future (up to hash collisions).
    pub fn full_key(&self) -> u64 {
        let mut k = self.key();
        if let Some(j) = self.first_jare {
            k ^= zobrist::JARE[j.index()];
        }
        for c in Color::BOTH {
            if let Some((p, q)) = self.last_move[c.index()] {
                k ^= zobrist::mix(
                    0x4c4d_0000 + (c.index() * 1024 + p.index() * 32 + q.index()) as u64,
                );
            }
        }
        k ^= zobrist::mix((self.no_removal as u64) << 40 ^ (self.endgame as u64) << 20 ^ 0x5a5a);
        k ^= zobrist::mix((self.actions as u64) << 8 ^ 0xa5);
        k
    }

    /// The board-and-hand hash computed from scratch (the incremental one must
    /// always equal it).
    pub fn hash_from_scratch(&self) -> u64 {
        let mut h = 0;
        for c in Color::BOTH {
            for p in self.board[c.index()] {
                h ^= zobrist::PIECE[c.index()][p.index()];
            }
            h ^= zobrist::HAND[c.index()][self.hand[c.index()] as usize];
        }
        h
    }

    /// The incrementally kept board-and-hand hash.
    #[inline]
    pub fn incremental_hash(&self) -> u64 {
        self.hash
    }

    #[inline]
    fn toggle(&mut self, c: Color, p: Point) {
        self.board[c.index()].0 ^= p.bb().0;
        self.hash ^= zobrist::PIECE[c.index()][p.index()];
    }

    #[inline]
    fn take_from_hand(&mut self, c: Color) {
        let h = self.hand[c.index()] as usize;
        self.hash ^= zobrist::HAND[c.index()][h] ^ zobrist::HAND[c.index()][h - 1];
        self.hand[c.index()] -= 1;
    }

    // ------------------------------------------------------------------
    // Action generation

    /// The enemy pieces the player to act may remove.
    #[inline]
    pub fn removable(&self) -> Bitboard {
        let enemy = self.board[self.to_act.opponent().index()];
        if self.rules.mill_protection {
            let free = enemy & !self.rules.board.geometry().in_lines(enemy);
            if !free.is_empty() {
                return free;
            }
        }
        enemy
    }

    /// Whether `Move(from, to)` by `c` is barred by the no-return rule.
    #[inline]
    fn barred(&self, c: Color, from: Point, to: Point) -> bool {
        self.last_move[c.index()] == Some((to, from)) && {
            let own = Bitboard(self.board[c.index()].0 ^ from.bb().0 ^ to.bb().0);
            self.rules.board.geometry().lines_at(own, to) > 0
        }
    }

    /// `c`'s moves (slides, or flights when `c` flies), ignoring whose turn it is.
    fn gen_moves(&self, c: Color, out: &mut ActionList) {
        let geo = self.rules.board.geometry();
        let empty = !self.occupied();
        let fly = self.flies(c);
        for f in self.board[c.index()] {
            let targets = if fly {
                empty
            } else {
                geo.adjacent[f.index()] & empty
            };
            for t in targets {
                if !self.barred(c, f, t) {
                    out.push(Action::Move(f, t));
                }
            }
        }
    }

    /// Whether `c` has at least one move on the current board.
    fn has_move(&self, c: Color) -> bool {
        let own = self.board[c.index()];
        let empty = !self.occupied();
        if own.is_empty() || empty.is_empty() {
            return false;
        }
        let geo = self.rules.board.geometry();
        let fly = self.flies(c);
        let mut count = 0;
        for f in own {
            let targets = if fly {
                empty
            } else {
                geo.adjacent[f.index()] & empty
            };
            count += targets.count();
            if count > 1 {
                return true;
            }
        }
        match count {
            0 => false,
            // A single move: it may be the one the no-return rule bars.
            _ => match self.last_move[c.index()] {
                None => true,
                Some(_) => {
                    let mut l = ActionList::new();
                    self.gen_moves(c, &mut l);
                    !l.is_empty()
                }
            },
        }
    }

    /// Every legal action, in generation order.
    pub fn legal_actions(&self) -> ActionList {
        let mut out = ActionList::new();
        self.legal_actions_into(&mut out);
        out
    }

    /// Writes every legal action into `out` (cleared first).
    pub fn legal_actions_into(&self, out: &mut ActionList) {
        out.clear();
        match self.task() {
            Task::Remove => {
                for p in self.removable() {
                    out.push(Action::Remove(p));
                }
            }
            Task::Place => {
                for p in !self.occupied() {
                    out.push(Action::Place(p));
                }
            }
            Task::Move => self.gen_moves(self.to_act, out),
            Task::Free => {
                let blocked = self.to_act.opponent();
                self.gen_moves(self.to_act, out);
                out.retain(|a| {
                    let mut child = *self;
                    if let Action::Move(f, t) = a {
                        child.board[self.to_act.index()].0 ^= f.bb().0 ^ t.bb().0;
                    }
                    child.has_move(blocked)
                });
            }
        }
    }

    /// The number of legal actions, without listing them where a count suffices.
    pub fn count_legal_actions(&self) -> u32 {
        match self.task() {
            Task::Remove => self.removable().count(),
            Task::Place => (!self.occupied()).count(),
            Task::Move if self.last_move[self.to_act.index()].is_none() => {
                let c = self.to_act;
                let empty = !self.occupied();
                let own = self.board[c.index()];
                if self.flies(c) {
                    own.count() * empty.count()
                } else {
                    let geo = self.rules.board.geometry();
                    own.iter()
                        .map(|f| (geo.adjacent[f.index()] & empty).count())
                        .sum()
                }
            }
            _ => self.legal_actions().len() as u32,
        }
    }

    /// Whether the player to act has any legal action.
    pub fn has_legal_action(&self) -> bool {
        match self.task() {
            Task::Remove => !self.removable().is_empty(),
            Task::Place => self.occupied() != Bitboard::FULL,
            Task::Move => self.has_move(self.to_act),
            Task::Free => !self.legal_actions().is_empty(),
        }
    }

    /// Whether `action` is legal here.
    pub fn is_legal(&self, action: Action) -> bool {
        self.legal_actions().contains(&action)
    }

    // ------------------------------------------------------------------
    // Playing

    /// Plays a legal action.
    ///
    /// # Errors
    ///
    /// [`IllegalAction`] (and the position unchanged) when the action is not
    /// legal here or the game is over by a rule the position alone decides.
    pub fn play(&mut self, action: Action) -> Result<(), IllegalAction> {
        if let Some(o) = self.outcome() {
            return Err(IllegalAction {
                action,
                why: format!("the game is over ({o})"),
            });
        }
        if !self.is_legal(action) {
            return Err(IllegalAction {
                action,
                why: self.why_illegal(action),
            });
        }
        self.play_unchecked(action);
        Ok(())
    }

    fn why_illegal(&self, action: Action) -> String {
        let task = self.task();
        let kind_ok = matches!(
            (task, action),
            (Task::Place, Action::Place(_))
                | (Task::Move | Task::Free, Action::Move(..))
                | (Task::Remove, Action::Remove(_))
        );
        let me = self.to_act;
        if !kind_ok {
            return format!("{me} must {} now", task.name());
        }
        match action {
            Action::Place(p) => format!("{p} is occupied"),
            Action::Remove(p) if !self.board(me.opponent()).contains(p) => {
                format!("{p} holds no {} piece", me.opponent())
            }
            Action::Remove(p) => format!("{p} stands in a line and other pieces do not"),
            Action::Move(f, _) if !self.board(me).contains(f) => format!("{f} holds no {me} piece"),
            Action::Move(_, t) if self.occupied().contains(t) => format!("{t} is occupied"),
            Action::Move(f, t) if self.barred(me, f, t) => {
                format!("{f}-{t} re-forms the line that {t}-{f} just left (no immediate return)")
            }
            Action::Move(f, t) if task == Task::Free && self.is_legal_move_shape(f, t) => {
                format!("{f}-{t} does not free {}", me.opponent())
            }
            Action::Move(f, t) => format!("{f} and {t} are not adjacent and {me} cannot fly"),
        }
    }

    fn is_legal_move_shape(&self, f: Point, t: Point) -> bool {
        self.flies(self.to_act) || self.rules.board.geometry().adjacent[f.index()].contains(t)
    }

    /// Plays `action` without checking it.
    ///
    /// # Panics
    ///
    /// The action must be one of [`Position::legal_actions`]; anything else may
    /// panic or leave an inconsistent position.
    pub fn play_unchecked(&mut self, action: Action) {
        let me = self.to_act;
        let opp = me.opponent();
        let geo = self.rules.board.geometry();
        self.actions = self.actions.saturating_add(1);
        match action {
            Action::Remove(p) => {
                self.toggle(opp, p);
                self.removals -= 1;
                self.no_removal = 0;
                self.endgame = 0;
                if self.removals == 0 || self.board[opp.index()].is_empty() {
                    self.removals = 0;
                    self.to_act = opp;
                    if self.opening_reply {
                        self.opening_reply = false;
                        self.removals = u8::from(!self.board[me.index()].is_empty());
                    }
                }
            }
            Action::Place(p) => {
                self.toggle(me, p);
                self.take_from_hand(me);
                self.last_move[me.index()] = None;
                let lines = geo.lines_at(self.board[me.index()], p);
                if lines > 0 && self.first_jare.is_none() {
                    self.first_jare = Some(me);
                }
                let owed = if self.rules.placement_lines == PlacementLines::Capture {
                    self.removals_for(lines)
                } else {
                    0
                };
                if owed > 0 {
                    self.removals = owed;
                } else {
                    self.to_act = opp;
                    if self.hand == [0, 0] && self.occupied() == Bitboard::FULL {
                        self.full_board(me, p);
                    }
                }
            }
            Action::Move(f, t) => {
                if self.rules.no_return {
                    let left_line = geo.lines_at(self.board[me.index()], f) > 0;
                    self.last_move[me.index()] = if left_line { Some((f, t)) } else { None };
                }
                self.toggle(me, f);
                self.toggle(me, t);
                let freeing = std::mem::take(&mut self.freeing);
                let owed = if freeing {
                    0
                } else {
                    self.removals_for(geo.lines_at(self.board[me.index()], t))
                };
                if owed > 0 {
                    self.removals = owed;
                } else {
                    self.no_removal = self.no_removal.saturating_add(1);
                    if self.pieces(Color::White) == 3 || self.pieces(Color::Black) == 3 {
                        self.endgame = self.endgame.saturating_add(1);
                    }
                    self.to_act = opp;
                }
            }
        }
        if self.rules.no_return {
            // A restriction whose return move has become impossible is dropped,
            // so that equal futures have equal position strings.
            let occupied = self.occupied();
            for c in Color::BOTH {
                if let Some((p, q)) = self.last_move[c.index()]
                    && (!self.board[c.index()].contains(q) || occupied.contains(p))
                {
                    self.last_move[c.index()] = None;
                }
            }
        }
        self.normalize();
    }

    /// Removals owed for forming `lines` lines at once (0 when there is nothing to remove).
    #[inline]
    fn removals_for(&self, lines: u32) -> u8 {
        let enemy = self.board[self.to_act.opponent().index()].count();
        let owed = match lines {
            0 => 0,
            1 => 1,
            _ => self.rules.double_mill_removals as u32,
        };
        owed.min(enemy) as u8
    }

    /// Placing just ended on a full board; `placer` placed the last piece at `p`.
    fn full_board(&mut self, placer: Color, p: Point) {
        match self.rules.full_board {
            FullBoard::Nothing => {}
            FullBoard::RemoveLastPlaced => self.toggle(placer, p),
            FullBoard::JareRemovals => {
                let first = match (self.first_jare, self.rules.no_jare) {
                    (Some(j), _) => j,
                    (None, NoJare::Draw) => return,
                    (None, NoJare::SecondPlayerRemovesFirst) => Color::Black,
                };
                self.to_act = first;
                self.removals = 1;
                self.opening_reply = true;
            }
        }
    }

    /// Turns "the player to act is blocked" into the freeing state where the
    /// rules free blocked players.
    pub(crate) fn normalize(&mut self) {
        if self.rules.blocked == Blocked::Freed
            && self.task() == Task::Move
            && self.pieces(Color::White) > 2
            && self.pieces(Color::Black) > 2
            && !self.is_no_jare_draw()
            && !self.has_move(self.to_act)
        {
            self.freeing = true;
            self.to_act = self.to_act.opponent();
        }
    }

    fn is_no_jare_draw(&self) -> bool {
        self.rules.full_board == FullBoard::JareRemovals
            && self.rules.no_jare == NoJare::Draw
            && self.first_jare.is_none()
            && self.removals == 0
            && self.hand == [0, 0]
            && self.occupied() == Bitboard::FULL
    }

    // ------------------------------------------------------------------
    // Outcome

    /// The result if the position alone ends the game (every rule except
    /// repetition, which needs the history: see [`Game::outcome`](crate::Game::outcome)).
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome_with_occurrences(1)
    }

    /// The result given that this position's [`key`](Position::key) has now been
    /// recorded `occurrences` times in the game (this time included).
    ///
    /// Decisive results come first; then the draws, in the order no-jare,
    /// repetition, no removal, max actions.
    pub fn outcome_with_occurrences(&self, occurrences: u32) -> Option<Outcome> {
        let decisive = |winner, reason| {
            Some(Outcome {
                winner: Some(winner),
                reason,
            })
        };
        let draw = |reason| {
            Some(Outcome {
                winner: None,
                reason,
            })
        };
        for c in Color::BOTH {
            if self.pieces(c) <= 2 {
                return decisive(c.opponent(), Reason::Pieces);
            }
        }
        if self.is_no_jare_draw() {
            // The game ends the moment the board fills: nobody is blocked yet.
            return draw(Reason::NoJare);
        }
        if !self.has_legal_action() {
            // Freeing: the freer has no freeing move, so the blocked side loses.
            let winner = if self.freeing {
                self.to_act
            } else {
                self.to_act.opponent()
            };
            return decisive(winner, Reason::Blocked);
        }
        let r = &self.rules;
        if r.repetition > 0 && occurrences >= r.repetition as u32 {
            return draw(Reason::Repetition);
        }
        if (r.no_removal_limit > 0 && self.no_removal >= r.no_removal_limit)
            || (r.endgame_no_removal_turns > 0 && self.endgame >= r.endgame_no_removal_turns)
        {
            return draw(Reason::NoRemoval);
        }
        if r.max_actions > 0 && self.actions >= r.max_actions {
            return draw(Reason::MaxActions);
        }
        None
    }

    /// The board drawn as text with coordinates, `W` and `B` for pieces.
    pub fn diagram(&self) -> String {
        let c = |name: &str| -> char {
            let p: Point = name.parse().expect("diagram names are points");
            if self.board[0].contains(p) {
                'W'
            } else if self.board[1].contains(p) {
                'B'
            } else {
                '.'
            }
        };
        let mut s = String::new();
        s += &format!(
            "7  {}-----------{}-----------{}\n",
            c("a7"),
            c("d7"),
            c("g7")
        );
        s += "   |           |           |\n";
        s += &format!(
            "6  |   {}-------{}-------{}   |\n",
            c("b6"),
            c("d6"),
            c("f6")
        );
        s += "   |   |       |       |   |\n";
        s += &format!(
            "5  |   |   {}---{}---{}   |   |\n",
            c("c5"),
            c("d5"),
            c("e5")
        );
        s += "   |   |   |       |   |   |\n";
        s += &format!(
            "4  {}---{}---{}       {}---{}---{}\n",
            c("a4"),
            c("b4"),
            c("c4"),
            c("e4"),
            c("f4"),
            c("g4")
        );
        s += "   |   |   |       |   |   |\n";
        s += &format!(
            "3  |   |   {}---{}---{}   |   |\n",
            c("c3"),
            c("d3"),
            c("e3")
        );
        s += "   |   |       |       |   |\n";
        s += &format!(
            "2  |   {}-------{}-------{}   |\n",
            c("b2"),
            c("d2"),
            c("f2")
        );
        s += "   |           |           |\n";
        s += &format!(
            "1  {}-----------{}-----------{}\n",
            c("a1"),
            c("d1"),
            c("g1")
        );
        s += "   a   b   c   d   e   f   g\n";
        s
    }
}

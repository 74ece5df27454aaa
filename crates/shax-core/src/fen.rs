//! The position string ("FEN"): every part of a [`Position`] that decides the
//! future of the game, as nine space-separated fields.
//!
//! ```text
//! W.B/.../.../....../.../.../... b - 10,11 w -,- 0 0 3
//! ```
//!
//! 1. **board**: seven groups separated by `/`, ranks 7 down to 1, each the
//!    points of that rank from file a to g (3, 3, 3, 6, 3, 3, 3 points):
//!    `W` white, `B` black, `.` empty.
//! 2. **to act**: `w` or `b`, the player who makes the next action.
//! 3. **pending**: `-` nothing (the player places while they have pieces in
//!    hand, else moves); `x1` or `x2` removals owed by the player to act;
//!    `x1+` one removal, after which the opponent owes one (Shax's full-board
//!    removals); `free` the player to act must free the blocked opponent.
//! 4. **hands**: white's and black's pieces in hand, `12,12`.
//! 5. **first jare**: `w`, `b` or `-`.
//! 6. **no-return moves**: white's and black's, `-` or a move such as
//!    `a1-a4` whose reverse may not re-form a line as that side's next move.
//! 7. **no-removal turns**, 8. **endgame turns** (while a side has three),
//!    9. **actions played**.
//!
//! The rules are not part of the string: it is read under given [`Rules`].

use std::fmt::Write as _;

use crate::board::{Bitboard, Color, Point, READING_ORDER};
use crate::position::Position;
use crate::rules::{Blocked, Rules};

/// Why a position string does not parse: which field, and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad position string: {field}: {why}")]
pub struct ParseFenError {
    /// The field's name.
    pub field: &'static str,
    /// What was wrong with it.
    pub why: String,
}

/// Why a parsed position cannot be a position under the given rules: which
/// field, and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal position: {field}: {why}")]
pub struct SetupError {
    /// The field's name (`rules` when the rules themselves are invalid).
    pub field: &'static str,
    /// What was wrong with it.
    pub why: String,
}

/// Why [`Position::from_fen`] rejected a position string: it does not parse,
/// or it parses to a position the rules cannot have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// The string is malformed.
    #[error(transparent)]
    Parse(#[from] ParseFenError),
    /// The string is well formed, but not a position under these rules.
    #[error(transparent)]
    Illegal(#[from] SetupError),
}

impl FenError {
    /// The field that was wrong.
    pub fn field(&self) -> &'static str {
        match self {
            FenError::Parse(e) => e.field,
            FenError::Illegal(e) => e.field,
        }
    }
}

/// What a position owes before its next ordinary action (field 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pending {
    /// Nothing: the player places or moves (`-`).
    Nothing,
    /// Removals owed by the player to act, 1 or 2 (`x1`, `x2`).
    Removals(u8),
    /// One removal, after which the opponent owes one (`x1+`: Shax's full board).
    RemovalThenReply,
    /// The player to act must free the blocked opponent (`free`).
    Free,
}

/// A parsed position string, not yet checked against any rules (as
/// shakmaty's `Setup`): [`Position::from_setup`] makes it a position.
///
/// # Examples
///
/// ```
/// use shax_core::{Position, Rules, Setup};
///
/// let s: Setup = ".../.../.../....../.../.../... w - 12,12 - -,- 0 0 0".parse().unwrap();
/// assert_eq!(s.hand, [12, 12]);
/// // 12 in hand is fine for Shax, too many for Nine Men's Morris.
/// assert!(Position::from_setup(Rules::default(), &s).is_ok());
/// let nmm = Rules::load("nine-mens-morris").unwrap();
/// assert!(Position::from_setup(nmm, &s).unwrap_err().to_string().contains("hands"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    /// White's and Black's pieces on the board.
    pub board: [Bitboard; 2],
    /// The player who makes the next action.
    pub to_act: Color,
    /// What is owed before the next ordinary action.
    pub pending: Pending,
    /// White's and Black's pieces in hand.
    pub hand: [u8; 2],
    /// Who made the first jare, if anyone.
    pub first_jare: Option<Color>,
    /// Each side's last move `(from, to)` whose return is restricted.
    pub last_move: [Option<(Point, Point)>; 2],
    /// Turns without a removal.
    pub no_removal: u32,
    /// Turns while a side has three pieces.
    pub endgame: u32,
    /// Actions played.
    pub actions: u32,
}

fn err<T>(field: &'static str, why: impl Into<String>) -> Result<T, ParseFenError> {
    Err(ParseFenError {
        field,
        why: why.into(),
    })
}

fn illegal<T>(field: &'static str, why: impl Into<String>) -> Result<T, SetupError> {
    Err(SetupError {
        field,
        why: why.into(),
    })
}

fn color(field: &'static str, s: &str) -> Result<Color, ParseFenError> {
    match s {
        "w" => Ok(Color::White),
        "b" => Ok(Color::Black),
        _ => err(field, format!("'{s}' is not w or b")),
    }
}

fn number(field: &'static str, s: &str, max: u32) -> Result<u32, ParseFenError> {
    match s.parse::<u32>() {
        Ok(n) if n <= max && !s.starts_with('+') => Ok(n),
        Ok(_) => err(field, format!("{s} is over {max}")),
        Err(_) => err(field, format!("'{s}' is not a number")),
    }
}

fn parse_board(field: &str) -> Result<[Bitboard; 2], ParseFenError> {
    let mut board = [Bitboard::EMPTY; 2];
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 7 {
        return err(
            "board",
            format!("expected 7 ranks separated by '/', found {}", ranks.len()),
        );
    }
    for (i, (rank, names)) in ranks.iter().zip(READING_ORDER.iter()).enumerate() {
        let names: Vec<&&str> = names.iter().filter(|n| !n.is_empty()).collect();
        if rank.chars().count() != names.len() {
            return err(
                "board",
                format!("rank {} has {} points, found '{rank}'", 7 - i, names.len()),
            );
        }
        for (ch, name) in rank.chars().zip(names) {
            let p: Point = name.parse().expect("reading order names are points");
            match ch {
                'W' => board[0] |= p.bb(),
                'B' => board[1] |= p.bb(),
                '.' => {}
                _ => return err("board", format!("'{ch}' at {name} is not W, B or '.'")),
            }
        }
    }
    Ok(board)
}

fn parse_pending(field: &str) -> Result<Pending, ParseFenError> {
    match field {
        "-" => Ok(Pending::Nothing),
        "free" => Ok(Pending::Free),
        "x1" => Ok(Pending::Removals(1)),
        "x2" => Ok(Pending::Removals(2)),
        "x1+" => Ok(Pending::RemovalThenReply),
        other => err(
            "pending",
            format!("'{other}' is not -, x1, x2, x1+ or free"),
        ),
    }
}

fn parse_hands(field: &str) -> Result<[u8; 2], ParseFenError> {
    let Some((hw, hb)) = field.split_once(',') else {
        return err(
            "hands",
            format!("'{field}' is not two counts such as 12,12"),
        );
    };
    Ok([
        number("hands", hw, 12)? as u8,
        number("hands", hb, 12)? as u8,
    ])
}

fn parse_last_moves(field: &str) -> Result<[Option<(Point, Point)>; 2], ParseFenError> {
    let Some((lw, lb)) = field.split_once(',') else {
        return err(
            "no-return moves",
            format!("'{field}' is not two entries such as -,-"),
        );
    };
    let mut last_move = [None; 2];
    for (i, text) in [lw, lb].into_iter().enumerate() {
        if text == "-" {
            continue;
        }
        let Some((p, q)) = text.split_once('-') else {
            return err(
                "no-return moves",
                format!("'{text}' is not - or a move such as a1-a4"),
            );
        };
        last_move[i] = match (p.parse::<Point>(), q.parse::<Point>()) {
            (Ok(p), Ok(q)) if p != q => Some((p, q)),
            _ => return err("no-return moves", format!("'{text}' is not a move")),
        };
    }
    Ok(last_move)
}

impl std::str::FromStr for Setup {
    type Err = ParseFenError;

    /// Parses the nine fields; no rules are consulted.
    fn from_str(s: &str) -> Result<Setup, ParseFenError> {
        let fields: Vec<&str> = s.split_whitespace().collect();
        if fields.len() != 9 {
            return err(
                "position",
                format!("expected 9 space-separated fields, found {}", fields.len()),
            );
        }
        Ok(Setup {
            board: parse_board(fields[0])?,
            to_act: color("to act", fields[1])?,
            pending: parse_pending(fields[2])?,
            hand: parse_hands(fields[3])?,
            first_jare: match fields[4] {
                "-" => None,
                s => Some(color("first jare", s)?),
            },
            last_move: parse_last_moves(fields[5])?,
            no_removal: number("no-removal turns", fields[6], 99_999)?,
            endgame: number("endgame turns", fields[7], 99_999)?,
            actions: number("actions", fields[8], 1_000_000_000)?,
        })
    }
}

impl Setup {
    /// Checks that the setup is a position these (valid) rules can have in kind.
    fn check(&self, rules: &Rules) -> Result<(), SetupError> {
        let board = &self.board;
        for c in Color::BOTH {
            let Some((p, q)) = self.last_move[c.index()] else {
                continue;
            };
            if !rules.no_return {
                return illegal(
                    "no-return moves",
                    format!("'{p}-{q}' given but these rules have no_return = false"),
                );
            }
            if !board[c.index()].contains(q) || (board[0] | board[1]).contains(p) {
                return illegal(
                    "no-return moves",
                    format!("{c}'s last move {p}-{q} must end on a {c} piece and leave {p} empty"),
                );
            }
        }
        for c in Color::BOTH {
            let total = board[c.index()].count() + self.hand[c.index()] as u32;
            if total > rules.pieces as u32 {
                return illegal(
                    "hands",
                    format!(
                        "{c} has {total} pieces, more than the rules' {}",
                        rules.pieces
                    ),
                );
            }
        }
        let empty = !(board[0] | board[1]);
        if (self.hand[0] as u32 + self.hand[1] as u32) > empty.count() {
            return illegal("hands", "more pieces in hand than empty points");
        }
        let owes = matches!(
            self.pending,
            Pending::Removals(_) | Pending::RemovalThenReply
        );
        if owes && board[self.to_act.opponent().index()].is_empty() {
            return illegal(
                "pending",
                "a removal is owed but the opponent has no piece on the board",
            );
        }
        if self.pending == Pending::Free && (rules.blocked != Blocked::Freed || self.hand != [0, 0])
        {
            return illegal(
                "pending",
                "'free' needs rules that free blocked players and empty hands",
            );
        }
        Ok(())
    }
}

impl Position {
    /// The position string of this position (see the [module docs](crate::fen)).
    pub fn fen(&self) -> String {
        let mut s = String::new();
        for (rank, names) in READING_ORDER.iter().enumerate() {
            if rank > 0 {
                s.push('/');
            }
            for name in names.iter().filter(|n| !n.is_empty()) {
                let p: Point = name.parse().expect("reading order names are points");
                s.push(if self.board[0].contains(p) {
                    'W'
                } else if self.board[1].contains(p) {
                    'B'
                } else {
                    '.'
                });
            }
        }
        let pending = match (self.removals, self.opening_reply, self.freeing) {
            (0, _, true) => "free".to_string(),
            (0, _, false) => "-".to_string(),
            (n, true, _) => format!("x{n}+"),
            (n, false, _) => format!("x{n}"),
        };
        let jare = self.first_jare.map_or('-', Color::letter);
        let lm = |c: Color| match self.last_move[c.index()] {
            Some((p, q)) => format!("{p}-{q}"),
            None => "-".to_string(),
        };
        let _ = write!(
            s,
            " {} {} {},{} {} {},{} {} {} {}",
            self.to_act.letter(),
            pending,
            self.hand[0],
            self.hand[1],
            jare,
            lm(Color::White),
            lm(Color::Black),
            self.no_removal,
            self.endgame,
            self.actions
        );
        s
    }

    /// Reads a position string under `rules`: [`Setup`]'s parse, then
    /// [`Position::from_setup`]'s check.
    ///
    /// A position whose player to act is blocked, under rules that free blocked
    /// players, is read as the freeing state (`free`).
    ///
    /// # Errors
    ///
    /// [`FenError::Parse`] naming the field when the string is malformed;
    /// [`FenError::Illegal`] when it describes a position the rules cannot
    /// reach in kind (see [`Position::from_setup`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use shax_core::{FenError, Position, Rules};
    ///
    /// let start = Position::new(Rules::default());
    /// let fen = start.fen();
    /// assert_eq!(fen, ".../.../.../....../.../.../... w - 12,12 - -,- 0 0 0");
    /// assert_eq!(Position::from_fen(Rules::default(), &fen).unwrap(), start);
    /// let e = Position::from_fen(Rules::default(), "W/.../.../....../.../.../... w - 12,12 - -,- 0 0 0");
    /// assert!(matches!(e, Err(FenError::Parse(_))));
    /// assert_eq!(e.unwrap_err().field(), "board");
    /// let e = Position::from_fen(Rules::default(), ".../.../.../....../.../.../... w x1 12,12 - -,- 0 0 0");
    /// assert!(matches!(e, Err(FenError::Illegal(_))));
    /// ```
    pub fn from_fen(rules: Rules, s: &str) -> Result<Position, FenError> {
        let setup: Setup = s.parse()?;
        Ok(Position::from_setup(rules, &setup)?)
    }

    /// The position of a parsed [`Setup`] under `rules`.
    ///
    /// # Errors
    ///
    /// [`SetupError`] naming the field when the rules are invalid, or the
    /// setup is not a position they can reach in kind: too many pieces, more
    /// pieces in hand than empty points, a removal owed with nothing to
    /// remove, `free` under rules that do not free blocked players, a
    /// no-return move under rules without it or that does not fit the board.
    pub fn from_setup(rules: Rules, setup: &Setup) -> Result<Position, SetupError> {
        if let Err(e) = rules.validate() {
            return illegal("rules", e.to_string());
        }
        setup.check(&rules)?;
        let (removals, opening_reply, freeing) = match setup.pending {
            Pending::Nothing => (0, false, false),
            Pending::Removals(n) => (n, false, false),
            Pending::RemovalThenReply => (1, true, false),
            Pending::Free => (0, false, true),
        };
        let mut pos = Position {
            rules,
            board: setup.board,
            hand: setup.hand,
            to_act: setup.to_act,
            removals,
            opening_reply,
            freeing,
            first_jare: setup.first_jare,
            last_move: setup.last_move,
            no_removal: setup.no_removal,
            endgame: setup.endgame,
            actions: setup.actions,
            hash: 0,
        };
        pos.hash = pos.hash_from_scratch();
        pos.normalize();
        Ok(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Preset;

    #[test]
    fn field_errors_name_the_field() {
        let r = Rules::preset(Preset::Morabaraba);
        let good = ".../.../.../....../.../.../... w - 12,12 - -,- 0 0 0";
        assert!(Position::from_fen(r, good).is_ok());
        let cases = [
            (
                ".../.../.../....../.../.../... w - 12,12 - -,- 0 0",
                "position",
            ),
            (".../.../.../....../.../... w - 12,12 - -,- 0 0 0", "board"),
            (
                ".../.../.../...../.../.../... w - 12,12 - -,- 0 0 0",
                "board",
            ),
            (
                ".../.../.../....../.../.../..X w - 12,12 - -,- 0 0 0",
                "board",
            ),
            (
                ".../.../.../....../.../.../... g - 12,12 - -,- 0 0 0",
                "to act",
            ),
            (
                ".../.../.../....../.../.../... w x3 12,12 - -,- 0 0 0",
                "pending",
            ),
            (
                ".../.../.../....../.../.../... w x1 12,12 - -,- 0 0 0",
                "pending",
            ),
            (
                ".../.../.../....../.../.../... w - 13,12 - -,- 0 0 0",
                "hands",
            ),
            (".../.../.../....../.../.../... w - 12 - -,- 0 0 0", "hands"),
            (
                "W../.../.../....../.../.../... w - 12,12 - -,- 0 0 0",
                "hands",
            ),
            (
                ".../.../.../....../.../.../... w - 12,12 x -,- 0 0 0",
                "first jare",
            ),
            (
                ".../.../.../....../.../.../... w - 12,12 - a1-a4,- 0 0 0",
                "no-return",
            ),
            (
                ".../.../.../....../.../.../... w - 12,12 - -,- -1 0 0",
                "no-removal",
            ),
            (
                ".../.../.../....../.../.../... w - 12,12 - -,- 0 x 0",
                "endgame",
            ),
            (
                ".../.../.../....../.../.../... w - 12,12 - -,- 0 0 1e3",
                "actions",
            ),
        ];
        for (fen, field) in cases {
            let e = Position::from_fen(r, fen).unwrap_err();
            assert!(e.to_string().contains(field), "{fen}: {e}");
        }
    }

    #[test]
    fn malformed_strings_and_illegal_positions_are_told_apart() {
        let r = Rules::preset(Preset::Morabaraba);
        // (string, whether it parses): malformed ones do not; illegal ones
        // parse, and fail the check under these rules.
        let cases = [
            (
                ".../.../.../....../.../.../... w - 13,12 - -,- 0 0 0",
                false,
            ),
            (
                ".../.../.../....../.../.../..X w - 12,12 - -,- 0 0 0",
                false,
            ),
            (
                ".../.../.../....../.../.../... w x3 12,12 - -,- 0 0 0",
                false,
            ),
            // A removal owed with nothing to remove.
            (
                ".../.../.../....../.../.../... w x1 12,12 - -,- 0 0 0",
                true,
            ),
            // 13 pieces of 12.
            ("W../.../.../....../.../.../... w - 12,12 - -,- 0 0 0", true),
            // A last move that does not end on White's piece.
            (
                ".../.../.../....../.../.../... w - 12,12 - a1-a4,- 0 0 0",
                true,
            ),
        ];
        for (fen, parses) in cases {
            let e = Position::from_fen(r, fen).unwrap_err();
            assert_eq!(matches!(e, FenError::Illegal(_)), parses, "{fen}: {e}");
            assert_eq!(fen.parse::<Setup>().is_ok(), parses, "{fen}");
        }
        // The same string, legal under other rules: nine pieces.
        let nine = Rules::preset(Preset::NineMensMorris);
        let s: Setup = ".../.../.../....../.../.../... w - 9,9 - -,- 0 0 0"
            .parse()
            .unwrap();
        assert!(Position::from_setup(nine, &s).is_ok());
        let e = Position::from_fen(nine, ".../.../.../....../.../.../... w - 12,12 - -,- 0 0 0");
        assert_eq!(e.unwrap_err().field(), "hands");
    }
}

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

/// Why a position string was rejected: which field, and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad position string: {field}: {why}")]
pub struct FenError {
    /// The field's name.
    pub field: &'static str,
    /// What was wrong with it.
    pub why: String,
}

fn err<T>(field: &'static str, why: impl Into<String>) -> Result<T, FenError> {
    Err(FenError {
        field,
        why: why.into(),
    })
}

fn color(field: &'static str, s: &str) -> Result<Color, FenError> {
    match s {
        "w" => Ok(Color::White),
        "b" => Ok(Color::Black),
        _ => err(field, format!("'{s}' is not w or b")),
    }
}

fn number(field: &'static str, s: &str, max: u32) -> Result<u32, FenError> {
    match s.parse::<u32>() {
        Ok(n) if n <= max && !s.starts_with('+') => Ok(n),
        Ok(_) => err(field, format!("{s} is over {max}")),
        Err(_) => err(field, format!("'{s}' is not a number")),
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

    /// Reads a position string under `rules`.
    ///
    /// A position whose player to act is blocked, under rules that free blocked
    /// players, is read as the freeing state (`free`).
    ///
    /// # Errors
    ///
    /// [`FenError`] naming the field when the string is malformed or describes
    /// a position the rules cannot reach in kind (too many pieces, a removal
    /// owed with nothing to remove, a no-return move under rules without it).
    ///
    /// # Examples
    ///
    /// ```
    /// use shax_core::{Position, Rules};
    ///
    /// let start = Position::new(Rules::default());
    /// let fen = start.fen();
    /// assert_eq!(fen, ".../.../.../....../.../.../... w - 12,12 - -,- 0 0 0");
    /// assert_eq!(Position::from_fen(Rules::default(), &fen).unwrap(), start);
    /// let e = Position::from_fen(Rules::default(), "W/.../.../....../.../.../... w - 12,12 - -,- 0 0 0");
    /// assert!(e.unwrap_err().to_string().contains("board"));
    /// ```
    pub fn from_fen(rules: Rules, s: &str) -> Result<Position, FenError> {
        if let Err(e) = rules.validate() {
            return err("rules", e.to_string());
        }
        let fields: Vec<&str> = s.split_whitespace().collect();
        if fields.len() != 9 {
            return err(
                "position",
                format!("expected 9 space-separated fields, found {}", fields.len()),
            );
        }
        let mut board = [Bitboard::EMPTY; 2];
        let ranks: Vec<&str> = fields[0].split('/').collect();
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
        let to_act = color("to act", fields[1])?;
        let (removals, opening_reply, freeing) = match fields[2] {
            "-" => (0, false, false),
            "free" => (0, false, true),
            "x1" => (1, false, false),
            "x2" => (2, false, false),
            "x1+" => (1, true, false),
            other => {
                return err(
                    "pending",
                    format!("'{other}' is not -, x1, x2, x1+ or free"),
                );
            }
        };
        let Some((hw, hb)) = fields[3].split_once(',') else {
            return err(
                "hands",
                format!("'{}' is not two counts such as 12,12", fields[3]),
            );
        };
        let hand = [
            number("hands", hw, 12)? as u8,
            number("hands", hb, 12)? as u8,
        ];
        let first_jare = match fields[4] {
            "-" => None,
            s => Some(color("first jare", s)?),
        };
        let Some((lw, lb)) = fields[5].split_once(',') else {
            return err(
                "no-return moves",
                format!("'{}' is not two entries such as -,-", fields[5]),
            );
        };
        let mut last_move = [None; 2];
        for (c, text) in [(Color::White, lw), (Color::Black, lb)] {
            if text == "-" {
                continue;
            }
            let Some((p, q)) = text.split_once('-') else {
                return err(
                    "no-return moves",
                    format!("'{text}' is not - or a move such as a1-a4"),
                );
            };
            let (p, q) = match (p.parse::<Point>(), q.parse::<Point>()) {
                (Ok(p), Ok(q)) if p != q => (p, q),
                _ => return err("no-return moves", format!("'{text}' is not a move")),
            };
            if !rules.no_return {
                return err(
                    "no-return moves",
                    format!("'{text}' given but these rules have no_return = false"),
                );
            }
            if !board[c.index()].contains(q) || (board[0] | board[1]).contains(p) {
                return err(
                    "no-return moves",
                    format!("{c}'s last move {text} must end on a {c} piece and leave {p} empty"),
                );
            }
            last_move[c.index()] = Some((p, q));
        }
        let no_removal = number("no-removal turns", fields[6], 99_999)?;
        let endgame = number("endgame turns", fields[7], 99_999)?;
        let actions = number("actions", fields[8], 1_000_000_000)?;

        for c in Color::BOTH {
            let total = board[c.index()].count() + hand[c.index()] as u32;
            if total > rules.pieces as u32 {
                return err(
                    "hands",
                    format!(
                        "{c} has {total} pieces, more than the rules' {}",
                        rules.pieces
                    ),
                );
            }
        }
        let empty = !(board[0] | board[1]);
        if (hand[0] as u32 + hand[1] as u32) > empty.count() {
            return err("hands", "more pieces in hand than empty points");
        }
        if removals > 0 && board[to_act.opponent().index()].is_empty() {
            return err(
                "pending",
                "a removal is owed but the opponent has no piece on the board",
            );
        }
        if freeing && (rules.blocked != Blocked::Freed || hand != [0, 0]) {
            return err(
                "pending",
                "'free' needs rules that free blocked players and empty hands",
            );
        }
        let mut pos = Position {
            rules,
            board,
            hand,
            to_act,
            removals,
            opening_reply,
            freeing,
            first_jare,
            last_move,
            no_removal,
            endgame,
            actions,
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
}

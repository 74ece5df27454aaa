//! `eval=basic`: the evaluation of commit 67c7f3f, kept selectable so that
//! the mill evaluation's gain alone is one `shax arena` run. Material,
//! mobility as empty points next to one's pieces, complete, open and potential
//! lines, pieces in hand, the threat of the player to act, and Shax's
//! first-jare race.

use shax_core::{Bitboard, Color, FullBoard, PlacementLines, Position, Task};

use super::{PIECE, WIN_BOUND};

/// The position's value for the player to act, in centi-pieces (one piece is
/// [`PIECE`]); it never reaches [`WIN_BOUND`]. It does not look at the outcome:
/// callers check for a finished game first.
pub fn evaluate_basic(pos: &Position) -> i32 {
    let me = pos.to_act();
    let rules = pos.rules();
    let shax_race = rules.full_board == FullBoard::JareRemovals
        && rules.placement_lines == PlacementLines::Record;
    let white = side(pos, Color::White, shax_race) - side(pos, Color::Black, shax_race);
    let mut s = if me == Color::White { white } else { -white };
    match pos.task() {
        Task::Remove => {
            s += PIECE * pos.removals_owed() as i32;
            if pos.opening_reply() {
                s -= PIECE;
            }
        }
        Task::Place | Task::Move => {
            // The player to act can complete a line now.
            if completable(pos, me) > 0 {
                let captures = if pos.task() == Task::Place {
                    rules.placement_lines == PlacementLines::Capture
                } else {
                    true
                };
                if captures {
                    s += 60;
                } else if shax_race && pos.first_jare().is_none() {
                    s += 45;
                }
            }
        }
        Task::Free => {}
    }
    s.clamp(-WIN_BOUND + 1, WIN_BOUND - 1)
}

/// Lines `c` could complete with its next place or move (ignoring whose turn it is).
pub(super) fn completable(pos: &Position, c: Color) -> u32 {
    let geo = pos.rules().board.geometry();
    let own = pos.board(c);
    let empty = !pos.occupied();
    let placing = pos.hand(c) > 0;
    let flies = !placing && pos.flies(c);
    let mut n = 0;
    for &l in geo.lines {
        if (l & own).count() == 2 {
            let hole = l & empty;
            if hole.is_empty() {
                continue;
            }
            if placing || flies {
                n += 1;
            } else {
                let p = hole.iter().next().expect("one point");
                if !(geo.adjacent[p.index()] & own & Bitboard(!l.0)).is_empty() {
                    n += 1;
                }
            }
        }
    }
    n
}

/// `c`'s terms, independent of who is to act.
fn side(pos: &Position, c: Color, shax_race: bool) -> i32 {
    let geo = pos.rules().board.geometry();
    let own = pos.board(c);
    let opp = pos.board(c.opponent());
    let empty = !pos.occupied();
    let placing = pos.hand(c) > 0;
    let flies = !placing && pos.flies(c);
    let mut s = PIECE * pos.pieces(c) as i32;

    let mut mobility = 0;
    for p in own {
        mobility += (geo.adjacent[p.index()] & empty).count() as i32;
    }
    if placing {
        s += mobility;
    } else if !flies {
        s += 4 * mobility.min(20);
        if mobility == 0 {
            s -= 30;
        }
    }

    for &l in geo.lines {
        if !(l & opp).is_empty() {
            continue;
        }
        match (l & own).count() {
            3 => {
                s += 15;
                if !placing {
                    // A mill that can open and close again.
                    let exits = l
                        .iter()
                        .any(|p| !(geo.adjacent[p.index()] & empty).is_empty());
                    if exits {
                        s += 20;
                    }
                }
            }
            2 => {
                let hole = l & empty;
                let p = hole.iter().next().expect("one point");
                if placing || flies {
                    s += 14;
                } else if !(geo.adjacent[p.index()] & own & Bitboard(!l.0)).is_empty() {
                    s += 35;
                } else {
                    s += 8;
                }
            }
            1 => s += 2,
            _ => {}
        }
    }

    if shax_race {
        match pos.first_jare() {
            Some(j) if j == c => s += 40,
            Some(_) => {}
            None => {
                if placing && completable(pos, c) >= 2 {
                    s += 25;
                }
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use shax_core::Rules;

    #[test]
    fn start_is_balanced_and_material_counts() {
        let pos = Position::new(Rules::default());
        assert_eq!(evaluate_basic(&pos), 0);
        let fen = "WWW/.../.../B.B.../.../.../... b - 9,10 w -,- 0 0 5";
        let p = Position::from_fen(Rules::default(), fen).unwrap();
        assert!(
            evaluate_basic(&p) < 0,
            "black to act, white has a jare and more pieces"
        );
    }
}

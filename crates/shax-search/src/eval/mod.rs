//! The static evaluations shared by `greedy` and `alphabeta`.
//!
//! The default, the mill evaluation ([`evaluate`]), knows the phases of the
//! mill games: material; mobility as each side's moves, its stuck pieces and
//! how close it is to being blocked (a loss in every preset but Shax), and
//! while placing how the placement prepares the movement phase; complete,
//! open and ready lines, double-mill swings and placement forks; junctions;
//! the threat of the player to act; Shax's first-jare race; and a fade
//! towards a draw when a draw counter is about to end the game. Its weights,
//! one set per preset, are in [`weights`]. `eval=basic` selects
//! [`evaluate_basic`], the evaluation of commit 67c7f3f; `eval=<file>.toml`
//! the mill evaluation with a weights file's weights ([`WeightsFile`]). The
//! evaluation is linear in its weights ([`term_counts`]), which is what
//! `shax tune-eval` fits.

mod basic;
pub mod weights;

use std::sync::Arc;

use shax_core::board::Geometry;
use shax_core::{Bitboard, Color, FullBoard, PlacementLines, Position, Task};

pub use basic::evaluate_basic;
pub use weights::{LINEAR_TERMS, Weights, WeightsFile, weights_file_text, weights_for};

/// A win at the root; a win found `ply` actions deep scores `WIN - ply`.
pub const WIN: i32 = 30_000;
/// Scores at or beyond this are wins or losses, not evaluations.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// One piece.
pub const PIECE: i32 = 100;

/// Which static evaluation a player uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum EvalKind {
    /// The mill evaluation ([`evaluate`]), the default.
    #[default]
    Mill,
    /// The evaluation of commit 67c7f3f ([`evaluate_basic`]).
    Basic,
    /// The mill evaluation with a weights file's weights ([`WeightsFile`]).
    File(Arc<WeightsFile>),
}

impl EvalKind {
    /// What `eval=` accepts.
    pub const NAMES: &'static str = "mill, basic, <weights file>.toml";

    /// `mill`, `basic`, or the path of a weights file (ending in `.toml`).
    ///
    /// # Errors
    ///
    /// Another name, or a weights file that cannot be used (the message says why).
    pub fn from_name(s: &str) -> Result<EvalKind, String> {
        match s {
            "mill" => Ok(EvalKind::Mill),
            "basic" => Ok(EvalKind::Basic),
            _ if s.ends_with(".toml") => Ok(EvalKind::File(Arc::new(WeightsFile::read(s)?))),
            _ => Err(format!("expected one of {}", EvalKind::NAMES)),
        }
    }

    /// The name, as in specs.
    pub fn name(&self) -> &str {
        match self {
            EvalKind::Mill => "mill",
            EvalKind::Basic => "basic",
            EvalKind::File(f) => &f.path,
        }
    }

    /// The position's value for the player to act with this evaluation.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        match self {
            EvalKind::Mill => evaluate(pos),
            EvalKind::Basic => evaluate_basic(pos),
            EvalKind::File(f) => evaluate_with(pos, &f.apply(weights_for(pos.rules()))),
        }
    }
}

/// The position's value for the player to act, in centi-pieces (one piece is
/// [`PIECE`]), by the mill evaluation with the weights of the rules' preset;
/// it never reaches [`WIN_BOUND`]. It does not look at the outcome: callers
/// check for a finished game first.
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, weights_for(pos.rules()))
}

/// [`evaluate`] with the given weights.
pub fn evaluate_with(pos: &Position, w: &Weights) -> i32 {
    let me = pos.to_act();
    let (white, white_holes) = side(pos, Color::White, w);
    let (black, black_holes) = side(pos, Color::Black, w);
    let (mut s, my_holes) = if me == Color::White {
        (white - black, white_holes)
    } else {
        (black - white, black_holes)
    };
    s += to_act_terms(pos, w, my_holes);
    s = fade(pos, w, s);
    s.clamp(-WIN_BOUND + 1, WIN_BOUND - 1)
}

/// The counts the mill evaluation weighs, in the order of [`LINEAR_TERMS`]:
/// before its fade towards a draw, [`evaluate_with`] is the sum of each
/// linear weight times its count (the player to act's count minus the
/// opponent's). What `shax tune-eval` regresses on. `mob_cap` is the
/// preset's.
pub fn term_counts(pos: &Position) -> [i32; LINEAR_TERMS.len()] {
    let settings = Weights {
        counter_fade: 0,
        ..*weights_for(pos.rules())
    };
    std::array::from_fn(|i| {
        let mut unit = [0; LINEAR_TERMS.len()];
        unit[i] = 1;
        evaluate_with(pos, &settings.with_linear(unit))
    })
}

fn shax_race(pos: &Position) -> bool {
    let r = pos.rules();
    r.full_board == FullBoard::JareRemovals && r.placement_lines == PlacementLines::Record
}

/// What only the player to act has: removals owed, a line it can close now
/// (`holes`: the empty points where it would close one).
fn to_act_terms(pos: &Position, w: &Weights, holes: Bitboard) -> i32 {
    match pos.task() {
        Task::Remove => {
            let mut s = w.piece * pos.removals_owed() as i32;
            if pos.opening_reply() {
                s -= w.piece;
            }
            s
        }
        Task::Place | Task::Move => {
            if holes.is_empty() {
                return 0;
            }
            let captures =
                pos.task() == Task::Move || pos.rules().placement_lines == PlacementLines::Capture;
            if captures {
                w.threat_now
            } else if shax_race(pos) && pos.first_jare().is_none() {
                w.jare_now
            } else {
                0
            }
        }
        Task::Free => 0,
    }
}

/// Shrinks the score towards a draw when a draw counter is nearly run out.
fn fade(pos: &Position, w: &Weights, s: i32) -> i32 {
    if w.counter_fade <= 0 || pos.is_placing() {
        return s;
    }
    let r = pos.rules();
    let mut left = i32::MAX;
    if r.no_removal_limit > 0 {
        left = left.min(r.no_removal_limit as i32 - pos.no_removal_turns() as i32);
    }
    let three = Color::BOTH.iter().any(|&c| pos.pieces(c) == 3);
    if r.endgame_no_removal_turns > 0 && three {
        left = left.min(r.endgame_no_removal_turns as i32 - pos.endgame_turns() as i32);
    }
    if left < w.counter_fade {
        s * left.max(0) / w.counter_fade
    } else {
        s
    }
}

/// `c`'s terms, independent of who is to act, and the empty points where `c`
/// would close a line with its next place or move.
fn side(pos: &Position, c: Color, w: &Weights) -> (i32, Bitboard) {
    let geo = pos.rules().board.geometry();
    let own = pos.board(c);
    let empty = !pos.occupied();
    let placing = pos.hand(c) > 0;
    let flies = !placing && pos.flies(c);
    let mut s = w.piece * pos.pieces(c) as i32;
    s += mobility(geo, own, empty, placing, flies, w);
    if placing {
        s += w.junction * (own & geo.junctions).count() as i32;
    }
    let (line_terms, holes) = lines(pos, c, w);
    s += line_terms;
    if !placing && !flies {
        s += w.swing * swings(geo, own, empty).min(2);
    }
    if placing {
        let forks = holes.count() >= 2;
        if shax_race(pos) {
            if pos.first_jare().is_none() && forks {
                s += w.jare_fork;
            }
        } else if forks && pos.rules().placement_lines == PlacementLines::Capture {
            s += w.fork;
        }
    }
    if shax_race(pos) && pos.first_jare() == Some(c) {
        s += w.jare;
    }
    (s, holes)
}

/// Moves, stuck pieces and the nearness of a blockade.
fn mobility(
    geo: &Geometry,
    own: Bitboard,
    empty: Bitboard,
    placing: bool,
    flies: bool,
    w: &Weights,
) -> i32 {
    if flies {
        return 0;
    }
    let (mut moves, mut stuck) = (0, 0);
    for p in own {
        let m = (geo.adjacent[p.index()] & empty).count() as i32;
        moves += m;
        stuck += i32::from(m == 0);
    }
    if placing {
        return w.place_mob * moves + w.place_stuck * stuck;
    }
    let mut s = w.mob * moves.min(w.mob_cap) + w.stuck * stuck;
    if let Some(&b) = w.block.get(moves as usize) {
        s += b;
    }
    s
}

/// Complete, open, ready and potential lines of `c`, and the holes of its
/// closable lines: two pieces and an empty point that `c` can fill next
/// (placing or flying, or sliding a piece from outside the line).
fn lines(pos: &Position, c: Color, w: &Weights) -> (i32, Bitboard) {
    let geo = pos.rules().board.geometry();
    let own = pos.board(c);
    let opp = pos.board(c.opponent());
    let empty = !pos.occupied();
    let placing = pos.hand(c) > 0;
    let anywhere = placing || pos.flies(c);
    let opp_anywhere = pos.hand(c.opponent()) > 0 || pos.flies(c.opponent());
    let mut s = 0;
    let mut holes = Bitboard::EMPTY;
    for &l in geo.lines {
        if !(l & opp).is_empty() {
            continue;
        }
        match (l & own).count() {
            3 => {
                s += w.mill;
                let exits = l
                    .iter()
                    .any(|p| !(geo.adjacent[p.index()] & empty).is_empty());
                if !placing && exits {
                    s += w.mill_open;
                }
            }
            2 => {
                let hole = l & empty;
                let p = hole.iter().next().expect("one point");
                let near = geo.adjacent[p.index()];
                if anywhere {
                    s += w.two_place;
                    holes |= hole;
                } else if !(near & own & Bitboard(!l.0)).is_empty() {
                    s += w.two_ready;
                    holes |= hole;
                    if !opp_anywhere && (near & opp).is_empty() {
                        s += w.two_unguarded;
                    }
                } else {
                    s += w.two;
                }
            }
            1 => s += w.one,
            _ => {}
        }
    }
    (s, holes)
}

/// Moves of a piece out of a complete line into a hole that closes another:
/// each closes a line, and moving back closes the first again.
fn swings(geo: &Geometry, own: Bitboard, empty: Bitboard) -> i32 {
    let mut n = 0;
    for &mill in geo.lines {
        if !own.contains_all(mill) {
            continue;
        }
        for p in mill {
            for h in geo.adjacent[p.index()] & empty {
                for &l in &geo.lines_through[h.index()] {
                    if !l.is_empty() && !l.contains(p) && (l & own).count() == 2 {
                        n += 1;
                    }
                }
            }
        }
    }
    n
}

#[cfg(test)]
mod tests;

//! The 16 symmetries of the mill board: the square's 8 (rotations and
//! reflections) times swapping the outer and inner squares. They map lines to
//! lines and adjacency to adjacency on the plain and the diagonal board alike.

use crate::action::{Action, POLICY_SIZE};
use crate::board::{Bitboard, POINTS, Point};
use crate::position::Position;

/// One of the 16 board symmetries; `Symmetry::IDENTITY` is index 0.
///
/// Index `s` = `swap * 8 + mirror * 4 + rotation`: first reflect left-right
/// (when `mirror`), then rotate clockwise by `rotation` quarter turns, then
/// swap the outer and inner squares (when `swap`).
///
/// # Examples
///
/// ```
/// use shax_core::{Point, Symmetry};
///
/// let a7: Point = "a7".parse().unwrap();
/// let quarter = Symmetry::ALL[1];
/// assert_eq!(quarter.point(a7).name(), "g7");
/// assert_eq!(quarter.inverse().point(quarter.point(a7)), a7);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry(u8);

const fn map_point(s: usize, p: usize) -> usize {
    let (ring, k) = (p / 8, p % 8);
    let rotation = s % 4;
    let mirror = (s / 4) % 2 == 1;
    let swap = s / 8 == 1;
    let k = if mirror { (10 - k) % 8 } else { k };
    let k = (k + 2 * rotation) % 8;
    let ring = if swap { 2 - ring } else { ring };
    ring * 8 + k
}

const TABLE: [[u8; POINTS]; 16] = {
    let mut t = [[0u8; POINTS]; 16];
    let mut s = 0;
    while s < 16 {
        let mut p = 0;
        while p < POINTS {
            t[s][p] = map_point(s, p) as u8;
            p += 1;
        }
        s += 1;
    }
    t
};

const INVERSE: [u8; 16] = {
    let mut inv = [0u8; 16];
    let mut s = 0;
    while s < 16 {
        let mut u = 0;
        while u < 16 {
            let mut p = 0;
            let mut ok = true;
            while p < POINTS {
                if TABLE[u][TABLE[s][p] as usize] as usize != p {
                    ok = false;
                }
                p += 1;
            }
            if ok {
                inv[s] = u as u8;
            }
            u += 1;
        }
        s += 1;
    }
    inv
};

impl Symmetry {
    /// The identity.
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// All 16 symmetries, the identity first.
    pub const ALL: [Symmetry; 16] = {
        let mut all = [Symmetry(0); 16];
        let mut i = 0;
        while i < 16 {
            all[i] = Symmetry(i as u8);
            i += 1;
        }
        all
    };

    /// The symmetry's index, `0..16`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The inverse symmetry.
    pub const fn inverse(self) -> Symmetry {
        Symmetry(INVERSE[self.0 as usize])
    }

    /// The image of a point.
    #[inline]
    pub const fn point(self, p: Point) -> Point {
        Point::ALL[TABLE[self.0 as usize][p.index()] as usize]
    }

    /// The image of a set of points.
    #[inline]
    pub fn bitboard(self, b: Bitboard) -> Bitboard {
        b.iter()
            .fold(Bitboard::EMPTY, |acc, p| acc | self.point(p).bb())
    }

    /// The image of an action.
    #[inline]
    pub fn action(self, a: Action) -> Action {
        match a {
            Action::Place(p) => Action::Place(self.point(p)),
            Action::Move(f, t) => Action::Move(self.point(f), self.point(t)),
            Action::Remove(p) => Action::Remove(self.point(p)),
        }
    }

    /// The permutation of policy indices: `out[i]` is the index of the image of
    /// the action with index `i` (for permuting policy targets in training).
    pub fn policy_permutation(self) -> Vec<u16> {
        (0..POLICY_SIZE)
            .map(|i| {
                let a = Action::from_policy_index(i).expect("index below POLICY_SIZE");
                self.action(a).policy_index() as u16
            })
            .collect()
    }

    /// The image of a position: the board, the no-return moves; all else kept.
    pub fn position(self, pos: &Position) -> Position {
        let mut out = *pos;
        out.board = [self.bitboard(pos.board[0]), self.bitboard(pos.board[1])];
        out.last_move = pos
            .last_move
            .map(|m| m.map(|(p, q)| (self.point(p), self.point(q))));
        out.hash = out.hash_from_scratch();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::BoardKind;

    #[test]
    fn sixteen_distinct_symmetries_with_inverses() {
        let mut seen = std::collections::HashSet::new();
        for s in Symmetry::ALL {
            assert!(seen.insert(TABLE[s.index()]));
            for p in Point::ALL {
                assert_eq!(s.inverse().point(s.point(p)), p);
            }
        }
        assert_eq!(
            Symmetry::IDENTITY.bitboard(Bitboard(0xabcdef)),
            Bitboard(0xabcdef)
        );
    }

    #[test]
    fn symmetries_map_lines_to_lines_and_adjacency_to_adjacency() {
        for kind in [BoardKind::Plain, BoardKind::Diagonal] {
            let g = kind.geometry();
            for s in Symmetry::ALL {
                for &l in g.lines {
                    assert!(g.lines.contains(&s.bitboard(l)), "{kind:?} {s:?} {l:?}");
                }
                for p in Point::ALL {
                    assert_eq!(
                        s.bitboard(g.adjacent[p.index()]),
                        g.adjacent[s.point(p).index()]
                    );
                }
            }
        }
    }

    #[test]
    fn policy_permutation_is_a_permutation() {
        for s in Symmetry::ALL {
            let mut perm = s.policy_permutation();
            perm.sort();
            assert!(perm.iter().enumerate().all(|(i, &j)| i == j as usize));
        }
    }
}

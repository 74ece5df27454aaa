//! Points, bitboards, colours and the two board geometries.
//!
//! # Point indices
//!
//! The 24 points are numbered ring by ring, clockwise from each ring's top-left
//! corner: index = `ring * 8 + k`, ring 0 the outer square, 2 the inner one.
//! This order is stable: the policy index map and the network encoder use it.
//!
//! | k | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 |
//! |---|---|---|---|---|---|---|---|---|
//! | ring 0 (0..8)   | a7 | d7 | g7 | g4 | g1 | d1 | a1 | a4 |
//! | ring 1 (8..16)  | b6 | d6 | f6 | f4 | f2 | d2 | b2 | b4 |
//! | ring 2 (16..24) | c5 | d5 | e5 | e4 | e3 | d3 | c3 | c4 |

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};
use std::str::FromStr;

/// Number of points on the board.
pub const POINTS: usize = 24;

const NAMES: [&str; POINTS] = [
    "a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4", //
    "b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4", //
    "c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4",
];

/// One of the 24 points, `0..24` in the order documented in this module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Point(u8);

impl Point {
    /// Every point, in index order.
    pub const ALL: [Point; POINTS] = {
        let mut all = [Point(0); POINTS];
        let mut i = 0;
        while i < POINTS {
            all[i] = Point(i as u8);
            i += 1;
        }
        all
    };

    /// The point with this index, or `None` when `index >= 24`.
    pub const fn new(index: usize) -> Option<Point> {
        if index < POINTS {
            Some(Point(index as u8))
        } else {
            None
        }
    }

    /// The point's index, `0..24`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Ring: 0 outer, 1 middle, 2 inner.
    #[inline]
    pub const fn ring(self) -> usize {
        self.0 as usize / 8
    }

    /// Position around the ring, clockwise from the top-left corner, `0..8`.
    #[inline]
    pub const fn k(self) -> usize {
        self.0 as usize % 8
    }

    /// The point's name, such as `"d7"`.
    pub const fn name(self) -> &'static str {
        NAMES[self.0 as usize]
    }

    /// The single-point bitboard.
    #[inline]
    pub const fn bb(self) -> Bitboard {
        Bitboard(1 << self.0)
    }

    pub(crate) const fn from_ring_k(ring: usize, k: usize) -> Point {
        Point((ring * 8 + k % 8) as u8)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A point name that is not one of the 24 points.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a point (points are a1..g7 on the mill board, d4 excluded)")]
pub struct PointError(pub String);

impl FromStr for Point {
    type Err = PointError;

    fn from_str(s: &str) -> Result<Point, PointError> {
        NAMES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(s))
            .map(|i| Point(i as u8))
            .ok_or_else(|| PointError(s.to_string()))
    }
}

/// A set of points, one bit per point index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bitboard(pub u32);

impl Bitboard {
    /// No points.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 24 points.
    pub const FULL: Bitboard = Bitboard((1 << POINTS) - 1);

    /// Number of points in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `p` is in the set.
    #[inline]
    pub const fn contains(self, p: Point) -> bool {
        self.0 & (1 << p.0) != 0
    }

    /// Whether every point of `other` is in the set.
    #[inline]
    pub const fn contains_all(self, other: Bitboard) -> bool {
        self.0 & other.0 == other.0
    }

    /// The points of the set, in index order.
    #[inline]
    pub fn iter(self) -> BitboardIter {
        BitboardIter(self.0)
    }
}

/// Iterator over the points of a [`Bitboard`].
#[derive(Clone, Debug)]
pub struct BitboardIter(u32);

impl Iterator for BitboardIter {
    type Item = Point;

    #[inline]
    fn next(&mut self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            let i = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            Some(Point(i as u8))
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for BitboardIter {}

impl IntoIterator for Bitboard {
    type Item = Point;
    type IntoIter = BitboardIter;
    fn into_iter(self) -> BitboardIter {
        self.iter()
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & rhs.0)
    }
}
impl BitOr for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 | rhs.0)
    }
}
impl BitAndAssign for Bitboard {
    #[inline]
    fn bitand_assign(&mut self, rhs: Bitboard) {
        self.0 &= rhs.0;
    }
}
impl BitOrAssign for Bitboard {
    #[inline]
    fn bitor_assign(&mut self, rhs: Bitboard) {
        self.0 |= rhs.0;
    }
}
impl Not for Bitboard {
    type Output = Bitboard;
    /// Complement within the 24 points.
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::FULL.0)
    }
}

/// A side. White acts first in every preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];

    /// The other side.
    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `0` for White, `1` for Black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// `'w'` or `'b'`, as in position strings.
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which lines and adjacencies the board has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardKind {
    /// 16 lines: the sides of the three squares and the four cross lines.
    Plain,
    /// The plain board plus the four corner diagonals (Morabaraba): 20 lines.
    Diagonal,
}

/// Precomputed line and adjacency tables of one board kind.
#[derive(Debug)]
pub struct Geometry {
    /// Every line, as a three-point mask.
    pub lines: &'static [Bitboard],
    /// Neighbours of each point.
    pub adjacent: [Bitboard; POINTS],
    /// The lines through each point (two on the plain board, up to three on the
    /// diagonal one); unused slots are empty masks.
    pub lines_through: [[Bitboard; 3]; POINTS],
    /// The junctions: points with four or more neighbours.
    pub junctions: Bitboard,
}

const fn line(
    ring_a: usize,
    ka: usize,
    ring_b: usize,
    kb: usize,
    ring_c: usize,
    kc: usize,
) -> Bitboard {
    Bitboard(
        Point::from_ring_k(ring_a, ka).bb().0
            | Point::from_ring_k(ring_b, kb).bb().0
            | Point::from_ring_k(ring_c, kc).bb().0,
    )
}

const fn make_lines<const N: usize>(diagonal: bool) -> [Bitboard; N] {
    let mut out = [Bitboard(0); N];
    let mut n = 0;
    let mut r = 0;
    while r < 3 {
        let mut side = 0;
        while side < 4 {
            let k = side * 2;
            out[n] = line(r, k, r, k + 1, r, k + 2);
            n += 1;
            side += 1;
        }
        r += 1;
    }
    let mut k = 1;
    while k < 8 {
        out[n] = line(0, k, 1, k, 2, k);
        n += 1;
        k += 2;
    }
    if diagonal {
        let mut k = 0;
        while k < 8 {
            out[n] = line(0, k, 1, k, 2, k);
            n += 1;
            k += 2;
        }
    }
    out
}

const PLAIN_LINES: [Bitboard; 16] = make_lines::<16>(false);
const DIAGONAL_LINES: [Bitboard; 20] = make_lines::<20>(true);

const fn make_geometry(lines: &'static [Bitboard], diagonal: bool) -> Geometry {
    let mut adjacent = [Bitboard(0); POINTS];
    let mut lines_through = [[Bitboard(0); 3]; POINTS];
    let mut junctions = 0;
    let mut i = 0;
    while i < POINTS {
        let p = Point(i as u8);
        let (r, k) = (p.ring(), p.k());
        let mut adj = Point::from_ring_k(r, k + 1).bb().0 | Point::from_ring_k(r, k + 7).bb().0;
        if k % 2 == 1 || diagonal {
            if r > 0 {
                adj |= Point::from_ring_k(r - 1, k).bb().0;
            }
            if r < 2 {
                adj |= Point::from_ring_k(r + 1, k).bb().0;
            }
        }
        adjacent[i] = Bitboard(adj);
        if adj.count_ones() >= 4 {
            junctions |= p.bb().0;
        }
        let mut slot = 0;
        let mut l = 0;
        while l < lines.len() {
            if lines[l].0 & p.bb().0 != 0 {
                lines_through[i][slot] = lines[l];
                slot += 1;
            }
            l += 1;
        }
        i += 1;
    }
    Geometry {
        lines,
        adjacent,
        lines_through,
        junctions: Bitboard(junctions),
    }
}

static PLAIN: Geometry = make_geometry(&PLAIN_LINES, false);
static DIAGONAL: Geometry = make_geometry(&DIAGONAL_LINES, true);

impl BoardKind {
    /// The line and adjacency tables of this board.
    #[inline]
    pub fn geometry(self) -> &'static Geometry {
        match self {
            BoardKind::Plain => &PLAIN,
            BoardKind::Diagonal => &DIAGONAL,
        }
    }

    /// `"plain"` or `"diagonal"`, as in rules files.
    pub const fn name(self) -> &'static str {
        match self {
            BoardKind::Plain => "plain",
            BoardKind::Diagonal => "diagonal",
        }
    }
}

impl Geometry {
    /// The union of `own`'s complete lines: the points of `own` that stand in a line.
    #[inline]
    pub fn in_lines(&self, own: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for &l in self.lines {
            if own.contains_all(l) {
                out |= l;
            }
        }
        out
    }

    /// How many complete lines of `own` pass through `p`.
    #[inline]
    pub fn lines_at(&self, own: Bitboard, p: Point) -> u32 {
        let mut n = 0;
        for &l in &self.lines_through[p.index()] {
            if !l.is_empty() && own.contains_all(l) {
                n += 1;
            }
        }
        n
    }
}

/// The points in the order of a position string: ranks 7 down to 1, files a to g.
pub(crate) const READING_ORDER: [[&str; 6]; 7] = [
    ["a7", "d7", "g7", "", "", ""],
    ["b6", "d6", "f6", "", "", ""],
    ["c5", "d5", "e5", "", "", ""],
    ["a4", "b4", "c4", "e4", "f4", "g4"],
    ["c3", "d3", "e3", "", "", ""],
    ["b2", "d2", "f2", "", "", ""],
    ["a1", "d1", "g1", "", "", ""],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Point::ALL {
            assert_eq!(p.name().parse::<Point>().unwrap(), p);
        }
        assert!("d4".parse::<Point>().is_err());
        assert!("h1".parse::<Point>().is_err());
    }

    #[test]
    fn line_and_adjacency_counts() {
        assert_eq!(PLAIN.lines.len(), 16);
        assert_eq!(DIAGONAL.lines.len(), 20);
        let edges = |g: &Geometry| g.adjacent.iter().map(|a| a.count()).sum::<u32>() / 2;
        assert_eq!(edges(&PLAIN), 32);
        assert_eq!(edges(&DIAGONAL), 40);
        // Adjacency is symmetric.
        for g in [&PLAIN, &DIAGONAL] {
            for p in Point::ALL {
                for q in g.adjacent[p.index()] {
                    assert!(g.adjacent[q.index()].contains(p));
                }
            }
        }
    }

    #[test]
    fn junctions_are_the_points_with_four_neighbours() {
        let points = |names: &str| {
            names
                .split(' ')
                .map(|n| n.parse::<Point>().unwrap().bb())
                .fold(Bitboard::EMPTY, |a, b| a | b)
        };
        assert_eq!(PLAIN.junctions, points("d6 b4 f4 d2"));
        assert_eq!(DIAGONAL.junctions, points("b6 d6 f6 b4 f4 b2 d2 f2"));
    }

    #[test]
    fn lines_match_the_rules_contract() {
        let named = [
            "a7 d7 g7", "b6 d6 f6", "c5 d5 e5", "a4 b4 c4", "e4 f4 g4", "c3 d3 e3", "b2 d2 f2",
            "a1 d1 g1", "a1 a4 a7", "b2 b4 b6", "c3 c4 c5", "d1 d2 d3", "d5 d6 d7", "e3 e4 e5",
            "f2 f4 f6", "g1 g4 g7",
        ];
        let diag = ["a1 b2 c3", "g1 f2 e3", "a7 b6 c5", "g7 f6 e5"];
        let mask = |s: &str| {
            s.split(' ')
                .map(|n| n.parse::<Point>().unwrap().bb())
                .fold(Bitboard::EMPTY, |a, b| a | b)
        };
        let mut plain: Vec<u32> = named.iter().map(|s| mask(s).0).collect();
        plain.sort();
        let mut got: Vec<u32> = PLAIN.lines.iter().map(|b| b.0).collect();
        got.sort();
        assert_eq!(plain, got);
        let mut all: Vec<u32> = named.iter().chain(diag.iter()).map(|s| mask(s).0).collect();
        all.sort();
        let mut got: Vec<u32> = DIAGONAL.lines.iter().map(|b| b.0).collect();
        got.sort();
        assert_eq!(all, got);
    }
}

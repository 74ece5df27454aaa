//! The position encoder: the one owner of the position -> network input map.
//!
//! A [`Position`] becomes [`FEATURES`] `f32`s, always **from the view of the
//! player to act** ("own" is the player to act, "opp" the other), so one
//! network plays both colours. Everything the position string holds that
//! matters for the future is in it; the repetition history is not (it is not
//! part of a `Position`).
//!
//! # Rule options: separate networks, with the rules as inputs too
//!
//! Every network is trained for **one** rule set: a checkpoint records its
//! rules and loading refuses a checkpoint made under other rules. The options
//! that change the game (diagonal board, flying threshold, what a placing
//! line does, ...) are nevertheless encoded as a small constant block of
//! inputs, so that a network trained on mixed rule sets needs no new encoder
//! version; for a single-rules network those inputs are constant and cost a
//! few multiply-adds.
//!
//! # Layout (version 1)
//!
//! Nine planes of 24 points (index `plane * 24 + point`, points numbered as in
//! [`shax_core::board`]), then scalars, then zero padding up to [`FEATURES`]:
//!
//! | index | feature |
//! |---|---|
//! | plane 0 | own pieces |
//! | plane 1 | opponent's pieces |
//! | plane 2 | empty points |
//! | plane 3 | own pieces in a complete line |
//! | plane 4 | opponent's pieces in a complete line |
//! | planes 5, 6 | own barred move under the no-return rule: its from, its to |
//! | planes 7, 8 | the opponent's barred move: its from, its to |
//! | 216, 217 | own, opponent's pieces in hand / 12 |
//! | 218, 219 | own, opponent's pieces on the board / 12 |
//! | 220..224 | task one-hot: place, move, remove, free |
//! | 224 | removals owed / 2 |
//! | 225 | opening reply (the opponent removes after this removal) |
//! | 226..229 | first jare: mine, theirs, nobody's |
//! | 229, 230 | own flies, opponent flies |
//! | 231 | placing phase (either side has pieces in hand) |
//! | 232 | no-removal turns / `no_removal_limit` (0 when off) |
//! | 233 | endgame turns / `endgame_no_removal_turns` (0 when off) |
//! | 234 | actions played / `max_actions` (0 when off) |
//! | 235.. | rules: diagonal board, pieces / 12, flying threshold / 12, placing lines capture, full board one-hot (jare removals, remove last placed, nothing), no jare: second player removes first, mill protection, double mill removes two, blocked player is freed, no-return rule, repetition on, no-removal limit on, endgame limit on, max actions on |
//!
//! Counters are clamped to `[0, 1]`. The barred move of a side is the reverse
//! of its last move ([`Position::no_return_move`]): a move `q-p` after `p-q`.
//!
//! # Version 2: lines and mobility
//!
//! Version 1's 256 inputs, then four more planes (index `256 + plane * 24 +
//! point`), [`FEATURES_V2`] in all:
//!
//! | plane | feature |
//! |---|---|
//! | 0 | own threats: empty points that complete a line holding two own pieces |
//! | 1 | the opponent's threats |
//! | 2 | own pieces that can slide (an empty neighbour) |
//! | 3 | the opponent's pieces that can slide |
//!
//! A small network learns lines and blockades from these instead of from
//! scratch. A network's version is part of its [`crate::ModelConfig`]
//! (`encoder`) and of its checkpoint; version 1 networks (the shipped Shax
//! tiers) keep loading and encoding as before.
//!
//! Changing any of this changes the meaning of every trained network: add a
//! version.

use shax_core::{Blocked, BoardKind, FullBoard, NoJare, POINTS, PlacementLines, Position, Task};

/// The newest version of the encoding; checkpoints record theirs, and loading
/// refuses one outside [`OLDEST_ENCODER_VERSION`]..=this.
pub const ENCODER_VERSION: u32 = 2;

/// The oldest version this build encodes.
pub const OLDEST_ENCODER_VERSION: u32 = 1;

/// Number of `f32` inputs per position in version 1 (the layout's 251
/// features padded to 256), the array [`encode`] fills.
pub const FEATURES: usize = 256;

/// Number of `f32` inputs per position in version 2.
pub const FEATURES_V2: usize = FEATURES + 4 * POINTS;

/// Inputs per position of an encoder version (version 1's for any other).
pub const fn features(version: u32) -> usize {
    if version >= 2 { FEATURES_V2 } else { FEATURES }
}

/// Number of 24-point planes at the start of the encoding.
pub const PLANES: usize = 9;

const SCALARS: usize = PLANES * POINTS;
/// Largest piece count of any rule set, the scale of hand and board counts.
const MAX_PIECES: f32 = 12.0;

fn ratio(value: u32, limit: u32) -> f32 {
    if limit == 0 {
        0.0
    } else {
        (value as f32 / limit as f32).min(1.0)
    }
}

fn flag(b: bool) -> f32 {
    if b { 1.0 } else { 0.0 }
}

/// Encodes one position in version 1 into `out` (every entry is written).
///
/// # Examples
///
/// ```
/// use shax_core::{Position, Rules};
/// use shax_nn::{FEATURES, encode};
///
/// let mut x = [0.0f32; FEATURES];
/// encode(&Position::new(Rules::default()), &mut x);
/// assert_eq!(x[2 * 24..3 * 24], [1.0; 24]); // the empty-points plane
/// ```
pub fn encode(pos: &Position, out: &mut [f32; FEATURES]) {
    out.fill(0.0);
    let me = pos.to_act();
    let opp = me.opponent();
    let rules = pos.rules();
    let geometry = rules.board.geometry();

    let own = pos.board(me);
    let theirs = pos.board(opp);
    let mut plane = |index: usize, bb: shax_core::Bitboard| {
        for p in bb {
            out[index * POINTS + p.index()] = 1.0;
        }
    };
    plane(0, own);
    plane(1, theirs);
    plane(2, !pos.occupied() & shax_core::Bitboard::FULL);
    plane(3, geometry.in_lines(own));
    plane(4, geometry.in_lines(theirs));
    for (base, c) in [(5, me), (7, opp)] {
        if let Some((p, q)) = pos.no_return_move(c) {
            // The barred move is the reverse, q -> p.
            plane(base, q.bb());
            plane(base + 1, p.bb());
        }
    }

    let s = &mut out[SCALARS..];
    s[0] = pos.hand(me) as f32 / MAX_PIECES;
    s[1] = pos.hand(opp) as f32 / MAX_PIECES;
    s[2] = own.count() as f32 / MAX_PIECES;
    s[3] = theirs.count() as f32 / MAX_PIECES;
    let task = match pos.task() {
        Task::Place => 0,
        Task::Move => 1,
        Task::Remove => 2,
        Task::Free => 3,
    };
    s[4 + task] = 1.0;
    s[8] = (pos.removals_owed() as f32 / 2.0).min(1.0);
    s[9] = flag(pos.opening_reply());
    let jare = match pos.first_jare() {
        Some(c) if c == me => 0,
        Some(_) => 1,
        None => 2,
    };
    s[10 + jare] = 1.0;
    s[13] = flag(pos.flies(me));
    s[14] = flag(pos.flies(opp));
    s[15] = flag(pos.is_placing());
    s[16] = ratio(pos.no_removal_turns(), rules.no_removal_limit);
    s[17] = ratio(pos.endgame_turns(), rules.endgame_no_removal_turns);
    s[18] = ratio(pos.action_count(), rules.max_actions);

    let r = &mut s[19..];
    r[0] = flag(rules.board == BoardKind::Diagonal);
    r[1] = rules.pieces as f32 / MAX_PIECES;
    r[2] = rules.flying as f32 / MAX_PIECES;
    r[3] = flag(rules.placement_lines == PlacementLines::Capture);
    let full = match rules.full_board {
        FullBoard::JareRemovals => 0,
        FullBoard::RemoveLastPlaced => 1,
        FullBoard::Nothing => 2,
    };
    r[4 + full] = 1.0;
    r[7] = flag(rules.no_jare == NoJare::SecondPlayerRemovesFirst);
    r[8] = flag(rules.mill_protection);
    r[9] = flag(rules.double_mill_removals >= 2);
    r[10] = flag(rules.blocked == Blocked::Freed);
    r[11] = flag(rules.no_return);
    r[12] = flag(rules.repetition > 0);
    r[13] = flag(rules.no_removal_limit > 0);
    r[14] = flag(rules.endgame_no_removal_turns > 0);
    r[15] = flag(rules.max_actions > 0);
    // SCALARS + 19 + 16 = 251 features used; the rest is padding.
}

/// Encodes one position in `version` into `out`, [`features`]`(version)`
/// long (every entry is written).
///
/// # Panics
///
/// Panics when `out` has another length.
pub fn encode_version(pos: &Position, version: u32, out: &mut [f32]) {
    assert_eq!(out.len(), features(version), "encoder version {version}");
    let (v1, v2) = out.split_at_mut(FEATURES);
    encode(pos, v1.try_into().expect("FEATURES long"));
    if version >= 2 {
        encode_lines(pos, v2);
    }
}

/// Version 2's planes (see the module docs) into `out`, `4 * POINTS` long.
fn encode_lines(pos: &Position, out: &mut [f32]) {
    out.fill(0.0);
    let me = pos.to_act();
    let geometry = pos.rules().board.geometry();
    let empty = !pos.occupied() & shax_core::Bitboard::FULL;
    for (k, c) in [me, me.opponent()].into_iter().enumerate() {
        let pieces = pos.board(c);
        for &line in geometry.lines {
            let open = line & empty;
            if (line & pieces).count() == 2 && open.count() == 1 {
                for p in open {
                    out[k * POINTS + p.index()] = 1.0;
                }
            }
        }
        for p in pieces {
            if !(geometry.adjacent[p.index()] & empty).is_empty() {
                out[(2 + k) * POINTS + p.index()] = 1.0;
            }
        }
    }
}

/// Encodes a batch in `version` into one contiguous row-major buffer
/// `[positions.len(), features(version)]`.
///
/// `out` is cleared and resized; its capacity is reused, so a caller that keeps
/// the buffer allocates only when the batch grows.
pub fn encode_batch(positions: &[Position], version: u32, out: &mut Vec<f32>) {
    let width = features(version);
    out.clear();
    out.resize(positions.len() * width, 0.0);
    for (pos, row) in positions.iter().zip(out.chunks_exact_mut(width)) {
        encode_version(pos, version, row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shax_core::{Game, Preset, Rules, Symmetry};

    fn encoded(pos: &Position) -> [f32; FEATURES] {
        let mut x = [0.0; FEATURES];
        encode(pos, &mut x);
        x
    }

    /// Positions from every preset in several phases: placing, removing,
    /// moving, with the no-return restriction and counters set.
    fn sample_positions() -> Vec<Position> {
        let mut out = Vec::new();
        for preset in Preset::ALL {
            let rules = Rules::preset(preset);
            let mut pos = Position::new(rules);
            // A deterministic pseudo-random playout; keep every position.
            let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ preset as u64;
            for _ in 0..200 {
                out.push(pos);
                if pos.outcome().is_some() {
                    break;
                }
                let actions = pos.legal_actions();
                if actions.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos.play_unchecked(actions[(seed % actions.len() as u64) as usize]);
            }
        }
        out
    }

    #[test]
    fn every_feature_is_finite_and_in_unit_range() {
        for pos in sample_positions() {
            let x = encoded(&pos);
            assert!(x.iter().all(|v| (0.0..=1.0).contains(v)), "{}", pos.fen());
            assert!(x[251..].iter().all(|&v| v == 0.0), "padding stays zero");
        }
    }

    #[test]
    fn planes_partition_the_board_and_task_is_one_hot() {
        for pos in sample_positions() {
            let x = encoded(&pos);
            for p in 0..POINTS {
                let sum = x[p] + x[POINTS + p] + x[2 * POINTS + p];
                assert_eq!(sum, 1.0, "point {p} of {}", pos.fen());
            }
            let task: f32 = x[SCALARS + 4..SCALARS + 8].iter().sum();
            assert_eq!(task, 1.0);
            let jare: f32 = x[SCALARS + 10..SCALARS + 13].iter().sum();
            assert_eq!(jare, 1.0);
        }
    }

    #[test]
    fn symmetric_positions_encode_to_permuted_planes_and_equal_scalars() {
        for pos in sample_positions() {
            let x = encoded(&pos);
            for sym in Symmetry::ALL {
                let y = encoded(&sym.position(&pos));
                for plane in 0..PLANES {
                    for p in shax_core::Point::ALL {
                        assert_eq!(
                            y[plane * POINTS + sym.point(p).index()],
                            x[plane * POINTS + p.index()],
                            "plane {plane} point {p} symmetry {} of {}",
                            sym.index(),
                            pos.fen()
                        );
                    }
                }
                assert_eq!(x[SCALARS..], y[SCALARS..]);
            }
        }
    }

    /// The position string with the colours swapped: board, player to act,
    /// hands, first jare, no-return moves.
    fn swap_colours(fen: &str) -> String {
        let f: Vec<&str> = fen.split(' ').collect();
        let board: String = f[0]
            .chars()
            .map(|c| match c {
                'W' => 'B',
                'B' => 'W',
                c => c,
            })
            .collect();
        let side = if f[1] == "w" { "b" } else { "w" };
        let swap_pair = |s: &str| {
            let (a, b) = s.split_once(',').expect("a pair");
            format!("{b},{a}")
        };
        let jare = match f[4] {
            "w" => "b",
            "b" => "w",
            other => other,
        };
        format!(
            "{board} {side} {} {} {jare} {} {} {} {}",
            f[2],
            swap_pair(f[3]),
            swap_pair(f[5]),
            f[6],
            f[7],
            f[8]
        )
    }

    #[test]
    fn colour_swapped_positions_encode_identically() {
        let mut checked = 0;
        for pos in sample_positions() {
            let swapped = swap_colours(&pos.fen());
            let Ok(other) = Position::from_fen(*pos.rules(), &swapped) else {
                continue; // a string the reader does not accept swapped
            };
            assert_ne!(other.to_act(), pos.to_act());
            assert_eq!(encoded(&pos), encoded(&other), "{} vs {swapped}", pos.fen());
            checked += 1;
        }
        assert!(checked > 100, "only {checked} positions swapped");
    }

    #[test]
    fn own_is_the_player_to_act() {
        let mut game = Game::new(Rules::preset(Preset::NineMensMorris));
        game.play_str("a7").unwrap(); // White places; Black to act
        let x = encoded(game.position());
        let a7 = "a7".parse::<shax_core::Point>().unwrap().index();
        assert_eq!(x[a7], 0.0, "not Black's own piece");
        assert_eq!(x[POINTS + a7], 1.0, "the opponent's");
        assert_eq!(x[SCALARS], 9.0 / 12.0, "own hand: 9");
        assert_eq!(x[SCALARS + 1], 8.0 / 12.0, "opponent's hand: 8");
    }

    #[test]
    fn batch_rows_equal_single_encodings() {
        let positions = sample_positions();
        let mut buf = Vec::new();
        encode_batch(&positions[..37], 1, &mut buf);
        assert_eq!(buf.len(), 37 * FEATURES);
        for (i, pos) in positions[..37].iter().enumerate() {
            assert_eq!(buf[i * FEATURES..(i + 1) * FEATURES], encoded(pos));
        }
        let cap = buf.capacity();
        encode_batch(&positions[..5], 1, &mut buf);
        assert_eq!(buf.len(), 5 * FEATURES);
        assert_eq!(buf.capacity(), cap, "the buffer is reused");
        encode_batch(&positions[..37], 2, &mut buf);
        assert_eq!(buf.len(), 37 * FEATURES_V2);
        for (i, pos) in positions[..37].iter().enumerate() {
            assert_eq!(buf[i * FEATURES_V2..(i + 1) * FEATURES_V2], encoded_v2(pos));
        }
    }

    fn encoded_v2(pos: &Position) -> Vec<f32> {
        let mut x = vec![0.0; FEATURES_V2];
        encode_version(pos, 2, &mut x);
        x
    }

    #[test]
    fn version_2_extends_version_1_with_planes_that_follow_the_symmetries() {
        for pos in sample_positions() {
            let x = encoded_v2(&pos);
            assert_eq!(x[..FEATURES], encoded(&pos), "version 1's inputs first");
            assert!(x[FEATURES..].iter().all(|&v| v == 0.0 || v == 1.0));
            for sym in Symmetry::ALL {
                let y = encoded_v2(&sym.position(&pos));
                for plane in 0..4 {
                    for p in shax_core::Point::ALL {
                        let at = |q: shax_core::Point| FEATURES + plane * POINTS + q.index();
                        assert_eq!(
                            y[at(sym.point(p))],
                            x[at(p)],
                            "plane {plane} of {}",
                            pos.fen()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn version_2_marks_threats_and_pieces_that_can_slide() {
        let mut game = Game::new(Rules::preset(Preset::NineMensMorris));
        for a in ["a7", "a1", "d7"] {
            game.play_str(a).unwrap();
        }
        // Black to act; White (the opponent) has a7 and d7: g7 completes its line.
        let x = encoded_v2(game.position());
        let at = |plane: usize, p: &str| {
            x[FEATURES + plane * POINTS + p.parse::<shax_core::Point>().unwrap().index()]
        };
        assert_eq!(at(1, "g7"), 1.0, "the opponent's threat");
        assert_eq!(
            x[FEATURES..FEATURES + POINTS].iter().sum::<f32>(),
            0.0,
            "no own threat"
        );
        assert_eq!(at(2, "a1"), 1.0, "Black's a1 can slide");
        assert_eq!(
            (at(3, "a7"), at(3, "d7")),
            (1.0, 1.0),
            "so can White's pieces"
        );
        assert_eq!(at(3, "g7"), 0.0, "an empty point is no piece");
    }

    #[test]
    fn rules_block_tells_presets_apart() {
        let rules_block =
            |p: Preset| encoded(&Position::new(Rules::preset(p)))[SCALARS + 19..].to_vec();
        let all: Vec<_> = Preset::ALL.into_iter().map(rules_block).collect();
        for i in 0..all.len() {
            for j in i + 1..all.len() {
                assert_ne!(all[i], all[j], "presets {i} and {j}");
            }
        }
    }
}

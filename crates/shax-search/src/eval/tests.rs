//! The mill evaluation's terms on hand-built positions.

use super::*;
use crate::testkit::random_positions;
use shax_core::{Point, Preset, Rules};

fn pos(preset: Preset, fen: &str) -> Position {
    Position::from_fen(Rules::preset(preset), fen).unwrap()
}

#[test]
fn start_is_balanced() {
    for p in Preset::ALL {
        assert_eq!(evaluate(&Position::new(Rules::preset(p))), 0, "{p:?}");
    }
}

/// Five pieces each, Nine Men's Morris, White to move. Black's corners a7 g7
/// g1 a1 are stuck between White's d7 g4 d1 a4; Black's c5 has one move
/// (c4), d5 being White's. Black is one move from a blockade, which loses.
const NEAR_BLOCKADE: &str = "BWB/.../BW./W....W/.../.../BWB w - 0,0 - -,- 0 0 40";

#[test]
fn a_side_one_move_from_blockade_is_worth_more_than_a_piece_less() {
    let p = pos(Preset::NineMensMorris, NEAR_BLOCKADE);
    assert_eq!(p.pieces(Color::White), p.pieces(Color::Black));
    let w = weights_for(p.rules());
    let geo = p.rules().board.geometry();
    let empty = !p.occupied();
    let black = mobility(geo, p.board(Color::Black), empty, false, false, w);
    // One move, four stuck pieces, and the near-blockade term.
    assert_eq!(black, w.mob + 4 * w.stuck + w.block[1]);
    assert!(
        evaluate(&p) > PIECE,
        "mill evaluation {} should see the blockade coming",
        evaluate(&p)
    );
    // Today's evaluation weighs it at a fraction of a piece.
    assert!(evaluate_basic(&p) < PIECE / 2, "{}", evaluate_basic(&p));
}

#[test]
fn blockade_terms_are_mild_in_shax_where_the_blocked_side_is_freed() {
    let nmm = pos(Preset::NineMensMorris, NEAR_BLOCKADE);
    let shax = pos(Preset::Shax, NEAR_BLOCKADE);
    assert!(evaluate(&shax) < evaluate(&nmm));
}

/// White's mill a7 d7 g7; d6 empty, so d7 can step out and back.
const OPEN_MILL: &str = "WWW/.../.../B....B/.../BW./B.W w - 0,0 - -,- 0 0 40";
/// The same mill with every exit taken by Black.
const SHUT_MILL: &str = "WWW/.B./.../B....B/.../.W./B.W w - 0,0 - -,- 0 0 40";

#[test]
fn a_mill_that_can_open_and_close_counts_more_than_a_shut_one() {
    let open = pos(Preset::NineMensMorris, OPEN_MILL);
    let shut = pos(Preset::NineMensMorris, SHUT_MILL);
    let w = weights_for(open.rules());
    let (lo, ls) = (
        lines(&open, Color::White, w).0,
        lines(&shut, Color::White, w).0,
    );
    assert_eq!(lo - ls, w.mill_open, "open {lo}, shut {ls}");
}

#[test]
fn a_ready_open_line_counts_more_than_one_nobody_can_close() {
    // White b6 f6 with d6 empty; d7 (White) can slide into d6: ready, and
    // no Black piece reaches d6. (d2 and e4 keep White off three pieces.)
    let ready = pos(
        Preset::NineMensMorris,
        ".W./W.W/.../B..W.B/.../.W./B.B w - 0,0 - -,- 0 0 40",
    );
    // The same line with d7 empty: no White piece reaches d6 (and d7 no
    // longer stands alone on two lines).
    let idle = pos(
        Preset::NineMensMorris,
        ".../W.W/.../B..W.B/.../.W./B.B w - 0,0 - -,- 0 0 40",
    );
    let w = weights_for(ready.rules());
    let ((rs, rh), (is, ih)) = (
        lines(&ready, Color::White, w),
        lines(&idle, Color::White, w),
    );
    assert_eq!(rs - is, w.two_ready + w.two_unguarded - w.two + 2 * w.one);
    // Only the ready line's hole is one White can close next.
    assert_eq!(rh, "d6".parse::<Point>().unwrap().bb());
    assert_eq!(ih, Bitboard::EMPTY);
}

#[test]
fn a_double_mill_swing_is_found_and_valued() {
    // Mill a7 d7 g7, and b6 f6 with d6 empty: d7-d6 closes b6 d6 f6, d6-d7
    // closes the top row again.
    let swing = pos(
        Preset::NineMensMorris,
        "WWW/W.W/.../B....B/.../.B./B.B w - 0,0 - -,- 0 0 40",
    );
    let geo = swing.rules().board.geometry();
    let empty = !swing.occupied();
    assert_eq!(swings(geo, swing.board(Color::White), empty), 1);
    assert_eq!(swings(geo, swing.board(Color::Black), empty), 0);
    // Black on d6 stops it.
    let stopped = pos(
        Preset::NineMensMorris,
        "WWW/WBW/.../B....B/.../.../B.B w - 0,0 - -,- 0 0 40",
    );
    let empty = !stopped.occupied();
    assert_eq!(swings(geo, stopped.board(Color::White), empty), 0);
    assert!(evaluate(&swing) > evaluate(&stopped) + weights_for(swing.rules()).swing / 2);
}

/// A full Shax board, symmetric under a quarter turn with the colours
/// swapped; White made the first jare and removes first, then Black.
const SHAX_FULL: &str = "WWB/WBB/WWB/BWBBWB/BWW/BBW/BWW w x1+ 0,0 w -,- 0 0 24";

#[test]
fn shax_full_board_credits_the_jare_and_nets_the_two_removals() {
    let p = pos(Preset::Shax, SHAX_FULL);
    assert_eq!(p.task(), Task::Remove);
    assert!(p.opening_reply());
    // Everything but the jare is symmetric, and White's removal is answered
    // by Black's: the value is the jare.
    assert_eq!(evaluate(&p), weights_for(p.rules()).jare);
    // After White's removal Black is a piece down but owes a removal: even
    // but for White's jare, give or take the hole.
    let mut after = p;
    let a = after.legal_actions()[0];
    after.play_unchecked(a);
    assert_eq!(after.to_act(), Color::Black);
    assert_eq!(after.task(), Task::Remove);
    assert!(!after.opening_reply());
    let jare = weights_for(after.rules()).jare;
    let v = evaluate(&after);
    assert!(
        (v + jare).abs() < PIECE / 2,
        "{v} against the jare's {jare}"
    );
}

#[test]
fn a_draw_counter_about_to_run_out_fades_the_score() {
    let base = "WWW/.../.../B....B/.../BW./B.W w - 0,0 - -,- 0 0 40";
    let fresh = pos(Preset::NineMensMorris, base);
    let late = pos(
        Preset::NineMensMorris,
        &base.replace(" 0 0 40", " 48 0 140"),
    );
    assert!(evaluate(&fresh) > 0);
    assert!(evaluate(&late).abs() < evaluate(&fresh).abs() / 2);
}

#[test]
fn eval_kinds_select_the_evaluations() {
    let p = pos(Preset::NineMensMorris, NEAR_BLOCKADE);
    assert_eq!(EvalKind::Mill.evaluate(&p), evaluate(&p));
    assert_eq!(EvalKind::Basic.evaluate(&p), evaluate_basic(&p));
    for k in [EvalKind::Mill, EvalKind::Basic] {
        assert_eq!(EvalKind::from_name(k.name()), Ok(k));
    }
    assert!(EvalKind::from_name("fancy").is_err());
}

#[test]
fn a_weights_file_replaces_the_weights_it_names_and_no_others() {
    let p = pos(Preset::NineMensMorris, OPEN_MILL);
    let base = weights_for(p.rules());
    let f = WeightsFile::parse("w.toml", "mill_open = 125\n").unwrap();
    let w = f.apply(base);
    assert_eq!(w.mill_open, 125);
    assert_eq!(
        Weights {
            mill_open: base.mill_open,
            ..w
        },
        *base
    );
    let file = EvalKind::File(std::sync::Arc::new(f));
    assert_eq!(file.evaluate(&p), evaluate_with(&p, &w));
    // White, to act, has one open mill: the score moves by the change.
    assert_eq!(file.evaluate(&p) - evaluate(&p), 125 - base.mill_open);
    assert_eq!(file.name(), "w.toml");
}

#[test]
fn a_weights_file_round_trips_and_bad_ones_say_what_is_wrong() {
    let w = *weights_for(&Rules::preset(Preset::Shax));
    let f = WeightsFile::parse("t.toml", &weights_file_text(&w)).unwrap();
    assert_eq!(
        f.apply(weights_for(&Rules::preset(Preset::Morabaraba)))
            .linear(),
        w.linear()
    );
    let e = WeightsFile::parse("t.toml", "mil = 3").unwrap_err();
    assert!(
        e.contains("t.toml") && e.contains("`mil`") && e.contains("mill_open"),
        "{e}"
    );
    let e = WeightsFile::parse("t.toml", "mill = 2.5").unwrap_err();
    assert!(e.contains("`mill` must be an integer"), "{e}");
    assert!(WeightsFile::parse("t.toml", "mill = ").is_err());
    let e = EvalKind::from_name("/nonexistent/w.toml").unwrap_err();
    assert!(e.contains("/nonexistent/w.toml"), "{e}");
}

#[test]
fn the_evaluation_is_its_weights_times_the_term_counts() {
    for preset in Preset::ALL {
        let w = Weights {
            counter_fade: 0,
            ..*weights_for(&Rules::preset(preset))
        };
        let mut nonzero = [false; LINEAR_TERMS.len()];
        for p in random_positions(preset, 20) {
            let counts = term_counts(&p);
            let sum: i32 = w.linear().iter().zip(counts).map(|(w, c)| w * c).sum();
            assert_eq!(evaluate_with(&p, &w), sum, "{preset:?} {}", p.fen());
            for (seen, c) in nonzero.iter_mut().zip(counts) {
                *seen |= c != 0;
            }
        }
        // The common terms move in every game.
        for t in ["piece", "mill", "two_place", "one"] {
            let i = LINEAR_TERMS.iter().position(|&n| n == t).unwrap();
            assert!(nonzero[i], "{preset:?}: {t} never counted");
        }
    }
}

#[test]
fn with_linear_replaces_exactly_the_linear_weights() {
    let w = *weights_for(&Rules::preset(Preset::Shax));
    assert_eq!(w.with_linear(w.linear()), w);
    let doubled = w.with_linear(w.linear().map(|x| 2 * x));
    assert_eq!(doubled.piece, 2 * w.piece);
    assert_eq!(doubled.jare_fork, 2 * w.jare_fork);
    assert_eq!(
        (doubled.mob_cap, doubled.lmr, doubled.black_draw),
        (w.mob_cap, w.lmr, w.black_draw)
    );
}

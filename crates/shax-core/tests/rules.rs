//! Each rule of `docs/RULES.md` in its own named test, on constructed positions.
//!
//! Positions are built from lists of points with [`setup`], which writes a
//! position string (see `shax_core::fen`).

use shax_core::{Action, Color, Game, Outcome, Position, Preset, Reason, Rules, Task};

const ORDER: [&str; 24] = [
    "a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4", "e4", "f4", "g4", "c3",
    "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1",
];
const RANK_SIZES: [usize; 7] = [3, 3, 3, 6, 3, 3, 3];

/// A position string with `white` and `black` on the board and `tail` (the
/// eight fields after the board) as given.
fn fen(white: &str, black: &str, tail: &str) -> String {
    let w: Vec<&str> = white.split_whitespace().collect();
    let b: Vec<&str> = black.split_whitespace().collect();
    for p in w.iter().chain(&b) {
        assert!(ORDER.contains(p), "{p} is not a point");
    }
    let mut s = String::new();
    let mut i = 0;
    for (r, n) in RANK_SIZES.iter().enumerate() {
        if r > 0 {
            s.push('/');
        }
        for _ in 0..*n {
            let p = ORDER[i];
            s.push(if w.contains(&p) {
                'W'
            } else if b.contains(&p) {
                'B'
            } else {
                '.'
            });
            i += 1;
        }
    }
    format!("{s} {tail}")
}

fn setup(rules: Rules, white: &str, black: &str, tail: &str) -> Position {
    Position::from_fen(rules, &fen(white, black, tail)).unwrap()
}

fn play(pos: &mut Position, actions: &str) {
    for a in actions.split_whitespace() {
        let action: Action = a.parse().unwrap();
        pos.play(action)
            .unwrap_or_else(|e| panic!("{a}: {e} in {}", pos.fen()));
    }
}

fn legal(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_actions().iter().map(|a| a.to_string()).collect();
    v.sort();
    v
}

fn shax() -> Rules {
    Rules::preset(Preset::Shax)
}

// A full board with no line for either side: colours alternate around each
// ring, and the middle ring is out of phase with the other two.
const NO_LINES_WHITE: &str = "a7 g7 g1 a1 d6 f4 d2 b4 c5 e5 e3 c3";
const NO_LINES_BLACK: &str = "d7 g4 d1 a4 b6 f6 f2 b2 d5 e4 d3 c4";
// The same with d7 and c5 swapped: White holds the line a7 d7 g7.
const WHITE_LINE_WHITE: &str = "a7 d7 g7 g1 a1 d6 f4 d2 b4 e5 e3 c3";
const WHITE_LINE_BLACK: &str = "c5 g4 d1 a4 b6 f6 f2 b2 d5 e4 d3 c4";

fn without(list: &str, p: &str) -> String {
    list.split_whitespace()
        .filter(|q| *q != p)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn shax_placement_line_captures_nothing_and_records_the_first_jare() {
    let mut pos = Position::new(shax());
    play(&mut pos, "a7 a1 d7 d1 g7");
    assert_eq!(pos.first_jare(), Some(Color::White));
    assert_eq!(pos.task(), Task::Place);
    assert_eq!(pos.to_act(), Color::Black);
    play(&mut pos, "g1");
    assert_eq!(
        pos.first_jare(),
        Some(Color::White),
        "the first jare stays with its maker"
    );
}

#[test]
fn shax_first_jare_maker_removes_first_then_the_other_then_maker_moves() {
    // White made the first jare; Black places the 24th piece on b2.
    let black = without(WHITE_LINE_BLACK, "b2");
    let mut pos = setup(shax(), WHITE_LINE_WHITE, &black, "b - 0,1 w -,- 0 0 23");
    play(&mut pos, "b2");
    assert_eq!((pos.to_act(), pos.task()), (Color::White, Task::Remove));
    // No mill protection in Shax: White may take any black piece.
    assert_eq!(legal(&pos).len(), 12);
    play(&mut pos, "xb2");
    assert_eq!((pos.to_act(), pos.task()), (Color::Black, Task::Remove));
    play(&mut pos, "xd7");
    assert_eq!((pos.to_act(), pos.task()), (Color::White, Task::Move));
    assert_eq!(
        (pos.pieces(Color::White), pos.pieces(Color::Black)),
        (11, 11)
    );
}

#[test]
fn shax_black_first_jare_removes_right_after_placing_the_last_piece() {
    let black = without(WHITE_LINE_BLACK, "b2");
    let mut pos = setup(shax(), WHITE_LINE_WHITE, &black, "b - 0,1 b -,- 0 0 23");
    play(&mut pos, "b2");
    assert_eq!((pos.to_act(), pos.task()), (Color::Black, Task::Remove));
    play(&mut pos, "xa7");
    assert_eq!((pos.to_act(), pos.task()), (Color::White, Task::Remove));
    play(&mut pos, "xb2");
    assert_eq!((pos.to_act(), pos.task()), (Color::Black, Task::Move));
}

#[test]
fn shax_no_pieces_in_lines_are_protected() {
    // After White's removal, Black may take d7 although it stands in White's line.
    let black = without(WHITE_LINE_BLACK, "b2");
    let mut pos = setup(shax(), WHITE_LINE_WHITE, &black, "b - 0,1 w -,- 0 0 23");
    play(&mut pos, "b2 xc4");
    assert!(
        legal(&pos).contains(&"xd7".to_string()),
        "d7 stands in White's line a7 d7 g7"
    );
    assert_eq!(legal(&pos).len(), 12);
}

#[test]
fn shax_no_jare_is_a_draw() {
    let black = without(NO_LINES_BLACK, "b2");
    let mut game = Game::from_position(setup(
        shax(),
        NO_LINES_WHITE,
        &black,
        "b - 0,1 - -,- 0 0 23",
    ));
    game.play_str("b2").unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            winner: None,
            reason: Reason::NoJare
        })
    );
    assert!(game.legal_actions().is_empty());
}

#[test]
fn shax_no_jare_option_second_player_removes_first() {
    let mut rules = shax();
    rules.no_jare = shax_core::NoJare::SecondPlayerRemovesFirst;
    let black = without(NO_LINES_BLACK, "b2");
    let mut pos = setup(rules, NO_LINES_WHITE, &black, "b - 0,1 - -,- 0 0 23");
    play(&mut pos, "b2");
    assert_eq!(pos.outcome(), None);
    assert_eq!((pos.to_act(), pos.task()), (Color::Black, Task::Remove));
    play(&mut pos, "xa7");
    assert_eq!((pos.to_act(), pos.task()), (Color::White, Task::Remove));
    play(&mut pos, "xd7");
    assert_eq!((pos.to_act(), pos.task()), (Color::Black, Task::Move));
}

/// White a7 a1 g1 is walled in by d7 a4 d1 g4; b6 and f6 wait on either side of d6.
fn walled_in_white() -> Position {
    setup(
        shax(),
        "a7 a1 g1",
        "d7 a4 d1 g4 b6 f6",
        "w - 0,0 w -,- 0 0 100",
    )
}

#[test]
fn shax_blocked_player_is_freed_by_the_opponent() {
    let pos = walled_in_white();
    // White cannot move, so Black acts and must free White.
    assert_eq!((pos.to_act(), pos.task()), (Color::Black, Task::Free));
    assert_eq!(pos.outcome(), None);
    let moves = legal(&pos);
    // Every freeing move empties one of d7 a4 d1 g4; other moves are not allowed.
    assert!(
        moves.iter().all(|m| ["d7-", "a4-", "d1-", "g4-"]
            .iter()
            .any(|p| m.starts_with(p))),
        "{moves:?}"
    );
    assert!(!moves.contains(&"b6-b4".to_string()));
}

#[test]
fn shax_freeing_move_that_forms_a_line_captures_nothing() {
    let mut pos = walled_in_white();
    play(&mut pos, "d7-d6"); // forms b6 d6 f6
    assert_eq!((pos.to_act(), pos.task()), (Color::White, Task::Move));
    assert_eq!(pos.pieces(Color::White), 3);
    assert_eq!(
        pos.no_removal_turns(),
        1,
        "a freeing move is a turn without removal"
    );
    assert!(legal(&pos).contains(&"a7-d7".to_string()));
}

#[test]
fn shax_blocked_player_who_cannot_be_freed_loses() {
    // The blockers d7 a4 d1 g4 are themselves walled in by g7 d6 b4 d2 f4.
    let pos = setup(
        shax(),
        "a7 a1 g1",
        "d7 a4 d1 g4 g7 d6 b4 d2 f4",
        "w - 0,0 w -,- 0 0 100",
    );
    assert_eq!(pos.task(), Task::Free);
    assert!(pos.legal_actions().is_empty());
    assert_eq!(
        pos.outcome(),
        Some(Outcome {
            winner: Some(Color::Black),
            reason: Reason::Blocked
        })
    );
}

#[test]
fn shax_has_no_flying() {
    let pos = setup(
        shax(),
        "a7 d7 a1",
        "g1 g4 d1 c3 e3",
        "w - 0,0 w -,- 0 0 100",
    );
    assert_eq!(legal(&pos), ["a1-a4", "a7-a4", "d7-d6", "d7-g7"]);
}

#[test]
fn shax_reduced_to_two_pieces_loses() {
    let mut pos = setup(shax(), "a7 a1 b4", "g1 g4 d1", "w - 0,0 w -,- 0 0 100");
    play(&mut pos, "b4-a4"); // forms a1 a4 a7
    assert_eq!(pos.task(), Task::Remove);
    play(&mut pos, "xg1");
    assert_eq!(
        pos.outcome(),
        Some(Outcome {
            winner: Some(Color::White),
            reason: Reason::Pieces
        })
    );
}

#[test]
fn shax_flying_removes_the_last_placed_piece_and_white_moves_into_it() {
    let rules = Rules::preset(Preset::ShaxFlying);
    let black = without(NO_LINES_BLACK, "b2");
    let mut pos = setup(rules, NO_LINES_WHITE, &black, "b - 0,1 - -,- 0 0 23");
    play(&mut pos, "b2");
    assert_eq!(pos.board(Color::Black).count(), 11);
    assert!(!pos.occupied().contains("b2".parse().unwrap()));
    assert_eq!((pos.to_act(), pos.task()), (Color::White, Task::Move));
    assert_eq!(legal(&pos), ["b4-b2", "d2-b2"]);
}

#[test]
fn shax_flying_white_without_a_move_into_the_gap_loses() {
    let rules = Rules::preset(Preset::ShaxFlying);
    // a7 is placed last; its neighbours d7 and a4 are black.
    let white = "g7 g1 a1 d6 f4 d2 b4 b6 c5 e5 e3 c3";
    let black = "d7 g4 d1 a4 f6 f2 b2 d5 e4 d3 c4";
    let mut pos = setup(rules, white, black, "b - 0,1 - -,- 0 0 23");
    play(&mut pos, "a7");
    assert_eq!(
        pos.outcome(),
        Some(Outcome {
            winner: Some(Color::Black),
            reason: Reason::Blocked
        })
    );
}

#[test]
fn shax_flying_player_with_three_pieces_flies_and_lines_are_not_protected() {
    let rules = Rules::preset(Preset::ShaxFlying);
    let pos = setup(rules, "a7 d7 a1", "g1 g4 g7 b2 d2", "w - 0,0 - -,- 0 0 100");
    assert_eq!(
        pos.legal_actions().len(),
        3 * 16,
        "three pieces times sixteen empty points"
    );
    // The other side, with five pieces, still slides.
    let black = setup(rules, "a7 d7 a1", "g1 g4 g7 b2 d2", "b - 0,0 - -,- 0 0 100");
    assert!(black.legal_actions().len() < 16);
    // A flight that forms a line removes, and Black's line a1 d1 g1 protects nothing.
    let mut pos = setup(rules, "a7 d7 e4", "g1 d1 a1 b2 d2", "w - 0,0 - -,- 0 0 100");
    play(&mut pos, "e4-g7");
    assert_eq!(pos.task(), Task::Remove);
    assert_eq!(legal(&pos).len(), 5);
}

#[test]
fn mill_protection_and_the_all_in_lines_exception() {
    let nmm = Rules::preset(Preset::NineMensMorris);
    // Black holds the line a1 d1 g1 plus b6; White forms a7 d7 g7 by g4-g7.
    let mut pos = setup(nmm, "a7 d7 g4 c3", "a1 d1 g1 b6", "w - 0,0 - -,- 0 0 100");
    play(&mut pos, "g4-g7");
    assert_eq!(legal(&pos), ["xb6"]);
    // With every black piece in a line, any may go.
    let mut pos = setup(nmm, "a7 d7 g4 c3", "a1 d1 g1", "w - 0,0 - -,- 0 0 100");
    play(&mut pos, "g4-g7");
    assert_eq!(legal(&pos), ["xa1", "xd1", "xg1"]);
}

#[test]
fn double_mill_removes_one_piece_unless_the_option_says_two() {
    // Placing d7 forms a7 d7 g7 and d5 d6 d7 at once.
    let nmm = Rules::preset(Preset::NineMensMorris);
    let mut pos = setup(nmm, "a7 g7 d6 d5", "a1 d1 e3 b2", "w - 2,2 - -,- 0 0 8");
    play(&mut pos, "d7");
    assert_eq!((pos.task(), pos.removals_owed()), (Task::Remove, 1));
    play(&mut pos, "xa1");
    assert_eq!((pos.to_act(), pos.task()), (Color::Black, Task::Place));

    let mut two = nmm;
    two.double_mill_removals = 2;
    let mut pos = setup(two, "a7 g7 d6 d5", "a1 d1 e3 b2", "w - 2,2 - -,- 0 0 8");
    play(&mut pos, "d7");
    assert_eq!(pos.removals_owed(), 2);
    play(&mut pos, "xa1");
    assert_eq!((pos.to_act(), pos.task()), (Color::White, Task::Remove));
    play(&mut pos, "xd1");
    assert_eq!((pos.to_act(), pos.task()), (Color::Black, Task::Place));
}

#[test]
fn nine_mens_morris_placement_line_captures() {
    let mut pos = Position::new(Rules::preset(Preset::NineMensMorris));
    play(&mut pos, "a7 a1 d7 d1 g7");
    assert_eq!((pos.to_act(), pos.task()), (Color::White, Task::Remove));
    assert_eq!(legal(&pos), ["xa1", "xd1"]);
}

#[test]
fn morabaraba_diagonals_are_lines() {
    let mut pos = Position::new(Rules::preset(Preset::Morabaraba));
    play(&mut pos, "a1 d7 b2 g7 c3");
    assert_eq!(pos.task(), Task::Remove);
}

#[test]
fn morabaraba_no_immediate_return_to_the_same_line() {
    let mora = Rules::preset(Preset::Morabaraba);
    // White holds the diagonal a1 b2 c3 and opens it with c3-c4.
    let mut pos = setup(
        mora,
        "a1 b2 c3 g7",
        "a7 d7 e4 f4 d1",
        "w - 0,0 - -,- 0 0 100",
    );
    play(&mut pos, "c3-d3 d1-g1");
    assert_eq!(
        pos.no_return_move(Color::White),
        Some(("c3".parse().unwrap(), "d3".parse().unwrap()))
    );
    let moves = legal(&pos);
    assert!(
        !moves.contains(&"d3-c3".to_string()),
        "the immediate return re-forms a1 b2 c3"
    );
    assert!(moves.contains(&"d3-e3".to_string()));
    let err = pos.play("d3-c3".parse().unwrap()).unwrap_err();
    assert!(err.to_string().contains("no immediate return"), "{err}");
    // One move later the return is allowed again.
    play(&mut pos, "g7-g4 g1-d1");
    assert!(legal(&pos).contains(&"d3-c3".to_string()));
    play(&mut pos, "d3-c3");
    assert_eq!(pos.task(), Task::Remove);
}

#[test]
fn morabaraba_return_that_forms_no_line_is_allowed() {
    let mora = Rules::preset(Preset::Morabaraba);
    // c3 was in no line: moving back is an ordinary move.
    let mut pos = setup(mora, "a1 c3 g7", "a7 d7 e4 f4 d1", "w - 0,0 - -,- 0 0 100");
    play(&mut pos, "c3-d3 d1-g1");
    assert_eq!(pos.no_return_move(Color::White), None);
    assert!(legal(&pos).contains(&"d3-c3".to_string()));
}

#[test]
fn morabaraba_placement_filling_the_board_blocks_the_player_to_move() {
    let mora = Rules::preset(Preset::Morabaraba);
    let black = without(NO_LINES_BLACK, "b2");
    let mut pos = setup(mora, NO_LINES_WHITE, &black, "b - 0,1 - -,- 0 0 23");
    play(&mut pos, "b2");
    assert_eq!(
        pos.outcome(),
        Some(Outcome {
            winner: Some(Color::Black),
            reason: Reason::Blocked
        })
    );
}

#[test]
fn morabaraba_ten_moves_each_at_three_pieces_draw() {
    let mora = Rules::preset(Preset::Morabaraba);
    // White has three pieces (and flies); 19 quiet turns already counted.
    let mut game = Game::from_position(setup(
        mora,
        "a7 d5 e3",
        "b6 f6 f2 b2 d3",
        "w - 0,0 - -,- 19 19 200",
    ));
    assert_eq!(game.outcome(), None);
    game.play_str("a7-g1").unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            winner: None,
            reason: Reason::NoRemoval
        })
    );
}

#[test]
fn morabaraba_endgame_counter_runs_only_while_a_side_has_three() {
    let mora = Rules::preset(Preset::Morabaraba);
    let mut pos = setup(
        mora,
        "a7 d5 e3 c4",
        "b6 f6 f2 b2 d3",
        "w - 0,0 - -,- 5 0 200",
    );
    play(&mut pos, "c4-c5");
    assert_eq!((pos.no_removal_turns(), pos.endgame_turns()), (6, 0));
}

#[test]
fn third_repetition_draws() {
    let nmm = Rules::preset(Preset::NineMensMorris);
    let mut game = Game::from_position(setup(
        nmm,
        "a7 d5 e3 c4",
        "b6 f6 f2 b2 d3",
        "w - 0,0 - -,- 0 0 100",
    ));
    for round in 0..2 {
        for a in ["c4-c3", "b6-b4", "c3-c4", "b4-b6"] {
            assert_eq!(game.outcome(), None, "round {round} before {a}");
            game.play_str(a).unwrap();
        }
    }
    assert_eq!(game.occurrences(), 3);
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            winner: None,
            reason: Reason::Repetition
        })
    );
    assert!(game.play_str("c4-c3").is_err());
}

#[test]
fn fifty_turns_without_removal_draw_but_a_removal_comes_first() {
    let r = shax();
    let mut game = Game::from_position(setup(
        r,
        "a7 d7 d5 e3",
        "b6 f6 f2 b2 d3",
        "w - 0,0 w -,- 49 0 300",
    ));
    game.play_str("d5-c5").unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            winner: None,
            reason: Reason::NoRemoval
        })
    );

    // The 50th move forms a line: its removal resets the counter.
    let mut game = Game::from_position(setup(
        r,
        "a7 d7 g4 e3",
        "b6 f6 f2 b2 d3",
        "w - 0,0 w -,- 49 0 300",
    ));
    game.play_str("g4-g7").unwrap();
    assert_eq!(game.outcome(), None);
    game.play_str("xb2").unwrap();
    assert_eq!(game.position().no_removal_turns(), 0);
    assert_eq!(game.outcome(), None);
}

#[test]
fn max_actions_adjudicates_a_draw_counting_removals() {
    let r = shax();
    let mut game = Game::from_position(setup(
        r,
        "a7 d7 g4 e3",
        "b6 f6 f2 b2 d3",
        "w - 0,0 w -,- 0 0 998",
    ));
    game.play_str("g4-g7").unwrap();
    assert_eq!(game.outcome(), None);
    game.play_str("xb2").unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            winner: None,
            reason: Reason::MaxActions
        })
    );
}

#[test]
fn decisive_result_stands_over_a_draw_rule() {
    let r = shax();
    // The 1000th action, a removal, also takes Black down to two pieces.
    let mut game = Game::from_position(setup(
        r,
        "a7 d7 g4 e3",
        "f2 b2 d3",
        "w - 0,0 w -,- 49 0 998",
    ));
    game.play_str("g4-g7").unwrap();
    game.play_str("xb2").unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome {
            winner: Some(Color::White),
            reason: Reason::Pieces
        })
    );
}

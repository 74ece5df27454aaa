//! Property tests over random games of every preset and of random custom rule
//! sets, and fuzzing of the three parsers (notation, position string, rules file).

use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shax_core::{
    Action, Blocked, BoardKind, Color, FullBoard, Game, NoJare, PlacementLines, Position, Preset,
    Rules, Symmetry, Task,
};

fn presets() -> impl Strategy<Value = Rules> {
    prop::sample::select(Preset::ALL.to_vec()).prop_map(Rules::preset)
}

fn custom_rules() -> impl Strategy<Value = Rules> {
    (
        presets(),
        3u8..=12,
        any::<bool>(),
        prop::sample::select(vec![PlacementLines::Capture, PlacementLines::Record]),
        prop::sample::select(vec![
            FullBoard::JareRemovals,
            FullBoard::RemoveLastPlaced,
            FullBoard::Nothing,
        ]),
        prop::sample::select(vec![NoJare::Draw, NoJare::SecondPlayerRemovesFirst]),
        (
            any::<bool>(),
            1u8..=2,
            prop::sample::select(vec![0u8, 3, 4, 5, 12]),
        ),
        (any::<bool>(), any::<bool>(), 0u16..=4, 0u32..=60, 0u32..=30),
    )
        .prop_map(
            |(base, pieces, diag, pl, fb, nj, (mp, dm, fly), (freed, nr, rep, nrl, eg))| Rules {
                pieces,
                board: if diag {
                    BoardKind::Diagonal
                } else {
                    BoardKind::Plain
                },
                placement_lines: pl,
                full_board: fb,
                no_jare: nj,
                mill_protection: mp,
                double_mill_removals: dm,
                flying: fly,
                blocked: if freed {
                    Blocked::Freed
                } else {
                    Blocked::Loses
                },
                no_return: nr,
                repetition: rep,
                no_removal_limit: nrl,
                endgame_no_removal_turns: eg,
                max_actions: 400,
                ..base
            },
        )
}

fn sorted(mut v: Vec<Action>) -> Vec<Action> {
    v.sort();
    v
}

/// Plays a random game, checking every invariant at every position.
fn check_random_game(rules: Rules, seed: u64) -> Result<(), TestCaseError> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::new(rules);
    let sym = Symmetry::ALL[rng.random_range(0..16)];
    let support = rules.policy_support();
    loop {
        let pos = *game.position();
        // The incremental hash equals the hash recomputed from scratch.
        prop_assert_eq!(pos.incremental_hash(), pos.hash_from_scratch());
        // The position string round-trips exactly.
        let fen = pos.fen();
        let back = Position::from_fen(rules, &fen)
            .map_err(|e| TestCaseError::fail(format!("{fen}: {e}")))?;
        prop_assert_eq!(back, pos, "{}", fen);
        // Piece counts add up.
        for c in Color::BOTH {
            prop_assert!(pos.pieces(c) <= rules.pieces as u32);
            prop_assert!((pos.board(c) & pos.board(c.opponent())).is_empty());
        }
        prop_assert_eq!(
            pos.task() == Task::Place,
            pos.hand(pos.to_act()) > 0 && pos.removals_owed() == 0
        );

        let outcome = game.outcome();
        let legal = pos.legal_actions();
        prop_assert_eq!(pos.count_legal_actions() as usize, legal.len());
        prop_assert_eq!(pos.has_legal_action(), !legal.is_empty());
        if outcome.is_none() {
            prop_assert!(
                !legal.is_empty(),
                "an ongoing game always has an action: {}",
                fen
            );
        }
        // Policy indices of the legal actions are distinct, and within the
        // ones the rules can ever make legal.
        let mut idx: Vec<usize> = legal.iter().map(|a| a.policy_index()).collect();
        for (a, i) in legal.iter().zip(&idx) {
            prop_assert!(
                support.binary_search(i).is_ok(),
                "{} outside the support: {}",
                a,
                fen
            );
        }
        idx.sort();
        idx.dedup();
        prop_assert_eq!(idx.len(), legal.len());
        // Symmetry commutes with action generation.
        let image = sym.position(&pos);
        prop_assert_eq!(
            sorted(image.legal_actions().to_vec()),
            sorted(legal.iter().map(|&a| sym.action(a)).collect())
        );
        prop_assert_eq!(image.outcome(), pos.outcome());

        let Some(_) = outcome.is_none().then_some(()) else {
            break;
        };
        let a = legal[rng.random_range(0..legal.len())];
        // Every generated action plays legally, and so does its image.
        let before = [pos.pieces(Color::White), pos.pieces(Color::Black)];
        game.play(a)
            .map_err(|e| TestCaseError::fail(format!("{a} in {fen}: {e}")))?;
        let after = *game.position();
        let mut image_after = image;
        image_after
            .play(sym.action(a))
            .map_err(|e| TestCaseError::fail(format!("image of {a}: {e}")))?;
        prop_assert_eq!(image_after, sym.position(&after));
        // Only removals take pieces, one at a time (and the last placed piece
        // under remove-last-placed).
        let now = [after.pieces(Color::White), after.pieces(Color::Black)];
        let me = pos.to_act().index();
        match a {
            Action::Remove(_) => {
                prop_assert_eq!(now[me], before[me]);
                prop_assert_eq!(now[1 - me], before[1 - me] - 1);
            }
            Action::Place(_)
                if rules.full_board == FullBoard::RemoveLastPlaced
                    && pos.occupied().count() == 23
                    && !after.is_placing()
                    && after.removals_owed() == 0 =>
            {
                prop_assert_eq!(now[me], before[me] - 1);
            }
            _ => prop_assert_eq!(now, before),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_games_of_every_preset_keep_every_invariant(rules in presets(), seed in any::<u64>()) {
        check_random_game(rules, seed)?;
    }

    #[test]
    fn random_games_of_custom_rules_keep_every_invariant(rules in custom_rules(), seed in any::<u64>()) {
        prop_assert!(rules.validate().is_ok());
        prop_assert_eq!(Rules::from_toml(&rules.to_toml()).unwrap(), rules);
        check_random_game(rules, seed)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn notation_parser_never_panics(s in "\\PC{0,12}") {
        if let Ok(a) = s.parse::<Action>() {
            prop_assert_eq!(a.to_string().parse::<Action>().unwrap(), a);
        }
    }

    #[test]
    fn notation_parser_on_near_misses(s in "[a-hxX]?[a-h0-9]{0,2}-?[a-h0-9]{0,2}") {
        let _ = s.parse::<Action>();
    }

    #[test]
    fn position_string_parser_never_panics(rules in presets(), s in "\\PC{0,80}") {
        let _ = Position::from_fen(rules, &s);
    }

    #[test]
    fn position_string_parser_on_mutated_strings(
        rules in presets(),
        seed in any::<u64>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), "[WB./ 0-9a-gwbx+,-]"), 1..4),
    ) {
        // Start from a real position, then damage it.
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut pos = Position::new(rules);
        for _ in 0..rng.random_range(0..80) {
            if pos.outcome().is_some() { break; }
            let legal = pos.legal_actions();
            pos.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
        let mut chars: Vec<char> = pos.fen().chars().collect();
        for (i, c) in edits {
            let at = i.index(chars.len());
            chars[at] = c.chars().next().unwrap();
        }
        let text: String = chars.into_iter().collect();
        if let Ok(p) = Position::from_fen(rules, &text) {
            // Whatever parses is a position the core can work with.
            let _ = p.outcome();
            for a in p.legal_actions().iter() {
                let mut q = p;
                q.play_unchecked(*a);
                let _ = q.outcome();
            }
            prop_assert_eq!(Position::from_fen(rules, &p.fen()).unwrap(), p);
        }
    }

    #[test]
    fn rules_file_parser_never_panics(s in "\\PC{0,60}") {
        let _ = Rules::from_toml(&s);
    }

    #[test]
    fn rules_file_parser_on_near_misses(
        key in prop::sample::select(vec![
            "pieces", "board", "placement_lines", "full_board", "no_jare", "mill_protection",
            "double_mill_removals", "flying", "blocked", "no_return", "repetition",
            "no_removal_limit", "endgame_no_removal_turns", "max_actions", "colour",
        ]),
        value in prop::sample::select(vec![
            "0", "1", "2", "3", "12", "13", "-1", "99999", "100000", "1000000000", "1000000001",
            "true", "\"plain\"", "\"diagonal\"", "\"capture\"", "\"record\"", "\"nothing\"",
            "\"freed\"", "\"loses\"", "\"draw\"", "1.5", "[1]",
        ]),
    ) {
        let text = format!("preset = \"shax\"\n{key} = {value}\n");
        match Rules::from_toml(&text) {
            Ok(r) => prop_assert!(r.validate().is_ok()),
            Err(e) => prop_assert!(e.to_string().contains(key), "{} -> {}", text, e),
        }
    }
}

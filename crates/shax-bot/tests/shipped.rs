//! The tiers shipped in `checkpoints/`: every preset has a manifest that
//! parses, and every tier of it loads and plays a legal game to the end.

use shax_bot::{Bot, BotError, find_manifest};
use shax_core::{Color, Game, Preset, Rules};

/// Plays `tier` as White against `random` to the end; the number of actions.
fn play_a_game(rules: Rules, tier: &str, seed: u64) -> usize {
    let mut bot = Bot::from_tier(&rules, tier)
        .unwrap_or_else(|e| panic!("{} {tier}: {e}", rules.name()))
        .with_seed(seed);
    let mut random = Bot::from_spec(&rules, "random").unwrap().with_seed(seed);
    let mut game = Game::new(rules);
    while game.outcome().is_none() {
        let mover = if game.position().to_act() == Color::White {
            &mut bot
        } else {
            &mut random
        };
        let a = mover
            .choose_in_game(&game)
            .expect("an action in an ongoing game");
        game.play(a)
            .unwrap_or_else(|e| panic!("{} {tier}: {e}", rules.name()));
    }
    game.len()
}

#[test]
fn every_shipped_tier_loads_and_plays_legal_games() {
    // Every preset ships tiers.
    for preset in Preset::ALL {
        let rules = Rules::preset(preset);
        let (_, manifest) =
            find_manifest(&rules).unwrap_or_else(|e| panic!("{}: {e}", rules.name()));
        assert_eq!(manifest.rules, rules.name());
        assert!(
            manifest.tiers.len() >= 3,
            "{}: at least three tiers",
            rules.name()
        );
        for (i, tier) in manifest.tiers.iter().enumerate() {
            let actions = play_a_game(rules, &tier.name, i as u64);
            assert!(
                actions >= 2 * rules.pieces as usize,
                "{}: a whole game",
                tier.name
            );
        }
    }
}

#[test]
fn rules_without_tiers_name_the_rule_sets_that_have_them() {
    // A preset with one option changed is other rules: no shipped tiers fit it.
    let rules = Rules {
        flying: 0,
        ..Rules::preset(Preset::NineMensMorris)
    };
    let Err(e) = Bot::from_tier(&rules, "beginner") else {
        panic!("tiers for {}", rules.name());
    };
    let msg = e.to_string();
    assert!(matches!(e, BotError::NoTiers { .. }), "{msg}");
    assert!(msg.contains("'nine-mens-morris+custom'"), "{msg}");
    assert!(
        msg.contains("rule sets with tiers: shax, shax-flying, nine-mens-morris, morabaraba"),
        "{msg}"
    );
}

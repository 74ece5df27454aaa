//! The tiers shipped in `checkpoints/`: every manifest parses, and every tier
//! loads and plays a legal game to the end.

use shax_bot::{Bot, TIERS, find_manifest};
use shax_core::{Color, Game, Preset, Rules};

#[test]
fn shipped_shax_tiers_load_and_play_legal_games() {
    let rules = Rules::preset(Preset::Shax);
    let (path, manifest) = find_manifest(&rules).expect("checkpoints/shax/tiers.toml is shipped");
    assert_eq!(manifest.tiers.len(), TIERS.len(), "{}", path.display());
    for (i, tier) in TIERS.iter().enumerate() {
        let mut bot = Bot::from_tier(&rules, tier).unwrap().with_seed(i as u64);
        let mut random = Bot::from_spec(&rules, "random")
            .unwrap()
            .with_seed(i as u64);
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
            game.play(a).unwrap_or_else(|e| panic!("{tier}: {e}"));
        }
        assert!(game.len() >= 24, "{tier}: a whole game was played");
    }
}

//! What this crate's unit tests share.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shax_core::{Game, Rules};

/// A finished game of uniformly random actions under `rules`, the same for
/// the same `seed`.
pub(crate) fn random_game(rules: Rules, seed: u64) -> Game {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = Game::new(rules);
    while game.outcome().is_none() {
        let legal = game.legal_actions();
        game.play(legal[rng.random_range(0..legal.len())]).unwrap();
    }
    game
}

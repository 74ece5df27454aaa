//! Helpers shared by the unit tests.

use shax_core::{Position, Preset, Rules};

/// Positions of a few random games of `preset`, every one of them.
pub(crate) fn random_positions(preset: Preset, games: u64) -> Vec<Position> {
    use rand::{Rng, SeedableRng, rngs::SmallRng};
    let mut out = Vec::new();
    for seed in 0..games {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut p = Position::new(Rules::preset(preset));
        for _ in 0..120 {
            let acts = p.legal_actions();
            if acts.is_empty() {
                break;
            }
            out.push(p);
            p.play_unchecked(acts[rng.random_range(0..acts.len())]);
        }
    }
    out
}

//! `random`: uniform over the legal actions.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shax_core::{Action, KeyHistory, Position};

use crate::player::{Limits, Player, mix_seed};
use crate::spec::{PlayerSpec, SEED, SpecError};

/// Chooses uniformly among the legal actions.
#[derive(Clone, Debug, Default)]
pub struct RandomPlayer {
    seed: Option<u64>,
}

impl RandomPlayer {
    /// A random player; `seed` is mixed into every decision's seed.
    pub fn new(seed: Option<u64>) -> RandomPlayer {
        RandomPlayer { seed }
    }

    /// From a `random[:seed=S]` spec.
    ///
    /// # Errors
    ///
    /// [`SpecError`] for arguments or unknown parameters.
    pub fn from_spec(spec: &PlayerSpec) -> Result<RandomPlayer, SpecError> {
        spec.check_no_args()?;
        spec.check_params(&[SEED.key])?;
        Ok(RandomPlayer::new(spec.get(SEED)?))
    }
}

impl Player for RandomPlayer {
    fn spec(&self) -> String {
        match self.seed {
            Some(s) => format!("random:seed={s}"),
            None => "random".to_string(),
        }
    }

    fn choose(
        &mut self,
        pos: &Position,
        history: &KeyHistory,
        _limits: &Limits,
        seed: u64,
    ) -> Option<Action> {
        if history.outcome(pos).is_some() {
            return None;
        }
        let actions = pos.legal_actions();
        if actions.is_empty() {
            return None;
        }
        let mut rng = SmallRng::seed_from_u64(mix_seed(seed, self.seed.unwrap_or(0)));
        Some(actions[rng.random_range(0..actions.len())])
    }
}

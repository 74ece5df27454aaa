//! The weakest tier's checks in `shax tiers`: full matches against `random`
//! and `--beginner-below`.

use super::refine::Tally;
use super::{Played, TiersConfig, TiersError};

/// A full match of the weakest tier against a bound of its strength.
#[derive(Clone, Debug, PartialEq)]
pub struct BeginnerCheck {
    /// The opponent: `random`, or `--beginner-below`.
    pub against: String,
    /// The weakest tier's games against it.
    pub tally: Tally,
    /// What its score must do.
    pub need: Need,
}

/// The bound a [`BeginnerCheck`] puts on the weakest tier's score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Need {
    /// At least this score (against `random`: `--beginner-floor`).
    AtLeast(f64),
    /// Under this score (against `--beginner-below`: 0.5).
    Below(f64),
}

impl BeginnerCheck {
    /// Whether the score meets [`Self::need`].
    pub fn passed(&self) -> bool {
        match self.need {
            Need::AtLeast(s) => self.tally.score() >= s,
            Need::Below(s) => self.tally.score() < s,
        }
    }
}

impl std::fmt::Display for BeginnerCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = &self.tally;
        let (need, bound) = match self.need {
            Need::AtLeast(s) => ("at least", s),
            Need::Below(s) => ("under", s),
        };
        write!(
            f,
            "beginner vs {}: {:.1}% ({}-{}-{}), needs {need} {:.0}%: {}",
            self.against,
            100.0 * t.score(),
            t.wins,
            t.draws,
            t.games - t.wins - t.draws,
            100.0 * bound,
            if self.passed() { "passed" } else { "FAILED" }
        )
    }
}

/// The weakest tier's checks, each a full match (`play(opponent, games,
/// salt)`): at least `--beginner-floor` against `random`, and under 50%
/// against `--beginner-below` when there is one. The ladder only rates
/// players: a few games against `random` cannot tell 85% from 100%.
pub(super) fn check_beginner(
    cfg: &TiersConfig,
    play: &mut dyn FnMut(&str, u32, u64) -> Played,
) -> Result<Vec<BeginnerCheck>, TiersError> {
    let mut bounds = vec![("random".to_string(), Need::AtLeast(cfg.beginner_floor))];
    if let Some(below) = &cfg.beginner_below {
        bounds.push((below.clone(), Need::Below(0.5)));
    }
    let mut checks = Vec::new();
    for (i, (against, need)) in bounds.into_iter().enumerate() {
        let tally = play(&against, cfg.games, 0xc4ec_0000 + i as u64)?;
        checks.push(BeginnerCheck {
            against,
            tally,
            need,
        });
    }
    Ok(checks)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use shax_bot::TIERS;
    use shax_core::Rules;

    use super::*;

    fn config(floor: f64, below: Option<&str>) -> TiersConfig {
        TiersConfig {
            rules: Rules::load("shax").unwrap(),
            tiers: TIERS.iter().map(|t| t.to_string()).collect(),
            candidates: Vec::new(),
            checkpoints: 1,
            sims: vec![1],
            temps: vec![0.0],
            classic: Vec::new(),
            beginner_below: below.map(str::to_string),
            master: None,
            beginner_floor: floor,
            band: (0.6, 0.85),
            screen_games: 40,
            tries: 6,
            ladder_games: 4,
            games: 200,
            threads: 1,
            games_in_flight: 1,
            seed: 0,
            out: PathBuf::from("tiers.toml"),
            accept_out_of_band: false,
        }
    }

    #[test]
    fn beginner_is_checked_by_full_matches_against_random_and_its_bound() {
        // The beginner scores 88% against random and 45% against depth 2.
        fn play(b: &str, games: u32, _: u64) -> Played {
            let wins = u64::from(games) * if b == "random" { 88 } else { 45 } / 100;
            Ok(Tally {
                games: games.into(),
                wins,
                draws: 0,
            })
        }
        let mut opponents = Vec::new();
        let mut seen = |b: &str, games: u32, salt: u64| {
            opponents.push((b.to_string(), games));
            play(b, games, salt)
        };
        let checks = check_beginner(&config(0.85, Some("alphabeta:depth=2")), &mut seen).unwrap();
        assert_eq!(
            opponents,
            [
                ("random".to_string(), 200),
                ("alphabeta:depth=2".to_string(), 200)
            ]
        );
        assert!(checks.iter().all(BeginnerCheck::passed), "{checks:?}");
        assert!(
            checks[1]
                .to_string()
                .contains("45.0% (90-0-110), needs under 50%: passed")
        );
        // A higher floor fails the same player; without a bound, only random.
        let checks = check_beginner(&config(0.9, None), &mut play).unwrap();
        assert_eq!(checks.len(), 1);
        assert!(!checks[0].passed());
        assert!(checks[0].to_string().contains("needs at least 90%: FAILED"));
        // Half the games against the bound is not under it.
        let even = |_: &str, games: u32, _: u64| -> Played {
            Ok(Tally {
                games: games.into(),
                wins: 0,
                draws: games.into(),
            })
        };
        let checks = check_beginner(&config(0.0, Some("greedy")), &mut { even }).unwrap();
        assert!(checks[0].passed() && !checks[1].passed(), "{checks:?}");
    }
}

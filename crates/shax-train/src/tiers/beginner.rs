//! The weakest tier's checks in `shax tiers`: full matches against `random`
//! and `--beginner-below`, and another candidate in its place when it fails
//! one.

use super::refine::{Matches, Refine, Tally, highest_below, miss, say_match};
use super::{Played, TiersConfig, TiersError};

/// What settling the weakest tier asks of the world beyond [`Matches`].
pub(super) trait Checks: Matches {
    /// Pool position `p` against any player (`against`, a spec): its tally.
    fn play_against(&mut self, p: usize, against: &str, games: u32, salt: u64) -> Played;
}

/// The weakest tier's checks (see [`check_beginner`]). When one fails, the
/// other candidates allowed under the tier above it are tried, nearest
/// first, towards the bound it missed (stronger after a miss against
/// `random`, weaker after one against `--beginner-below`), up to
/// `r.tries`: the first that passes every check and scores in the band
/// under the tier above (a full match) takes its place (`chosen[0]`, and
/// `out[1]`, the tier above's match against it). Returns the checks of the
/// weakest tier kept.
pub(super) fn settle_beginner(
    cfg: &TiersConfig,
    r: &Refine,
    chosen: &mut [usize],
    out: &mut [Option<Tally>],
    w: &mut dyn Checks,
) -> Result<Vec<BeginnerCheck>, TiersError> {
    let checks = checks_of(cfg, chosen[0], w)?;
    let Some(failed) = checks.iter().find(|c| !c.passed()) else {
        return Ok(checks);
    };
    let others: Vec<usize> = match failed.need {
        Need::AtLeast(_) => (chosen[0] + 1..=highest_below(1, chosen, r)).collect(),
        Need::Below(_) => (0..chosen[0]).rev().collect(),
    };
    if others.is_empty() {
        w.line(&format!(
            "  {failed}; {}",
            none_to_try(failed.need, &r.names, cfg.beginner_below.is_some())
        ));
        return Ok(checks);
    }
    w.line(&format!("  {failed}; other candidates are tried"));
    for q in others.into_iter().take(r.tries as usize) {
        let tried = checks_of(cfg, q, w)?;
        for c in &tried {
            w.line(&format!("  candidate {q}: {c}"));
        }
        if !tried.iter().all(BeginnerCheck::passed) {
            continue;
        }
        let under = w.play((chosen[1], q), r.games, 0xbe61_0000 ^ q as u64)?;
        say_match(1, q, under, r, w);
        if miss(under.score(), r.band) == 0.0 {
            chosen[0] = q;
            out[1] = Some(under);
            return Ok(tried);
        }
    }
    w.line(&format!(
        "  no other candidate passes: {} stays",
        r.names[0]
    ));
    Ok(checks)
}

/// Why no candidate can replace a beginner that failed a check of `need`,
/// and which flag would let one in (`bounded`: there is a
/// `--beginner-below`).
fn none_to_try(need: Need, names: &[String], bounded: bool) -> String {
    let below = if bounded { " and --beginner-below" } else { "" };
    match need {
        Need::AtLeast(_) => format!(
            "no stronger candidate fits under {}{below}: {} stays \
             (add checkpoints, sims or temps between them)",
            names[1], names[0]
        ),
        Need::Below(_) => format!(
            "no weaker candidate is rated at or above --beginner-floor against random: \
             {} stays (a lower --beginner-floor lets weaker candidates in)",
            names[0]
        ),
    }
}

/// Pool position `p`'s checks, played through `w`.
fn checks_of(
    cfg: &TiersConfig,
    p: usize,
    w: &mut dyn Checks,
) -> Result<Vec<BeginnerCheck>, TiersError> {
    check_beginner(cfg, &mut |against, games, salt| {
        w.play_against(p, against, games, salt)
    })
}

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
    use crate::tiers::refine::Matches;

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

    /// Pool positions of true strengths `elo`, `random` at 0 and the bound
    /// at `bound`: every match the expected score, rounded to whole games.
    struct World {
        elo: Vec<f64>,
        bound: f64,
        games: u64,
        lines: Vec<String>,
    }

    impl World {
        fn expected(&mut self, a: f64, b: f64, games: u32) -> Played {
            self.games += u64::from(games);
            let e = 1.0 / (1.0 + 10f64.powf((b - a) / 400.0));
            Ok(Tally {
                games: games.into(),
                wins: (e * f64::from(games)).round() as u64,
                draws: 0,
            })
        }
    }

    impl Matches for World {
        fn play(&mut self, (upper, lower): (usize, usize), games: u32, _: u64) -> Played {
            self.expected(self.elo[upper], self.elo[lower], games)
        }

        fn line(&mut self, line: &str) {
            self.lines.push(line.to_string());
        }
    }

    impl Checks for World {
        fn play_against(&mut self, p: usize, against: &str, games: u32, _: u64) -> Played {
            let b = if against == "random" { 0.0 } else { self.bound };
            self.expected(self.elo[p], b, games)
        }
    }

    /// `beginner` at `chosen[0]` under easy at `chosen[1]`, settled in a
    /// 60-85% band with a floor of 85% against random and a bound at 500:
    /// the beginner kept, easy's score over it, the checks' verdicts, the
    /// games played and the lines said.
    fn settle(elo: &[f64], mut chosen: [usize; 2]) -> (usize, f64, Vec<bool>, u64, Vec<String>) {
        let cfg = config(0.85, Some("alphabeta:depth=2"));
        let r = Refine {
            band: (0.6, 0.85),
            screen: 40,
            games: 200,
            tries: 6,
            bottom_end: elo.iter().filter(|&&e| e < 500.0).count(),
            names: TIERS.iter().map(|t| t.to_string()).collect(),
        };
        let mut w = World {
            elo: elo.to_vec(),
            bound: 500.0,
            games: 0,
            lines: Vec::new(),
        };
        let mut out = vec![None, Some(w.play((chosen[1], chosen[0]), 200, 0).unwrap())];
        w.games = 0;
        let checks = settle_beginner(&cfg, &r, &mut chosen, &mut out, &mut w).unwrap();
        let passed = checks.iter().map(BeginnerCheck::passed).collect();
        (chosen[0], out[1].unwrap().score(), passed, w.games, w.lines)
    }

    #[test]
    fn a_beginner_that_fails_a_check_gives_way_to_one_that_passes() {
        // Too weak for random (64%): 280 is too (83%); 380 passes both
        // checks but easy (700) scores 86% over it; 460 fits (easy 80%).
        let (kept, easy, passed, ..) = settle(&[100.0, 280.0, 380.0, 460.0, 700.0], [0, 4]);
        assert_eq!((kept, passed), (3, vec![true, true]));
        assert!((easy - 0.8).abs() < 0.01, "{easy}");
        // Not under the bound (520 against 500): the nearest weaker, 460, fits.
        let (kept, _, passed, ..) = settle(&[100.0, 300.0, 460.0, 520.0, 700.0], [3, 4]);
        assert_eq!((kept, passed), (2, vec![true, true]));
        // None fits: the beginner stays, and its failed check is reported.
        let (kept, _, passed, ..) = settle(&[100.0, 280.0, 380.0, 700.0], [0, 3]);
        assert_eq!((kept, passed), (0, vec![false, true]));
        // A beginner that passes plays its two checks and nothing more.
        let (kept, _, passed, games, _) = settle(&[100.0, 280.0, 460.0, 700.0], [2, 3]);
        assert_eq!((kept, passed, games), (2, vec![true, true], 400));
    }

    #[test]
    fn a_beginner_with_no_candidate_to_try_says_which_flag_lets_one_in() {
        // The weakest candidate the floor allows is too strong for the bound
        // (520 against 500): nothing weaker is in the pool to try.
        let (kept, _, passed, games, lines) = settle(&[520.0, 700.0], [0, 1]);
        assert_eq!((kept, passed, games), (0, vec![true, false], 400));
        let said = lines.join("\n");
        assert!(said.contains("lower --beginner-floor"), "{said}");
        assert!(!said.contains("are tried"), "{said}");
        // Too weak for random (64%) with nothing between it and easy.
        let (kept, _, passed, games, lines) = settle(&[100.0, 700.0], [0, 1]);
        assert_eq!((kept, passed, games), (0, vec![false, true], 400));
        let said = lines.join("\n");
        assert!(
            said.contains("no stronger candidate fits under easy"),
            "{said}"
        );
    }
}

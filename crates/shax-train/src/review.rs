//! Game review: a searching player scores every position of a recorded game,
//! and each action's cost is how far the mover's score fell across it (the
//! score before the action against the score of the position it led to, both
//! from the mover's view). Large costs are the actions the reviewer would not
//! have played: where a game was lost.

use serde::Serialize;
use shax_core::{Color, Game};
use shax_search::{Limits, Player, WIN, mix_seed};

use crate::record::{GameRecord, RecordError};

/// One action of a reviewed game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ActionReview {
    /// Index in the whole game (opening included), from 0.
    pub ply: usize,
    /// `white` or `black`.
    pub mover: &'static str,
    /// The action in notation.
    pub action: String,
    /// Part of the random opening rather than a player's choice.
    pub opening: bool,
    /// The reviewer's score of the position before the action, mover's view.
    pub before: i32,
    /// The reviewer's score of the position after it, mover's view
    /// (`shax_search::WIN`, 0 or its negation where the action ended the game).
    pub after: i32,
    /// `before - after`, at least 0; 0 where the action is the reviewer's
    /// own choice (the two searches' horizons differ, the choice does not).
    pub cost: i32,
    /// The action the reviewer chose in the position before.
    pub best: String,
}

/// A reviewed game: its players and result, and every action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameReview {
    /// White's player spec.
    pub white: String,
    /// Black's player spec.
    pub black: String,
    /// `white`, `black` or `none`.
    pub winner: String,
    /// Why the game ended.
    pub reason: String,
    /// Every action, in order.
    pub actions: Vec<ActionReview>,
}

impl ActionReview {
    /// Sets `after` and `cost` from the score of the position the action led
    /// to, `score` from the view of `next` (the side to act there).
    fn settle(&mut self, score: i32, next: Color) {
        self.after = if next.name() == self.mover {
            score
        } else {
            -score
        };
        // The reviewer's own choice costs nothing: the two searches' horizons
        // differ, the choice does not.
        self.cost = if self.action == self.best {
            0
        } else {
            (self.before - self.after).max(0)
        };
    }
}

impl GameReview {
    /// The players' actions (not the opening's) of `color` costing at least
    /// `drop`, costliest first.
    pub fn mistakes(&self, color: Color, drop: i32) -> Vec<&ActionReview> {
        let mut m: Vec<&ActionReview> = self
            .actions
            .iter()
            .filter(|a| !a.opening && a.mover == color.name() && a.cost >= drop)
            .collect();
        m.sort_by_key(|a| (std::cmp::Reverse(a.cost), a.ply));
        m
    }
}

/// Why a game could not be reviewed.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// The record does not replay.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// The reviewer reports no score (it does not search: `random`, `greedy`).
    #[error(
        "'{0}' reports no score for a position; review with a searching player (alphabeta, mcts, net)"
    )]
    NoScore(String),
}

/// Reviews `record` with `reviewer` at its own budget (or `limits`' override);
/// `seed` makes the reviewer's choices repeatable.
///
/// # Errors
///
/// [`ReviewError`]: the record does not replay, or the reviewer gives no score.
pub fn review_game(
    record: &GameRecord,
    reviewer: &mut dyn Player,
    limits: &Limits,
    seed: u64,
) -> Result<GameReview, ReviewError> {
    let played = record.replay()?;
    reviewer.reset();
    let mut game = Game::from_position(*played.start());
    let mut actions: Vec<ActionReview> = Vec::with_capacity(played.len());
    for (ply, &action) in played.actions().iter().enumerate() {
        let (before, best) = score_of(&game, reviewer, limits, seed)?;
        let mover = game.position().to_act();
        if let Some(last) = actions.last_mut() {
            last.settle(before, mover);
        }
        actions.push(ActionReview {
            ply,
            mover: mover.name(),
            action: action.to_string(),
            opening: ply < record.opening.len(),
            before,
            after: 0,
            cost: 0,
            best,
        });
        game.play(action).expect("a replayed action is legal");
    }
    // The end: a result, or (an unfinished record) the last position's score,
    // both from the view of the side to act there.
    if let Some(last) = actions.last_mut() {
        let next = game.position().to_act();
        let score = match game.outcome() {
            Some(o) => o.winner.map_or(0, |w| if w == next { WIN } else { -WIN }),
            None => score_of(&game, reviewer, limits, seed)?.0,
        };
        last.settle(score, next);
    }
    Ok(GameReview {
        white: record.white.clone(),
        black: record.black.clone(),
        winner: record.winner.clone(),
        reason: record.reason.clone(),
        actions,
    })
}

/// The reviewer's score of the game's position (its mover's view) and its choice.
fn score_of(
    game: &Game,
    reviewer: &mut dyn Player,
    limits: &Limits,
    seed: u64,
) -> Result<(i32, String), ReviewError> {
    let seed = mix_seed(seed, game.len() as u64);
    let best = reviewer.choose_in_game(game, limits, seed);
    match (best, reviewer.info()) {
        (Some(best), Some(info)) => Ok((info.score, best.to_string())),
        _ => Err(ReviewError::NoScore(reviewer.spec())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::{ArenaConfig, run_arena};
    use shax_core::{Preset, Rules};
    use shax_search::{Registry, build_player};

    /// Two games of Nine Men's Morris between `a` and `b`, one with each colour.
    fn records(a: &str, b: &str) -> Vec<GameRecord> {
        let cfg = ArenaConfig {
            games: 2,
            seed: 5,
            ..ArenaConfig::new(Rules::preset(Preset::NineMensMorris), a, b)
        };
        run_arena(&cfg, &Registry::classic()).unwrap().records
    }

    #[test]
    fn each_action_is_scored_before_and_after_from_its_movers_view() {
        let record = &records("alphabeta:depth=2", "random")[0];
        let mut reviewer = build_player("alphabeta:depth=2").unwrap();
        let r = review_game(record, reviewer.as_mut(), &Limits::NONE, 1).unwrap();
        let n = record.opening.len() + record.actions.len();
        assert_eq!(r.actions.len(), n);
        assert!(r.actions[..record.opening.len()].iter().all(|a| a.opening));
        for pair in r.actions.windows(2) {
            let (a, next) = (&pair[0], &pair[1]);
            let want = if a.mover == next.mover {
                next.before
            } else {
                -next.before
            };
            assert_eq!(a.after, want, "ply {}", a.ply);
            let cost = if a.action == a.best {
                0
            } else {
                (a.before - a.after).max(0)
            };
            assert_eq!(a.cost, cost, "ply {}", a.ply);
        }
        // Removals: the same side acts twice running, and keeps its view.
        assert!(r.actions.windows(2).any(|w| w[0].mover == w[1].mover));
        // The last action won the game: the winner's score after it is a win.
        let last = r.actions.last().unwrap();
        assert_eq!(last.mover, r.winner);
        assert_eq!(last.after, WIN);
    }

    #[test]
    fn the_random_side_makes_the_costly_mistakes() {
        let mut reviewer = build_player("alphabeta:depth=3").unwrap();
        for record in records("alphabeta:depth=3", "random") {
            let r = review_game(&record, reviewer.as_mut(), &Limits::NONE, 1).unwrap();
            let random = if record.white == "random" {
                Color::White
            } else {
                Color::Black
            };
            let cost = |c: Color| -> i32 { r.mistakes(c, 1).iter().map(|a| a.cost).sum() };
            assert!(
                cost(random) > 3 * cost(random.opponent()).max(100),
                "random {} vs alpha-beta {}",
                cost(random),
                cost(random.opponent())
            );
            let m = r.mistakes(random, 100);
            assert!(!m.is_empty() && m.windows(2).all(|w| w[0].cost >= w[1].cost));
            assert!(m.iter().all(|a| !a.opening && a.mover == random.name()));
        }
    }

    #[test]
    fn a_reviewer_without_a_score_or_a_broken_record_is_refused() {
        let record = records("greedy", "random").remove(0);
        let mut random = build_player("random").unwrap();
        let e = review_game(&record, random.as_mut(), &Limits::NONE, 1).unwrap_err();
        assert!(e.to_string().contains("'random' reports no score"), "{e}");
        let mut broken = record.clone();
        broken.actions[0] = "z9".to_string();
        let mut ab = build_player("alphabeta:depth=1").unwrap();
        let e = review_game(&broken, ab.as_mut(), &Limits::NONE, 1).unwrap_err();
        assert!(e.to_string().contains("'z9'"), "{e}");
    }
}

//! Matches and ladders end to end.
//!
//! - `arena_*`: results, colours, records that replay, thread-count independence, errors,
//!   games in flight with pooled network calls.
//! - `openings_*`: distinct random openings.
//! - `ladder_*`: a small round robin and its anchor.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use shax_core::{Position, Preset, Rules};
use shax_search::{Evaluator, HashedEvaluator, NeuralPlayer, PuctConfig, Registry};
use shax_train::{ArenaConfig, ArenaError, LadderConfig, openings, run_arena, run_ladder};

fn nmm() -> Rules {
    Rules::preset(Preset::NineMensMorris)
}

#[test]
fn arena_counts_add_up_and_records_replay() {
    let cfg = ArenaConfig {
        games: 10,
        threads: 2,
        seed: 7,
        ..ArenaConfig::new(nmm(), "greedy", "random")
    };
    let r = run_arena(&cfg, &Registry::classic()).unwrap();
    assert_eq!(r.tally.games, 10);
    assert_eq!(r.tally.a_wins + r.tally.b_wins + r.tally.draws, 10);
    assert_eq!(r.tally.a_white.games, 5);
    assert_eq!(r.tally.a_black.games, 5);
    assert_eq!(r.tally.a_white.wins + r.tally.a_black.wins, r.tally.a_wins);
    assert!((0.0..=1.0).contains(&r.tally.score));
    assert!(r.tally.elo_low <= r.tally.elo && r.tally.elo <= r.tally.elo_high);
    for (i, rec) in r.records.iter().enumerate() {
        rec.replay().unwrap();
        assert_eq!(rec.opening.len(), 4);
        let (w, b) = if i % 2 == 0 {
            ("greedy", "random")
        } else {
            ("random", "greedy")
        };
        assert_eq!((rec.white.as_str(), rec.black.as_str()), (w, b));
        // The record survives a JSON round trip.
        let line = serde_json::to_string(rec).unwrap();
        assert!(line.starts_with("{\"version\":1,"));
        let back: shax_train::GameRecord = serde_json::from_str(&line).unwrap();
        assert_eq!(&back, rec);
    }
    // Each opening is played once with each colour.
    assert_eq!(r.records[0].opening, r.records[1].opening);
    assert_ne!(r.records[0].opening, r.records[2].opening);
}

#[test]
fn arena_results_do_not_depend_on_threads() {
    let run = |threads| {
        let cfg = ArenaConfig {
            games: 6,
            threads,
            seed: 3,
            ..ArenaConfig::new(Rules::default(), "mcts:sims=20", "alphabeta:depth=1")
        };
        run_arena(&cfg, &Registry::classic()).unwrap().records
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn arena_rejects_bad_input_before_playing() {
    let reg = Registry::classic();
    let base = ArenaConfig::new(nmm(), "random", "random");
    let zero = ArenaConfig {
        games: 0,
        ..base.clone()
    };
    assert!(matches!(run_arena(&zero, &reg), Err(ArenaError::ZeroGames)));
    let bad = ArenaConfig {
        b: "alphabeta:depth=0".into(),
        ..base.clone()
    };
    let e = run_arena(&bad, &reg).unwrap_err().to_string();
    assert!(e.contains("player B") && e.contains("depth"), "{e}");
    let unknown = ArenaConfig {
        a: "deep-blue".into(),
        ..base.clone()
    };
    assert!(
        run_arena(&unknown, &reg)
            .unwrap_err()
            .to_string()
            .contains("deep-blue")
    );
    let opening = ArenaConfig {
        opening_plies: 99,
        ..base
    };
    assert!(matches!(
        run_arena(&opening, &reg),
        Err(ArenaError::Opening(99))
    ));
    let none_in_flight = ArenaConfig {
        games_in_flight: 0,
        ..ArenaConfig::new(nmm(), "random", "random")
    };
    assert!(matches!(
        run_arena(&none_in_flight, &reg),
        Err(ArenaError::InFlight(0))
    ));
}

/// A network stand-in whose values are `scale` times the hashed ones: two
/// scales are two different networks.
struct Scaled {
    inner: HashedEvaluator,
    scale: f32,
}

impl Evaluator for Scaled {
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        self.inner.evaluate(positions, logits, values);
        values.iter_mut().for_each(|v| *v *= self.scale);
    }
}

/// The classic players and two network players, `hashed` and `damped`
/// (different networks), at one leaf per call, counting their calls.
fn with_networks(calls: &HashedEvaluator) -> Registry {
    let mut reg = Registry::classic();
    for (kind, scale) in [("hashed", 1.0), ("damped", 0.3)] {
        let inner = calls.clone();
        reg.register(
            kind,
            "a network stand-in",
            Arc::new(move |spec| {
                let config = PuctConfig {
                    simulations: 24,
                    leaves_per_batch: 1,
                    ..PuctConfig::default()
                };
                let evaluator = Scaled {
                    inner: inner.clone(),
                    scale,
                };
                let player = NeuralPlayer::new(spec.to_string(), config, Box::new(evaluator));
                Ok(Box::new(player.with_network(kind)))
            }),
        );
    }
    reg
}

/// Games in flight with pooled network calls play the games one game at a
/// time plays (the stand-ins answer alike in any batch), each network's
/// leaves in their own calls, and in under half the calls (one a round per
/// network, where alone each search makes one a simulation).
#[test]
fn arena_games_in_flight_play_the_same_games_in_fewer_calls() {
    for (a, b) in [
        ("hashed", "alphabeta:depth=1"),
        ("hashed", "hashed"),
        ("hashed", "damped"),
    ] {
        let run = |games_in_flight| {
            let calls = HashedEvaluator::default();
            let cfg = ArenaConfig {
                games: 12,
                threads: 2,
                seed: 5,
                games_in_flight,
                ..ArenaConfig::new(Rules::default(), a, b)
            };
            let r = run_arena(&cfg, &with_networks(&calls)).unwrap();
            (r.records, calls.calls.load(Ordering::Relaxed))
        };
        let (alone, alone_calls) = run(1);
        let (pooled, pooled_calls) = run(6);
        assert_eq!(alone, pooled, "{a} vs {b}");
        assert!(
            2 * pooled_calls < alone_calls,
            "{a} vs {b}: {pooled_calls} calls pooled, {alone_calls} alone"
        );
    }
}

#[test]
fn openings_are_distinct_and_reproducible() {
    let a = openings(Rules::default(), 200, 4, 1);
    assert_eq!(a, openings(Rules::default(), 200, 4, 1));
    let set: std::collections::HashSet<_> = a.iter().collect();
    assert_eq!(set.len(), 200);
    assert!(a.iter().all(|o| o.len() == 4));
    // Nothing to vary: empty openings, repeated.
    assert!(
        openings(Rules::default(), 3, 0, 1)
            .iter()
            .all(|o| o.is_empty())
    );
}

#[test]
fn ladder_rates_everyone_with_random_at_zero() {
    let cfg = LadderConfig {
        games_per_pair: 6,
        threads: 2,
        ..LadderConfig::new(nmm(), &["greedy", "random", "alphabeta:depth=1"])
    };
    let r = run_ladder(&cfg, &Registry::classic()).unwrap();
    assert_eq!(r.anchor, "random");
    assert_eq!(r.pairs.len(), 3);
    assert_eq!(r.records.len(), 18);
    let random = r.ratings.iter().find(|x| x.player == "random").unwrap();
    assert_eq!(random.elo, 0.0);
    assert!(
        r.ratings
            .iter()
            .all(|x| x.elo.is_finite() && x.elo_low <= x.elo_high)
    );
    assert!(r.ratings[0].elo >= r.ratings[2].elo);
    let few = LadderConfig::new(nmm(), &["random"]);
    assert!(matches!(
        run_ladder(&few, &Registry::classic()),
        Err(ArenaError::TooFewPlayers(1))
    ));
}

#[test]
fn arena_times_each_players_decisions() {
    let cfg = ArenaConfig {
        games: 4,
        threads: 1,
        ..ArenaConfig::new(nmm(), "alphabeta:depth=3", "random")
    };
    let r = run_arena(&cfg, &Registry::classic()).unwrap();
    let played: usize = r.records.iter().map(|g| g.actions.len()).sum();
    assert_eq!(
        (r.tally.a_think.decisions + r.tally.b_think.decisions) as usize,
        played,
        "every decision after the opening is timed once"
    );
    assert!(r.tally.a_think.decisions > 0 && r.tally.b_think.decisions > 0);
    for t in [r.tally.a_think, r.tally.b_think] {
        assert!(t.mean_ms >= 0.0 && t.mean_ms <= t.max_ms, "{t:?}");
    }
}

#[test]
fn arena_and_ladder_count_finished_games_for_progress() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    let done = Arc::new(AtomicU64::new(0));
    let cfg = ArenaConfig {
        games: 6,
        threads: 2,
        progress: Some(done.clone()),
        ..ArenaConfig::new(nmm(), "greedy", "random")
    };
    run_arena(&cfg, &Registry::classic()).unwrap();
    assert_eq!(done.load(Ordering::Relaxed), 6);
    let cfg = LadderConfig {
        games_per_pair: 2,
        threads: 2,
        progress: Some(done.clone()),
        ..LadderConfig::new(nmm(), &["random", "greedy", "alphabeta:depth=1"])
    };
    run_ladder(&cfg, &Registry::classic()).unwrap();
    assert_eq!(done.load(Ordering::Relaxed), 6 + 3 * 2);
}

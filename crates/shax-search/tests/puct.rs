//! The neural MCTS without a network: the uniform evaluator double (and a
//! scripted one) drive it, as KataGo's `testsearchnonn.cpp` does.

use shax_core::{Action, Color, Game, KeyHistory, POLICY_SIZE, Position, Preset, Rules, Task};
use shax_search::{
    Evaluator, GumbelConfig, HashedEvaluator, Limits, NeuralPlayer, Player, Puct, PuctConfig,
    UniformEvaluator, history_of, run_batched,
};

/// White: a7 d7 g4 c3; Black: b6 d3 f2. White wins at once with g4-g7 (the
/// line a7 d7 g7) and any removal, which leaves Black two pieces.
const WIN_IN_ONE: &str = "WW./B../.../.....W/WB./..B/... w - 0,0 - -,- 0 0 40";

fn config(sims: u32) -> PuctConfig {
    PuctConfig {
        simulations: sims,
        ..PuctConfig::default()
    }
}

/// A game of fewer than `max_plies` random actions (fewer still if it ends).
fn random_game(rules: Rules, max_plies: u32, rng: &mut rand::rngs::SmallRng) -> Game {
    use rand::Rng;
    let mut game = Game::new(rules);
    for _ in 0..rng.random_range(0..max_plies) {
        let legal = game.legal_actions();
        if legal.is_empty() {
            break;
        }
        game.play(legal[rng.random_range(0..legal.len())]).unwrap();
    }
    game
}

fn search(pos: Position, config: PuctConfig) -> Puct {
    let mut s = Puct::new(config, 7);
    s.set_root(pos, KeyHistory::new(&pos));
    s.run(&mut UniformEvaluator::default());
    s
}

#[test]
fn finds_a_win_in_one_turn_in_every_preset() {
    for preset in Preset::ALL {
        let pos = Position::from_fen(Rules::preset(preset), WIN_IN_ONE).unwrap();
        let mut s = search(pos, config(400));
        assert_eq!(
            s.best_action(0.0),
            Some("g4-g7".parse().unwrap()),
            "{preset}"
        );
        let stats = s.root_stats();
        assert!(stats.value > 0.5, "{preset}: root value {}", stats.value);
        // The removal after the line is a ply by the same player: still a win.
        let mut after = pos;
        after.play_unchecked("g4-g7".parse().unwrap());
        assert_eq!((after.to_act(), after.task()), (Color::White, Task::Remove));
        let mut s = search(after, config(64));
        let removal = s.best_action(0.0).unwrap();
        assert!(removal.is_removal());
        // Every removal wins: all visits but the root's own evaluation (value 0) score 1.
        assert!(s.root_stats().value > 0.95, "{preset}: every removal wins");
    }
}

/// The win shows only after two plies (the line, then the removal), so each
/// candidate needs two visits in the first halving phase: 10 actions, 4
/// phases, 96 simulations.
#[test]
fn gumbel_root_finds_the_win_with_few_simulations() {
    for preset in Preset::ALL {
        let pos = Position::from_fen(Rules::preset(preset), WIN_IN_ONE).unwrap();
        let cfg = PuctConfig {
            gumbel: Some(GumbelConfig::default()),
            ..config(96)
        };
        let mut s = search(pos, cfg);
        assert_eq!(
            s.best_action(0.0),
            Some("g4-g7".parse().unwrap()),
            "{preset}"
        );
        let stats = s.root_stats();
        let total: f32 = stats.target.iter().sum();
        assert!((total - 1.0).abs() < 1e-4);
        let best = stats
            .actions
            .iter()
            .position(|a| a.to_string() == "g4-g7")
            .unwrap();
        assert!(
            stats.target[best] > 0.5,
            "the improved policy puts its weight on the win: {}",
            stats.target[best]
        );
    }
}

/// Shax (no flying): White a7 d7 f4 against Black c3 e3 b2. White wins in
/// two turns with f4-g4 then g4-g7 (the line a7 d7 g7) and a removal; Black
/// cannot reach g7 or make a line in between.
#[test]
fn finds_a_win_in_two_turns() {
    let fen = "WW./.../.../....W./B.B/B../... w - 0,0 w -,- 0 0 40";
    let pos = Position::from_fen(Rules::preset(Preset::Shax), fen).unwrap();
    let mut s = search(pos, config(1500));
    assert_eq!(s.best_action(0.0), Some("f4-g4".parse::<Action>().unwrap()));
    assert!(s.root_stats().value > 0.3, "{}", s.root_stats().value);
}

#[test]
fn every_chosen_action_is_legal_in_random_positions() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
    for preset in Preset::ALL {
        for _ in 0..40 {
            let game = random_game(Rules::preset(preset), 120, &mut rng);
            if game.outcome().is_some() {
                continue;
            }
            let mut player = NeuralPlayer::new(
                "test".to_string(),
                PuctConfig {
                    gumbel: rng.random_bool(0.5).then(GumbelConfig::default),
                    ..config(24)
                },
                Box::new(UniformEvaluator::default()),
            );
            let a = player
                .choose_in_game(&game, &Limits::NONE, rng.random())
                .unwrap();
            assert!(
                game.position().is_legal(a),
                "{a} in {}",
                game.position().fen()
            );
        }
    }
}

#[test]
fn batching_collects_full_batches_across_games_in_flight() {
    let mut eval = UniformEvaluator::default();
    let rules = Rules::default();
    let mut searches: Vec<Puct> = (0..32)
        .map(|i| {
            let mut s = Puct::new(
                PuctConfig {
                    leaves_per_batch: 4,
                    ..config(100)
                },
                i,
            );
            let pos = Position::new(rules);
            s.set_root(pos, KeyHistory::new(&pos));
            s
        })
        .collect();
    let mut buf = shax_search::EvalBuffers::default();
    run_batched(&mut searches, &mut eval, &mut buf);
    for s in &searches {
        assert_eq!(s.done(), 100);
    }
    // 32 roots first, then rounds of up to 64 leaves (32 games x up to 4).
    assert_eq!(eval.batch_sizes[0], 32);
    let full = eval.batch_sizes.iter().filter(|&&b| b == 64).count();
    assert!(
        full * 10 >= eval.batch_sizes.len() * 8,
        "most batches are full: {:?}",
        eval.batch_sizes
    );
    assert_eq!(
        eval.positions,
        32 * 100,
        "one evaluation per simulation in the opening (no finished games)"
    );
}

#[test]
fn one_search_batches_its_own_leaves_with_virtual_loss() {
    let pos = Position::new(Rules::default());
    let mut s = Puct::new(
        PuctConfig {
            leaves_per_batch: 16,
            ..config(161)
        },
        1,
    );
    s.set_root(pos, KeyHistory::new(&pos));
    let mut eval = UniformEvaluator::default();
    s.run(&mut eval);
    assert_eq!(eval.batch_sizes[0], 1, "the root alone first");
    assert!(
        eval.batch_sizes[1..].iter().all(|&b| b == 16),
        "{:?}",
        eval.batch_sizes
    );
    // Virtual loss spreads one batch's leaves over distinct children.
    let stats = s.root_stats();
    assert!(stats.visits.iter().filter(|&&v| v > 0).count() >= 16);
}

#[test]
fn tree_reuse_keeps_the_subtree_of_the_played_action() {
    let pos = Position::new(Rules::default());
    let mut s = search(pos, config(300));
    let a = s.best_action(0.0).unwrap();
    let visits_of_a = {
        let st = s.root_stats();
        st.visits[st.actions.iter().position(|&x| x == a).unwrap()]
    };
    let mut child = pos;
    child.play_unchecked(a);
    let mut history = KeyHistory::new(&pos);
    history.push(a, &child);
    assert!(s.set_root(child, history.clone()));
    assert_eq!(s.root_stats().visits.iter().sum::<u32>() + 1, visits_of_a);
    // Two plies further down (the opponent's reply) is found as well.
    let b = child.legal_actions()[0];
    let mut grandchild = child;
    grandchild.play_unchecked(b);
    history.push(b, &grandchild);
    s.run(&mut UniformEvaluator::default());
    let reused = s.set_root(grandchild, history);
    assert!(reused || s.tree_size() == 1);
    // An unrelated position clears the tree.
    assert!(!s.set_root(pos, KeyHistory::new(&pos)));
    assert_eq!(s.tree_size(), 1);
}

#[test]
fn dirichlet_noise_perturbs_root_priors_only_when_asked() {
    let pos = Position::new(Rules::default());
    let plain = search(pos, config(50)).root_stats();
    let noisy = search(
        pos,
        PuctConfig {
            dirichlet_epsilon: 0.25,
            ..config(50)
        },
    );
    // Reported priors are the network's, noise or not.
    assert_eq!(noisy.root_stats().prior, plain.prior);
    // Visits follow the noisy priors: with uniform priors and values the plain
    // search spreads visits evenly, the noisy one does not.
    let spread = |v: &[u32]| v.iter().max().unwrap() - v.iter().min().unwrap();
    assert!(spread(&noisy.root_stats().visits) > spread(&plain.visits));
}

/// An evaluator that says the player to act is winning, everywhere: search
/// must turn that into "the player who just moved is losing" when the player
/// to act changes, and keep it when the same player acts again (removals).
struct ToActWins;

impl Evaluator for ToActWins {
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        assert_eq!(logits.len(), positions.len() * POLICY_SIZE);
        logits.fill(0.0);
        values.fill(0.9);
    }
}

#[test]
fn values_follow_the_player_to_act_not_alternation() {
    // After White's line, White removes: the same player acts twice.
    let pos = Position::from_fen(Rules::preset(Preset::NineMensMorris), WIN_IN_ONE).unwrap();
    let mut s = Puct::new(config(200), 1);
    s.set_root(pos, KeyHistory::new(&pos));
    s.run(&mut ToActWins);
    let st = s.root_stats();
    for (a, q) in st.actions.iter().zip(&st.q) {
        if st.visits[st.actions.iter().position(|x| x == a).unwrap()] == 0 {
            continue;
        }
        if a.to_string() == "g4-g7" {
            // Leads to White removing (White to act): good for White.
            assert!(*q > 0.5, "{a}: {q}");
        } else {
            // Leads to Black to act, who "wins": bad for White.
            assert!(*q < 0.0, "{a}: {q}");
        }
    }
}

/// An evaluator that says White is ahead by `0.5` everywhere (uniform
/// priors): every position's value is `+0.5` with White to act and `-0.5`
/// with Black to act, so the sign of a root's value names its player to act.
struct WhiteAhead;

impl Evaluator for WhiteAhead {
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        logits.fill(0.0);
        for (p, v) in positions.iter().zip(values.iter_mut()) {
            *v = if p.to_act() == Color::White {
                0.5
            } else {
                -0.5
            };
        }
    }
}

/// Regression (issue 11): a reused root kept its values from the view of the
/// player who moved into it while counting them as its player to act's, so
/// the reused root's value (info score, stored root values, the Gumbel
/// completed-Q mix, the root's first-play urgency) had the wrong sign.
#[test]
fn tree_reuse_keeps_the_sign_of_the_root_value() {
    let start = Position::new(Rules::default());
    for gumbel in [None, Some(GumbelConfig::default())] {
        let cfg = PuctConfig {
            gumbel,
            ..config(600)
        };
        let mut s = Puct::new(cfg, 3);
        s.set_root(start, KeyHistory::new(&start));
        s.run(&mut WhiteAhead);
        let mut pos = start;
        let mut history = KeyHistory::new(&start);
        // One action (Black to act), then a second one (White to act again).
        for _ in 0..2 {
            let a = s.best_action(0.0).unwrap();
            pos.play_unchecked(a);
            history.push(a, &pos);
            assert!(s.set_root(pos, history.clone()), "{a} is reused");
            let reused = s.root_stats().value;
            let mut fresh = Puct::new(cfg, 3);
            fresh.set_root(pos, history.clone());
            fresh.run(&mut WhiteAhead);
            let fresh = fresh.root_stats().value;
            let expect = if pos.to_act() == Color::White {
                0.5
            } else {
                -0.5
            };
            assert!((fresh - expect).abs() < 1e-4, "fresh search: {fresh}");
            assert!(
                (reused - expect).abs() < 1e-4,
                "{gumbel:?}, {} to act: reused root value {reused}, fresh {fresh}",
                pos.to_act()
            );
            s.run(&mut WhiteAhead);
            let value = s.root_stats().value;
            assert!((value - expect).abs() < 1e-4, "searched on: {value}");
        }
    }
}

/// The same through a player, as `shax engine` reports it: the `info` score
/// after a decision on a reused tree has the sign of a fresh player's.
#[test]
fn info_score_after_tree_reuse_has_the_fresh_sign() {
    let new_player = || {
        NeuralPlayer::new(
            "test".to_string(),
            config(400),
            Box::new(WhiteAhead) as Box<dyn Evaluator + Send>,
        )
    };
    let mut game = Game::new(Rules::default());
    let mut player = new_player();
    let first = player.choose_in_game(&game, &Limits::NONE, 1).unwrap();
    game.play(first).unwrap();
    // The player's own reply: its most visited, expanded node, so reused.
    let reply = player.choose_in_game(&game, &Limits::NONE, 2).unwrap();
    game.play(reply).unwrap();
    let one_node = Limits {
        nodes: Some(1),
        ..Limits::NONE
    };
    player.choose_in_game(&game, &one_node, 3).unwrap();
    assert!(player.search().tree_size() > 1, "the tree was reused");
    let reused = player.info().unwrap().score;
    let mut fresh_player = new_player();
    fresh_player
        .choose_in_game(&game, &Limits::NONE, 2)
        .unwrap();
    let fresh = fresh_player.info().unwrap().score;
    assert_eq!(game.position().to_act(), Color::White);
    assert!(
        reused > 400 && fresh > 400,
        "reused {reused}, fresh {fresh}"
    );
}

/// Regression (issue 11): with a Gumbel root every self-play move was a
/// Gumbel sample. At temperature 0 the search and its choice have no noise:
/// the same action for every seed, the best by `logit + sigma(Q)` (the
/// improved policy's order) of the candidates left, which are the most
/// visited children. At temperature 1 the seeds choose differently.
#[test]
fn gumbel_root_at_temperature_zero_chooses_without_noise() {
    // 8 candidates, 3 halving phases of 48 simulations (and the root's own):
    // the search ends with 2 candidates of 6 + 12 + 24 visits each.
    let cfg = |temperature| PuctConfig {
        gumbel: Some(GumbelConfig {
            considered: 8,
            temperature,
            ..GumbelConfig::default()
        }),
        leaves_per_batch: 1,
        ..config(145)
    };
    let choose = |pos: Position, temperature: f32, seed: u64| {
        let mut s = Puct::new(cfg(temperature), seed);
        s.set_root(pos, KeyHistory::new(&pos));
        s.run(&mut HashedEvaluator::default());
        (s.best_action(0.0).unwrap(), s.root_stats())
    };
    let mut game = Game::new(Rules::default());
    let mut noisy_differ = false;
    for _ in 0..6 {
        let pos = *game.position();
        let mut chosen = Vec::new();
        for seed in 0..6 {
            let (a, st) = choose(pos, 0.0, seed);
            let most = *st.visits.iter().max().unwrap();
            let left: Vec<usize> = (0..st.actions.len())
                .filter(|&k| st.visits[k] == most)
                .collect();
            assert_eq!((left.len(), most), (2, 42), "the candidates left");
            let best = *left
                .iter()
                .max_by(|&&x, &&y| st.target[x].total_cmp(&st.target[y]))
                .unwrap();
            assert_eq!(a, st.actions[best], "{}", pos.fen());
            chosen.push(a);
        }
        assert!(chosen.iter().all(|&a| a == chosen[0]), "{chosen:?}");
        let noisy: Vec<Action> = (0..6).map(|seed| choose(pos, 1.0, seed).0).collect();
        noisy_differ |= noisy.iter().any(|&a| a != noisy[0]);
        game.play(chosen[0]).unwrap();
    }
    assert!(
        noisy_differ,
        "Gumbel noise at temperature 1 varies the choice"
    );
}

/// A cutoff that has passed ends the network player's search after its first
/// batch, with a legal action.
#[test]
fn a_cutoff_ends_the_network_players_search() {
    let mut player = NeuralPlayer::new(
        "test".to_string(),
        config(1_000_000),
        Box::new(WhiteAhead) as Box<dyn Evaluator + Send>,
    );
    let game = Game::new(Rules::default());
    let cutoff = Limits {
        cutoff: Some(std::time::Instant::now()),
        ..Limits::NONE
    };
    let a = player.choose_in_game(&game, &cutoff, 1).unwrap();
    assert!(game.legal_actions().contains(&a));
    assert!(player.info().unwrap().nodes < 100, "{:?}", player.info());
}

/// Searches of many games stepped together (`step_pooled`, as matches with
/// many games in flight do): every decision is the one the player makes
/// alone, and one evaluator call a round serves all of them.
#[test]
fn pooled_searches_decide_as_alone_with_one_call_a_round() {
    use rand::SeedableRng;
    // Without the cache, alone is one evaluator call a simulation.
    let cfg = PuctConfig {
        leaves_per_batch: 1,
        eval_cache: false,
        ..config(48)
    };
    let player = |e: &HashedEvaluator| {
        NeuralPlayer::new("test".to_string(), cfg, Box::new(e.clone())).with_network("hashed")
    };
    let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
    let mut games = Vec::new();
    for _ in 0..8 {
        let game = random_game(Rules::default(), 30, &mut rng);
        if game.outcome().is_none() {
            games.push(game);
        }
    }
    let alone_eval = HashedEvaluator::default();
    let alone: Vec<(Action, Vec<u32>)> = games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let mut p = player(&alone_eval);
            let a = p.choose_in_game(g, &Limits::NONE, i as u64).unwrap();
            (a, p.search().root_stats().visits)
        })
        .collect();
    let pooled_eval = HashedEvaluator::default();
    let mut players: Vec<NeuralPlayer> = games.iter().map(|_| player(&pooled_eval)).collect();
    for (i, (p, g)) in players.iter_mut().zip(&games).enumerate() {
        let history = shax_search::history_of(g);
        p.begin(g.position(), &history, &Limits::NONE, i as u64);
    }
    let mut buf = shax_search::EvalBuffers::default();
    let mut refs: Vec<&mut NeuralPlayer> = players.iter_mut().collect();
    while shax_search::step_pooled(&mut refs, &mut buf) {}
    let pooled: Vec<(Action, Vec<u32>)> = players
        .iter_mut()
        .map(|p| (p.conclude().unwrap(), p.search().root_stats().visits))
        .collect();
    assert_eq!(pooled, alone);
    let calls = |e: &HashedEvaluator| e.calls.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(calls(&pooled_eval), buf.calls);
    assert!(
        calls(&pooled_eval) <= 50 && calls(&alone_eval) >= 48 * games.len() as u64,
        "calls pooled {}, alone {}",
        calls(&pooled_eval),
        calls(&alone_eval)
    );
}

/// With the solver, the win in one is proven: the search plays it and stops
/// long before its budget.
#[test]
fn the_solver_proves_a_win_in_one_and_stops_searching() {
    for preset in Preset::ALL {
        let pos = Position::from_fen(Rules::preset(preset), WIN_IN_ONE).unwrap();
        let mut s = search(
            pos,
            PuctConfig {
                solver: true,
                ..config(4000)
            },
        );
        assert_eq!(s.proven(), Some(1.0), "{preset}");
        assert!(s.done() < 1000, "{preset}: {} simulations", s.done());
        assert_eq!(s.best_action(0.0), Some("g4-g7".parse().unwrap()));
        let stats = s.root_stats();
        let win = stats.actions.iter().position(|a| a.to_string() == "g4-g7");
        assert_eq!(stats.proven[win.unwrap()], Some(1.0));
        // Without the solver nothing is proven and the budget is spent.
        let s = search(pos, config(400));
        assert_eq!((s.proven(), s.done()), (None, 400), "{preset}");
    }
}

/// The result the player to act can force within `depth` plies: 1 a win,
/// -1 a loss, `None` when a draw or the horizon is in the way.
fn forced(game: &mut Game, depth: u32) -> Option<f32> {
    let me = game.position().to_act();
    if let Some(o) = game.outcome() {
        let v = o.value_for(me);
        return (v != 0.0).then_some(v);
    }
    if depth == 0 {
        return None;
    }
    let mut all_lost = true;
    for &a in game.legal_actions().iter() {
        game.play(a).unwrap();
        let r = forced(game, depth - 1).map(|v| {
            if game.position().to_act() == me {
                v
            } else {
                -v
            }
        });
        game.undo();
        match r {
            Some(v) if v > 0.0 => return Some(1.0),
            Some(_) => {}
            None => all_lost = false,
        }
    }
    all_lost.then_some(-1.0)
}

/// Every action the solver proves won or lost is, by exhaustive search, as
/// far as a short horizon can tell; the search plays a proven win when it has
/// one and a proven loss only when nothing else is left (Nine Men's Morris:
/// a blocked side loses, so won and lost games are near in late positions).
#[test]
fn the_solvers_proofs_agree_with_exhaustive_search() {
    use rand::SeedableRng;
    let rules = Rules::preset(Preset::NineMensMorris);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
    let cfg = PuctConfig {
        solver: true,
        leaves_per_batch: 4,
        ..config(1500)
    };
    let (mut confirmed, mut played_wins) = (0, 0);
    for _ in 0..120 {
        let game = random_game(rules, 160, &mut rng);
        if game.outcome().is_some() {
            continue;
        }
        let pos = *game.position();
        let mut s = Puct::new(cfg, 1);
        s.set_root(pos, history_of(&game));
        s.run(&mut UniformEvaluator::default());
        let stats = s.root_stats();
        for (a, proof) in stats.actions.iter().zip(&stats.proven) {
            let Some(p) = *proof else { continue };
            let mut g = game.clone();
            g.play(*a).unwrap();
            let sign = if g.position().to_act() == pos.to_act() {
                1.0
            } else {
                -1.0
            };
            if let Some(v) = forced(&mut g, 3) {
                assert_eq!(sign * v, p, "{a} in {}", pos.fen());
                confirmed += 1;
            }
        }
        let best = s.best_action(0.0).unwrap();
        let k = stats.actions.iter().position(|&a| a == best).unwrap();
        if stats.proven.contains(&Some(1.0)) {
            assert_eq!(stats.proven[k], Some(1.0), "a proven win is played");
            played_wins += 1;
        } else if stats.proven.iter().any(|p| *p != Some(-1.0)) {
            assert_ne!(stats.proven[k], Some(-1.0), "a proven loss is avoided");
        }
    }
    assert!(confirmed >= 20, "only {confirmed} proofs checked");
    assert!(played_wins >= 3, "only {played_wins} proven wins met");
}

/// A proven win reaches `info score` on alpha-beta's scale of found wins.
#[test]
fn a_proven_win_scores_as_a_found_win() {
    let pos = Position::from_fen(Rules::default(), WIN_IN_ONE).unwrap();
    let game = Game::from_position(pos);
    for (solver, expect_win) in [(true, true), (false, false)] {
        let mut player = NeuralPlayer::new(
            "test".to_string(),
            PuctConfig {
                solver,
                ..config(400)
            },
            Box::new(UniformEvaluator::default()) as Box<dyn Evaluator + Send>,
        );
        player.choose_in_game(&game, &Limits::NONE, 1).unwrap();
        let score = player.info().unwrap().score;
        assert_eq!(score == shax_search::WIN_BOUND, expect_win, "score {score}");
    }
}

/// Stopping once decided plays what the whole budget would have played, in
/// fewer simulations.
#[test]
fn a_search_stopped_once_decided_chooses_as_the_whole_budget_would() {
    use rand::SeedableRng;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
    let (mut positions, mut saved) = (0, 0u32);
    for preset in Preset::ALL {
        for batch in [1, 8] {
            for _ in 0..6 {
                let game = random_game(Rules::preset(preset), 60, &mut rng);
                if game.outcome().is_some() {
                    continue;
                }
                let run = |stop_when_decided| {
                    let mut s = Puct::new(
                        PuctConfig {
                            stop_when_decided,
                            leaves_per_batch: batch,
                            ..config(800)
                        },
                        4,
                    );
                    s.set_root(*game.position(), history_of(&game));
                    s.run(&mut HashedEvaluator::default());
                    (s.best_action(0.0), s.done())
                };
                let (whole, all) = run(false);
                let (early, done) = run(true);
                assert_eq!(all, 800);
                assert_eq!(
                    early,
                    whole,
                    "{preset}, batch {batch}: {}",
                    game.position().fen()
                );
                positions += 1;
                saved += all - done;
            }
        }
    }
    // Random positions from random games often have a clear best action.
    assert!(
        saved > positions * 100,
        "{saved} simulations saved over {positions} positions"
    );
}

/// White a1 b2 c3 f6, Black b6 e5 f2 g7: the shuffle a1-d1, g7-g4, d1-a1,
/// g4-g7 returns here without a line closed.
const SHUFFLE_ROOT: &str = "..B/B.W/..B/....../W../W.B/W.. w - 0,0 - -,- 0 0 40";
const SHUFFLE: [&str; 4] = ["a1-d1", "g7-g4", "d1-a1", "g4-g7"];

/// Priors all but certain for the shuffle's actions, value 0 everywhere; it
/// counts how often each position is evaluated.
#[derive(Default)]
struct Shuffler(std::collections::HashMap<u64, u32>);

impl Evaluator for Shuffler {
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        logits.fill(-30.0);
        for (i, p) in positions.iter().enumerate() {
            *self.0.entry(p.key()).or_default() += 1;
            for a in SHUFFLE {
                let a: Action = a.parse().unwrap();
                logits[i * POLICY_SIZE + a.policy_index()] = 0.0;
            }
        }
        values.fill(0.0);
    }
}

#[test]
fn two_fold_draws_end_a_cycle_inside_the_search_only() {
    let rules = Rules::preset(Preset::NineMensMorris);
    let root = Position::from_fen(rules, SHUFFLE_ROOT).unwrap();
    // The cycle's positions: p[0] is the root, p[i + 1] follows SHUFFLE[i].
    let mut p = vec![root];
    for a in SHUFFLE {
        let (mut next, a) = (*p.last().unwrap(), a.parse().unwrap());
        assert!(next.legal_actions().contains(&a), "{a}");
        next.play_unchecked(a);
        assert_eq!(next.task(), Task::Move, "{a} closes no line");
        p.push(next);
    }
    assert_eq!(p[4].key(), root.key(), "the shuffle returns to the root");
    // The game reached the root through p[2] and p[3].
    let mut history = KeyHistory::new(&p[2]);
    history.push(SHUFFLE[2].parse().unwrap(), &p[3]);
    history.push(SHUFFLE[3].parse().unwrap(), &root);
    for two_fold_draws in [true, false] {
        let mut s = Puct::new(
            PuctConfig {
                two_fold_draws,
                leaves_per_batch: 1,
                ..config(64)
            },
            1,
        );
        s.set_root(root, history.clone());
        let mut eval = Shuffler::default();
        s.run(&mut eval);
        let seen = |q: &Position| eval.0.get(&q.key()).copied().unwrap_or(0);
        // A position met before the root only is searched on either way.
        assert!(seen(&p[2]) >= 1, "two_fold_draws {two_fold_draws}");
        if two_fold_draws {
            assert_eq!(
                seen(&root),
                1,
                "the root's repetition is a draw, not evaluated"
            );
        } else {
            assert!(seen(&root) >= 2, "without: the repetition is evaluated");
        }
    }
}

#[test]
fn placing_decisions_take_their_own_budget() {
    let mut player = NeuralPlayer::new(
        "test".to_string(),
        config(16),
        Box::new(UniformEvaluator::default()),
    )
    .with_place_sims(48);
    let placing = Game::new(Rules::default());
    let nodes = |player: &mut NeuralPlayer, game: &Game| {
        player.choose_in_game(game, &Limits::NONE, 1).unwrap();
        player.info().unwrap().nodes
    };
    assert_eq!(nodes(&mut player, &placing), 48);
    let pos = Position::from_fen(Rules::preset(Preset::NineMensMorris), WIN_IN_ONE).unwrap();
    let mut moving = Game::from_position(pos);
    assert_eq!(moving.position().task(), Task::Move);
    assert_eq!(nodes(&mut player, &moving), 16);
    // A removal is not a placement.
    moving.play_str("g4-g7").unwrap();
    assert_eq!(nodes(&mut player, &moving), 16);
}

/// A network that likes one action (logit 4, the rest 0) and calls every
/// position even.
struct Favourite(usize);

impl Evaluator for Favourite {
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        assert_eq!(logits.len(), positions.len() * POLICY_SIZE);
        logits.fill(0.0);
        for row in logits.chunks_mut(POLICY_SIZE) {
            row[self.0] = 4.0;
        }
        values.fill(0.0);
    }
}

/// With every value even, visits follow the priors: the favourite's share
/// is near its prior, e^4 / (e^4 + 23) = 0.70 of the 24 placements at
/// temperature 1 and e^2 / (e^2 + 23) = 0.24 at temperature 2.
#[test]
fn a_policy_temperature_flattens_the_priors_the_search_follows() {
    let pos = Position::new(Rules::default());
    let favourite = pos.legal_actions()[5];
    let share = |policy_temperature| {
        let mut s = Puct::new(
            PuctConfig {
                fpu_reduction: 0.0,
                policy_temperature,
                ..config(400)
            },
            1,
        );
        s.set_root(pos, KeyHistory::new(&pos));
        s.run(&mut Favourite(favourite.policy_index()));
        let st = s.root_stats();
        let i = st.actions.iter().position(|&a| a == favourite).unwrap();
        // The network's own prior is reported whatever the temperature.
        assert!((st.prior[i] - 0.70).abs() < 0.01, "{}", st.prior[i]);
        st.visits[i] as f32 / st.visits.iter().sum::<u32>() as f32
    };
    let (sharp, flat) = (share(1.0), share(2.0));
    assert!((sharp - 0.70).abs() < 0.1, "temperature 1: {sharp}");
    assert!((flat - 0.24).abs() < 0.1, "temperature 2: {flat}");
}

/// The evaluation cache answers a transposition as the evaluator would: one
/// leaf a call (no virtual loss in play), the tree is the one built without
/// it, from fewer evaluator calls, one fewer for each hit. Placement is full
/// of transpositions (the same pieces placed in another order).
#[test]
fn the_eval_cache_builds_the_same_tree_from_fewer_evaluations() {
    for preset in Preset::ALL {
        let pos = Position::new(Rules::preset(preset));
        let run = |eval_cache: bool| {
            let config = PuctConfig {
                simulations: 3000,
                leaves_per_batch: 1,
                eval_cache,
                ..PuctConfig::default()
            };
            let mut s = Puct::new(config, 7);
            s.set_root(pos, KeyHistory::new(&pos));
            let mut eval = HashedEvaluator::default();
            s.run(&mut eval);
            let calls = eval.calls.load(std::sync::atomic::Ordering::Relaxed);
            (s.root_stats(), calls, s.cache_hits)
        };
        let (with, calls_with, hits) = run(true);
        let (without, calls_without, no_hits) = run(false);
        assert_eq!(with.visits, without.visits, "{preset}");
        assert_eq!(with.q, without.q, "{preset}");
        assert_eq!(no_hits, 0, "{preset}");
        assert!(hits > 10, "{preset}: {hits} hits");
        assert_eq!(calls_with + hits, calls_without, "{preset}");
    }
}

/// An evaluator with a gamble in it: a position where White holds `point`
/// is a small edge for White and never a draw; any other is level and
/// almost surely a draw. Uniform priors.
struct Gamble {
    point: shax_core::Point,
}

impl Evaluator for Gamble {
    fn evaluate(&mut self, positions: &[Position], logits: &mut [f32], values: &mut [f32]) {
        let mut draws = vec![0.0; positions.len()];
        self.evaluate_wdl(positions, logits, values, &mut draws);
    }

    fn evaluate_wdl(
        &mut self,
        positions: &[Position],
        logits: &mut [f32],
        values: &mut [f32],
        draws: &mut [f32],
    ) {
        logits.fill(0.0);
        for (i, p) in positions.iter().enumerate() {
            let edge = p.board(Color::White).contains(self.point);
            let white = if edge { 0.2 } else { 0.0 };
            values[i] = if p.to_act() == Color::White {
                white
            } else {
                -white
            };
            draws[i] = if edge { 0.0 } else { 0.9 };
        }
    }
}

#[test]
fn a_draw_score_trades_an_unsure_edge_for_a_likely_draw() {
    let pos = Position::new(Rules::preset(Preset::NineMensMorris));
    let Action::Place(point) = pos.legal_actions()[0] else {
        panic!("the game starts by placing");
    };
    let choose = |draw_score: f32| {
        let mut s = Puct::new(
            PuctConfig {
                draw_score,
                ..config(400)
            },
            3,
        );
        s.set_root(pos, KeyHistory::new(&pos));
        s.run(&mut Gamble { point });
        (s.best_action(0.0).unwrap(), s.root_stats().value)
    };
    // Draws worth nothing: the edge (0.2 against 0).
    let (plain, _) = choose(0.0);
    assert_eq!(plain, Action::Place(point));
    // Draws worth half a win to White, the root's player: 0.45 against
    // 0.2. Black's leaves carry the draw score with the opposite sign, so
    // White's view of them agrees.
    let (safe, value) = choose(0.5);
    assert_ne!(safe, Action::Place(point));
    assert!(value > 0.3, "root value {value}");
}

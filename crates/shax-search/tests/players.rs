//! The classic players against the rules core.
//!
//! - `never_illegal_*`: every preset, thousands of random positions, every player.
//! - `alphabeta_wins_in_one_*`: constructed positions with a winning turn.
//! - `spec_*`: the spec parser and registry errors name what was wrong.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shax_core::{Action, Game, KeyHistory, Position, Preset, Rules, Task};
use shax_search::{Limits, Player, PlayerSpec, Registry, SpecError, build_player};

/// Random positions of a preset, with their histories: random games cut at a random ply.
fn random_positions(rules: Rules, n: usize, seed: u64) -> Vec<(Position, KeyHistory)> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut pos = Position::new(rules);
        let mut hist = KeyHistory::new(&pos);
        let stop = rng.random_range(0..300);
        for _ in 0..stop {
            if hist.outcome(&pos).is_some() {
                break;
            }
            let acts = pos.legal_actions();
            let a = acts[rng.random_range(0..acts.len())];
            pos.play_unchecked(a);
            hist.push(a, &pos);
        }
        if hist.outcome(&pos).is_none() {
            out.push((pos, hist));
        }
    }
    out
}

fn check_legal(spec: &str, positions: &[(Position, KeyHistory)]) {
    let mut p = build_player(spec).unwrap();
    for (i, (pos, hist)) in positions.iter().enumerate() {
        let a = p
            .choose(pos, hist, &Limits::NONE, i as u64)
            .unwrap_or_else(|| panic!("{spec} returned nothing for {}", pos.fen()));
        assert!(pos.is_legal(a), "{spec} chose illegal {a} in {}", pos.fen());
    }
}

#[test]
fn never_illegal_random_and_greedy() {
    for (k, preset) in Preset::ALL.into_iter().enumerate() {
        let positions = random_positions(Rules::preset(preset), 1500, k as u64);
        check_legal("random", &positions);
        check_legal("greedy", &positions);
    }
}

#[test]
fn never_illegal_alphabeta() {
    for (k, preset) in Preset::ALL.into_iter().enumerate() {
        let positions = random_positions(Rules::preset(preset), 400, 100 + k as u64);
        check_legal("alphabeta:depth=2", &positions);
        check_legal("alphabeta:nodes=300", &positions);
    }
}

#[test]
fn never_illegal_mcts() {
    for (k, preset) in Preset::ALL.into_iter().enumerate() {
        let positions = random_positions(Rules::preset(preset), 300, 200 + k as u64);
        check_legal("mcts:sims=16", &positions);
    }
}

#[test]
fn finished_games_get_no_action() {
    let rules = Rules::default();
    // Black is down to two pieces.
    let pos =
        Position::from_fen(rules, "WW./.../.../....WW/.../BB./B.. w - 0,0 w -,- 0 0 30").unwrap();
    let mut pos2 = pos;
    pos2.play("g4-g7".parse().unwrap()).unwrap();
    pos2.play("xb2".parse().unwrap()).unwrap();
    let hist = KeyHistory::new(&pos2);
    for spec in ["random", "greedy", "alphabeta", "mcts:sims=10"] {
        let mut p = build_player(spec).unwrap();
        assert_eq!(p.choose(&pos2, &hist, &Limits::NONE, 0), None, "{spec}");
    }
}

fn best(spec: &str, rules: Rules, fen: &str) -> Action {
    let pos = Position::from_fen(rules, fen).unwrap();
    let hist = KeyHistory::new(&pos);
    build_player(spec)
        .unwrap()
        .choose(&pos, &hist, &Limits::NONE, 3)
        .unwrap()
}

#[test]
fn alphabeta_wins_in_one_by_moving_into_a_line() {
    // White slides g4-g7 to close a7 d7 g7; Black has three pieces, so the removal wins.
    let fen = "WW./.../.../....WW/.../BB./B.. w - 0,0 w -,- 0 0 30";
    for spec in [
        "alphabeta:depth=1",
        "alphabeta:depth=3",
        "alphabeta:ms=50",
        "greedy",
    ] {
        assert_eq!(
            best(spec, Rules::default(), fen),
            "g4-g7".parse().unwrap(),
            "{spec}"
        );
    }
}

#[test]
fn alphabeta_wins_in_one_in_nine_mens_morris_placement() {
    // White places g7 to close the top row; Black, on three pieces with none in hand, loses.
    let rules = Rules::preset(Preset::NineMensMorris);
    let fen = "WW./.../.../B.B.../.../.../..B w - 1,0 - -,- 0 0 16";
    let a = best("alphabeta:depth=2", rules, fen);
    assert_eq!(a, "g7".parse().unwrap());
}

#[test]
fn alphabeta_removes_the_piece_that_wins() {
    // White owes a removal; Black threatens to close a line at once with a1-a4.
    // Removing any black piece leaves two: every removal wins, and the search says so.
    let fen = "WWW/.../.../....../.../BB./B.. w x1 0,0 w -,- 0 0 30";
    let pos = Position::from_fen(Rules::default(), fen).unwrap();
    assert_eq!(pos.task(), Task::Remove);
    let mut p = build_player("alphabeta:depth=3").unwrap();
    let a = p
        .choose(&pos, &KeyHistory::new(&pos), &Limits::NONE, 0)
        .unwrap();
    assert!(a.is_removal());
    assert!(p.info().unwrap().score >= shax_search::WIN_BOUND);
}

#[test]
fn alphabeta_sees_an_unstoppable_threat() {
    // White: a7 g7 d6 g4; Black: b6 a4 a1, to move. White threatens d6-d7,
    // closing a7 d7 g7 and leaving Black two pieces; no black piece reaches d7
    // and Black cannot close a line first. A depth-2 search sees the loss.
    let fen = "W.W/BW./.../B....W/.../.../B.. b - 0,0 w -,- 0 0 30";
    let pos = Position::from_fen(Rules::default(), fen).unwrap();
    let mut p = build_player("alphabeta:depth=2").unwrap();
    p.choose(&pos, &KeyHistory::new(&pos), &Limits::NONE, 0)
        .unwrap();
    assert!(p.info().unwrap().score <= -shax_search::WIN_BOUND);
}

#[test]
fn a_budget_that_ends_an_iteration_plays_what_it_found() {
    // Where a depth-5 search prefers another action than depth 4, a node
    // budget that runs out during the fifth iteration plays the new action
    // once the search has found it better, not only when the iteration ends.
    let choose = |pos: &Position, hist: &KeyHistory, spec: &str| {
        let mut p = build_player(spec).unwrap();
        let a = p.choose(pos, hist, &Limits::NONE, 0).unwrap();
        (a, p.info().unwrap().nodes)
    };
    let mut found = 0;
    for (pos, hist) in random_positions(Rules::default(), 200, 400) {
        let (a4, n4) = choose(&pos, &hist, "alphabeta:depth=4");
        let (a5, n5) = choose(&pos, &hist, "alphabeta:depth=5");
        if a4 == a5 || n5 < n4 + 8 * 1024 {
            continue;
        }
        let budgets = (1..8).map(|j| n4 + (n5 - n4) * j / 8);
        if budgets
            .map(|k| choose(&pos, &hist, &format!("alphabeta:nodes={k}")).0)
            .any(|a| a == a5)
        {
            found += 1;
        }
    }
    assert!(
        found > 0,
        "no budget ending inside the fifth iteration played its action"
    );
}

#[test]
fn alphabeta_handles_shax_opening_removals() {
    // A full Shax board with a jare: J removes, then the other side, then J moves.
    let rules = Rules::default();
    let mut game = Game::new(rules);
    let mut rng = SmallRng::seed_from_u64(9);
    while game.position().task() == Task::Place || game.position().task() == Task::Free {
        let acts = game.legal_actions();
        if acts.is_empty() {
            break;
        }
        game.play(acts[rng.random_range(0..acts.len())]).unwrap();
    }
    if game.outcome().is_none() {
        assert_eq!(game.position().task(), Task::Remove);
        for _ in 0..2 {
            let mut p = build_player("alphabeta:depth=3").unwrap();
            let a = p.choose_in_game(&game, &Limits::NONE, 0).unwrap();
            assert!(a.is_removal());
            game.play(a).unwrap();
        }
    }
}

#[test]
fn a_draw_is_scored_for_black_as_the_preset_or_spec_says() {
    // Black's last placement fills the board with no jare: a draw whatever it does.
    let fen = ".WW/WBB/BWW/WBBWBB/WBB/BWW/WBW b - 0,1 - -,- 0 0 23";
    let pos = Position::from_fen(Rules::default(), fen).unwrap();
    let hist = KeyHistory::new(&pos);
    for (spec, score) in [
        ("alphabeta:depth=2", 100),
        ("alphabeta:depth=2,draw=0", 0),
        ("alphabeta:depth=2,draw=37", 37),
    ] {
        let mut p = build_player(spec).unwrap();
        assert_eq!(
            p.choose(&pos, &hist, &Limits::NONE, 0),
            Some("a7".parse().unwrap())
        );
        assert_eq!(p.info().unwrap().score, score, "{spec}");
    }
    // White's last placement, and Black's after it, can form no line either:
    // to White the draw is worth the negative.
    let fen = "B.W/W.B/BWB/WBWWBW/BBW/BWW/WBB w - 1,1 - -,- 0 0 22";
    let pos = Position::from_fen(Rules::default(), fen).unwrap();
    for (spec, score) in [
        ("alphabeta:depth=3", -100),
        ("alphabeta:depth=3,draw=0", 0),
        ("alphabeta:depth=3,eval=basic", 0),
    ] {
        let mut p = build_player(spec).unwrap();
        p.choose(&pos, &KeyHistory::new(&pos), &Limits::NONE, 0)
            .unwrap();
        assert_eq!(p.info().unwrap().score, score, "{spec}");
    }
}

#[test]
fn limits_override_the_spec_budget() {
    let pos = Position::new(Rules::default());
    let hist = KeyHistory::new(&pos);
    let mut p = build_player("alphabeta:depth=5").unwrap();
    let limits = Limits {
        depth: Some(1),
        ..Limits::NONE
    };
    p.choose(&pos, &hist, &limits, 0).unwrap();
    assert_eq!(p.info().unwrap().depth, 1);
    let mut m = build_player("mcts:sims=100").unwrap();
    let limits = Limits {
        nodes: Some(7),
        ..Limits::NONE
    };
    m.choose(&pos, &hist, &limits, 0).unwrap();
    assert_eq!(m.info().unwrap().nodes, 7);
}

/// A cutoff that has passed ends any search at once, with a legal action,
/// without replacing the spec's budget where it is not reached.
#[test]
fn a_cutoff_ends_the_search_whatever_the_budget() {
    let pos = Position::new(Rules::default());
    let hist = KeyHistory::new(&pos);
    let cutoff = Limits {
        cutoff: Some(std::time::Instant::now()),
        ..Limits::NONE
    };
    let mut p = build_player("alphabeta:depth=60").unwrap();
    let a = p.choose(&pos, &hist, &cutoff, 0).unwrap();
    assert!(pos.legal_actions().contains(&a));
    // The first depth always finishes; the clock is read every 1,024 nodes.
    assert!(p.info().unwrap().nodes <= 2048, "{:?}", p.info());
    let mut m = build_player("mcts:sims=100000000").unwrap();
    let a = m.choose(&pos, &hist, &cutoff, 0).unwrap();
    assert!(pos.legal_actions().contains(&a));
    assert!(m.info().unwrap().nodes <= 64, "{:?}", m.info());
    // A cutoff far away leaves the spec's budget in force.
    let later = Limits {
        cutoff: Some(std::time::Instant::now() + std::time::Duration::from_secs(3600)),
        ..Limits::NONE
    };
    let mut p = build_player("alphabeta:depth=3").unwrap();
    p.choose(&pos, &hist, &later, 0).unwrap();
    assert_eq!(p.info().unwrap().depth, 3);
}

#[test]
fn same_seed_same_action() {
    let positions = random_positions(Rules::default(), 30, 5);
    for spec in ["random", "greedy", "alphabeta:depth=2", "mcts:sims=30"] {
        for (pos, hist) in &positions {
            let a = build_player(spec)
                .unwrap()
                .choose(pos, hist, &Limits::NONE, 11);
            let b = build_player(spec)
                .unwrap()
                .choose(pos, hist, &Limits::NONE, 11);
            assert_eq!(a, b, "{spec}");
        }
    }
}

#[test]
fn spec_round_trips() {
    for s in [
        "random",
        "greedy:seed=3",
        "alphabeta:depth=4",
        "alphabeta:ms=200",
        "alphabeta:depth=6,ms=100,seed=2",
        "alphabeta:depth=3,lmr=1,draw=40",
        "mcts:sims=1000",
        "mcts:sims=50,c=1.4,seed=9",
    ] {
        let p = build_player(s).unwrap();
        assert_eq!(p.spec(), s);
        assert_eq!(s.parse::<PlayerSpec>().unwrap().to_string(), s);
    }
}

#[test]
fn spec_errors_name_what_was_wrong() {
    let err = |s: &str| build_player(s).map(|_| ()).unwrap_err();
    assert!(
        matches!(err("stockfish"), SpecError::UnknownPlayer { kind, .. } if kind == "stockfish")
    );
    assert!(
        matches!(err("alphabeta:dpth=3"), SpecError::UnknownParam { param, .. } if param == "dpth")
    );
    assert!(
        matches!(err("alphabeta:depth=0"), SpecError::OutOfRange { param, .. } if param == "depth")
    );
    assert!(matches!(
        err("alphabeta:depth=99"),
        SpecError::OutOfRange { .. }
    ));
    assert!(matches!(err("mcts:sims=0"), SpecError::OutOfRange { param, .. } if param == "sims"));
    assert!(matches!(err("mcts:sims=ten"), SpecError::BadValue { value, .. } if value == "ten"));
    assert!(matches!(err("mcts:c=-1"), SpecError::OutOfRange { param, .. } if param == "c"));
    assert!(matches!(err("random:foo"), SpecError::Arguments { .. }));
    assert!(matches!(err(""), SpecError::Empty));
    assert!(matches!(err("mcts:"), SpecError::Malformed { .. }));
    assert!(matches!(
        err("mcts:sims=1,sims=2"),
        SpecError::Malformed { .. }
    ));
    assert!(matches!(err(":sims=1"), SpecError::Malformed { .. }));
    assert!(err("alphabeta:depth=0").to_string().contains("depth"));
    assert!(err("stockfish").to_string().contains("alphabeta"));
}

#[test]
fn registry_takes_kinds_from_elsewhere() {
    let mut reg = Registry::classic();
    reg.register(
        "tier",
        "a named difficulty tier",
        std::sync::Arc::new(|s: &PlayerSpec| {
            let name = s.args.first().cloned().unwrap_or_default();
            let inner = match name.as_str() {
                "easy" => "random",
                "hard" => "alphabeta:depth=3",
                _ => {
                    return Err(SpecError::Arguments {
                        kind: "tier".into(),
                        why: format!("unknown tier '{name}'"),
                    });
                }
            };
            build_player(inner)
        }),
    );
    assert!(reg.build_str("tier:easy").is_ok());
    assert!(
        reg.build_str("tier:nope")
            .unwrap_err()
            .to_string()
            .contains("nope")
    );
    assert!(reg.kinds().any(|(k, _)| k == "tier"));
}

/// A small-sample sanity check of strength; the real measurements are `shax arena`'s.
#[test]
fn alphabeta_beats_random_in_a_few_games() {
    let rules = Rules::preset(Preset::NineMensMorris);
    let mut score = 0.0;
    for g in 0..4u64 {
        let mut game = Game::new(rules);
        let mut ab = build_player("alphabeta:depth=2").unwrap();
        let mut rnd = build_player("random").unwrap();
        let ab_white = g % 2 == 0;
        while game.outcome().is_none() {
            let white = game.position().to_act() == shax_core::Color::White;
            let p: &mut Box<dyn Player> = if white == ab_white { &mut ab } else { &mut rnd };
            let a = p
                .choose_in_game(&game, &Limits::NONE, g * 1000 + game.len() as u64)
                .unwrap();
            game.play(a).unwrap();
        }
        let o = game.outcome().unwrap();
        let ab_color = if ab_white {
            shax_core::Color::White
        } else {
            shax_core::Color::Black
        };
        score += (o.value_for(ab_color) as f64 + 1.0) / 2.0;
    }
    assert!(score >= 3.0, "alphabeta scored {score}/4 against random");
}

/// White slides g4-g7 to close a7 d7 g7, and the removal leaves Black two
/// pieces: a win in one turn under every preset's rules.
const WIN_IN_ONE: &str = "WW./.../.../....WW/.../BB./B.. w - 0,0 w -,- 0 0 30";

/// Nine Men's Morris and shax-flying (plain board, a blocked side loses):
/// Black's corners are stuck, its c5 can only go to c4, and White's b4-c4
/// takes that square: Black, to move, has no move and loses.
const BLOCKADE_IN_ONE: &str = "BWB/.../BW./WW...W/.../.../BWB w - 0,0 - -,- 0 0 40";

#[test]
fn forced_wins_are_found_in_every_preset_with_depth_and_node_budgets() {
    for preset in Preset::ALL {
        let rules = Rules::preset(preset);
        let mut cases = vec![(WIN_IN_ONE, "g4-g7")];
        if matches!(preset, Preset::NineMensMorris | Preset::ShaxFlying) {
            cases.push((BLOCKADE_IN_ONE, "b4-c4"));
        }
        for (fen, want) in cases {
            let pos = Position::from_fen(rules, fen).unwrap();
            let hist = KeyHistory::new(&pos);
            for spec in [
                "alphabeta:depth=1",
                "alphabeta:depth=4",
                "alphabeta:nodes=2000",
                "alphabeta:depth=3,eval=basic",
            ] {
                let mut p = build_player(spec).unwrap();
                let a = p.choose(&pos, &hist, &Limits::NONE, 5).unwrap();
                assert_eq!(a, want.parse().unwrap(), "{preset:?} {spec} {fen}");
                let score = p.info().unwrap().score;
                assert!(
                    score >= shax_search::WIN_BOUND,
                    "{preset:?} {spec}: {score}"
                );
            }
        }
    }
}

#[test]
fn node_budgets_are_deterministic_for_a_seed() {
    for preset in Preset::ALL {
        let positions = random_positions(Rules::preset(preset), 12, 21);
        for spec in ["alphabeta:nodes=3000", "alphabeta:nodes=3000,eval=basic"] {
            for (pos, hist) in &positions {
                let run = |seed| {
                    let mut p = build_player(spec).unwrap();
                    let a = p.choose(pos, hist, &Limits::NONE, seed);
                    (a, p.info())
                };
                // The same action, depth, score and node count.
                assert_eq!(run(7), run(7), "{preset:?} {spec}");
            }
        }
    }
}

#[test]
fn eval_basic_searches_without_late_move_reductions_as_commit_67c7f3f_did() {
    for preset in Preset::ALL {
        let positions = random_positions(Rules::preset(preset), 8, 5);
        let search = |spec: &str| -> Vec<_> {
            positions
                .iter()
                .map(|(pos, hist)| {
                    let mut p = build_player(spec).unwrap();
                    let a = p.choose(pos, hist, &Limits::NONE, 3);
                    (a, p.info())
                })
                .collect()
        };
        let basic = search("alphabeta:depth=5,eval=basic");
        assert_eq!(
            basic,
            search("alphabeta:depth=5,eval=basic,lmr=0"),
            "{preset:?}"
        );
        // Reductions change the searches (node counts at least), so the
        // equality above says they are off.
        assert_ne!(
            basic,
            search("alphabeta:depth=5,eval=basic,lmr=1"),
            "{preset:?}"
        );
    }
}

//! The network player's tactical guard: an alpha-beta that vetoes choices it
//! finds losing, and leaves the rest alone.

use shax_core::{Action, KeyHistory, Position, Preset, Rules};
use shax_search::{Guard, Limits, NeuralPlayer, Player, PuctConfig, UniformEvaluator};

/// White slides g4-g7 to close a7 d7 g7 and the removal leaves Black two
/// pieces: a win in one.
const WIN_IN_ONE: &str = "WW./.../.../....WW/.../BB./B.. w - 0,0 w -,- 0 0 30";

/// The same board with Black to move in Nine Men's Morris: Black, on three
/// pieces, flies one to g7 or loses to g4-g7.
const BLOCK_OR_LOSE: &str = "WW./.../.../....WW/.../BB./B.. b - 0,0 - -,- 0 0 30";

fn act(s: &str) -> Action {
    s.parse().unwrap()
}

fn review(rules: Rules, fen: &str, preferred: &[&str], margin: i32) -> Action {
    let pos = Position::from_fen(rules, fen).unwrap();
    let preferred: Vec<Action> = preferred.iter().map(|s| act(s)).collect();
    Guard::new(20_000, margin)
        .review(&pos, &KeyHistory::new(&pos), &preferred, 1, None)
        .unwrap()
}

#[test]
fn a_choice_that_misses_a_win_gives_way_to_it() {
    for preset in [Preset::Shax, Preset::NineMensMorris, Preset::Morabaraba] {
        let a = review(Rules::preset(preset), WIN_IN_ONE, &["f4-e4"], 1000);
        assert_eq!(a, act("g4-g7"), "{preset:?}");
    }
}

#[test]
fn a_losing_choice_gives_way_to_the_next_that_holds() {
    let rules = Rules::preset(Preset::NineMensMorris);
    // a1-a4 lets White close its line; d2-g7 blocks it: the network's second
    // choice is played, not whichever block the alpha-beta liked best.
    let a = review(rules, BLOCK_OR_LOSE, &["a1-a4", "d2-g7", "b2-g7"], 1000);
    assert_eq!(a, act("d2-g7"));
    // With no choice that holds, the alpha-beta's own block.
    let a = review(rules, BLOCK_OR_LOSE, &["a1-a4", "b2-c3"], 1000);
    assert_eq!(a.to_string().split('-').nth(1), Some("g7"), "{a}");
}

#[test]
fn a_choice_within_the_margin_stands() {
    let rules = Rules::preset(Preset::NineMensMorris);
    let start = Position::new(rules).fen();
    for first in ["a7", "d6", "c3", "g4"] {
        assert_eq!(review(rules, &start, &[first], 150), act(first));
    }
    // A margin of nothing lets the alpha-beta decide: the opening placements
    // are not all equal to it.
    let vetoed = ["a7", "d6", "c3", "g4"]
        .iter()
        .filter(|f| review(rules, &start, &[f], 0) != act(f))
        .count();
    assert!(vetoed > 0);
}

#[test]
fn a_guarded_network_player_takes_the_win_its_search_misses() {
    // One simulation of a uniform network picks an action at random; the
    // guard turns every pick into the win.
    let rules = Rules::preset(Preset::NineMensMorris);
    let pos = Position::from_fen(rules, WIN_IN_ONE).unwrap();
    let config = PuctConfig {
        simulations: 1,
        ..PuctConfig::default()
    };
    for seed in 0..8 {
        let mut p = NeuralPlayer::new("t".into(), config, Box::new(UniformEvaluator::default()))
            .with_guard(Guard::new(20_000, Guard::DEFAULT_MARGIN));
        let a = p.choose(&pos, &KeyHistory::new(&pos), &Limits::NONE, seed);
        assert_eq!(a, Some(act("g4-g7")), "seed {seed}");
    }
    // Unguarded, the same search does not always find it.
    let misses = (0..8)
        .filter(|&seed| {
            let mut p =
                NeuralPlayer::new("t".into(), config, Box::new(UniformEvaluator::default()));
            p.choose(&pos, &KeyHistory::new(&pos), &Limits::NONE, seed) != Some(act("g4-g7"))
        })
        .count();
    assert!(misses > 0);
}

#[test]
fn a_cutoff_ends_the_guards_searches_whatever_their_budget() {
    let rules = Rules::preset(Preset::NineMensMorris);
    let pos = Position::new(rules);
    let hist = KeyHistory::new(&pos);
    let mut guard = Guard::new(5_000_000, 0);
    let now = Some(std::time::Instant::now());
    let a = guard
        .review(&pos, &hist, &[act("a7"), act("d6")], 1, now)
        .unwrap();
    assert!(pos.is_legal(a));
    // Each search finishes its first depth; the clock is read every 1,024 nodes.
    assert!(guard.searched() <= 3 * 2048, "{}", guard.searched());
    // Without a cutoff the budget holds.
    let mut guard = Guard::new(200_000, 0);
    guard.review(&pos, &hist, &[act("a7")], 1, None).unwrap();
    assert!(guard.searched() >= 200_000, "{}", guard.searched());
}

/// Nine Men's Morris, moving: White to act with five pieces against seven,
/// some five pieces behind by the alpha-beta's score, not lost by force.
const FIVE_AGAINST_SEVEN: &str = "W.B/BW./.../B.W.BW/B../.B./W.B w - 0,0 - -,- 0 0 30";

#[test]
fn a_guard_searches_deeper_only_where_the_player_is_behind() {
    let rules = Rules::preset(Preset::NineMensMorris);
    let searched = |fen: &str, behind: u64| {
        let pos = Position::from_fen(rules, fen).unwrap();
        let first = pos.legal_actions()[0];
        let mut guard = Guard::new(5_000, Guard::DEFAULT_MARGIN).with_behind(behind);
        let a = guard.review(&pos, &KeyHistory::new(&pos), &[first], 1, None);
        (a, guard.searched())
    };
    let (_, plain) = searched(FIVE_AGAINST_SEVEN, 0);
    let (a, deeper) = searched(FIVE_AGAINST_SEVEN, 100_000);
    assert!(a.is_some());
    assert!(plain < 50_000, "{plain}");
    assert!(deeper >= 100_000, "{deeper}");
    // Level: the larger budget is never used, and nothing changes.
    let start = Position::new(rules).fen();
    assert_eq!(searched(&start, 0), searched(&start, 100_000));
}

/// Nine Men's Morris, moving: White to act, five pieces against seven and
/// some six pieces behind. d6-b6 (and d6-d7, d6-d5, c4-b4) loses by force
/// where 5,000 nodes do not see it and 100,000 do; a1-d1 holds.
const BEHIND_WITH_A_TRAP: &str = "W.B/.WB/.../B.W.BW/B../.B./W.B w - 0,0 - -,- 0 0 30";

#[test]
fn behind_a_second_look_vetoes_a_forced_loss_and_only_that() {
    let rules = Rules::preset(Preset::NineMensMorris);
    let pos = Position::from_fen(rules, BEHIND_WITH_A_TRAP).unwrap();
    let review = |choice: &str, behind: u64| {
        // A wide margin: the first look accepts any choice it does not see
        // losing by force.
        Guard::new(5_000, 1_000)
            .with_behind(behind)
            .review(&pos, &KeyHistory::new(&pos), &[act(choice)], 1, None)
            .unwrap()
    };
    assert_eq!(review("d6-b6", 0), act("d6-b6"));
    let a = review("d6-b6", 200_000);
    assert!(a != act("d6-b6") && pos.is_legal(a), "{a}");
    // A choice that holds stands, whatever the deeper search prefers.
    assert_eq!(review("a1-d1", 200_000), act("a1-d1"));
}

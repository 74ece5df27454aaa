//! End-to-end tests of `shax analyse`: the review of an arena's records, the
//! choice of games, and exit code 2 naming what was wrong.

mod common;
use common::shax;

fn tmp(name: &str) -> String {
    common::tmp_file("analyse-cli", name)
}

/// Records of two games of Nine Men's Morris, greedy against random, in a
/// file of the test's own.
fn records(test: &str) -> String {
    let out = tmp(&format!("{test}.jsonl"));
    let (code, _, stderr) = shax(&[
        "arena",
        "--rules",
        "nine-mens-morris",
        "--a",
        "greedy",
        "--b",
        "random",
        "--games",
        "2",
        "--seed",
        "3",
        "--out",
        &out,
    ]);
    assert_eq!(code, 0, "{stderr}");
    out
}

#[test]
fn every_action_of_the_chosen_games_is_reviewed() {
    let file = records("review");
    let lines: Vec<String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let (code, stdout, stderr) = shax(&["analyse", &file, "--with", "alphabeta:depth=2", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let reviews: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reviews.len(), 2);
    for (i, (v, line)) in reviews.iter().zip(&lines).enumerate() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["game"], i + 1);
        assert_eq!(v["reviewer"], "alphabeta:depth=2");
        assert_eq!(v["winner"], record["winner"]);
        let played: Vec<&serde_json::Value> = record["opening"]
            .as_array()
            .unwrap()
            .iter()
            .chain(record["actions"].as_array().unwrap())
            .collect();
        let reviewed: Vec<&serde_json::Value> = v["actions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| &a["action"])
            .collect();
        assert_eq!(reviewed, played);
    }
    // One game, as text: the table and each side's mistakes with its player.
    let (code, stdout, stderr) = shax(&[
        "analyse",
        &file,
        "--games",
        "2",
        "--with",
        "alphabeta:depth=2",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("game 2: white "), "{stdout}");
    assert!(!stdout.contains("game 1:"), "{stdout}");
    // The arena gives each opening to both colours: game 2 has random as White.
    for side in ["  white (random): ", "  black (greedy): "] {
        assert!(stdout.contains(side), "{side}: {stdout}");
    }
}

#[test]
fn a_reader_that_has_gone_ends_the_review_quietly() {
    // `shax analyse ... | head -1`: the reader goes before the first game's report.
    let file = records("pipe");
    common::into_closed_pipe(&["analyse", &file, "--with", "alphabeta:depth=1"]);
}

#[test]
fn bad_input_exits_2_naming_the_problem() {
    let file = records("bad");
    let garbage = tmp("garbage.jsonl");
    std::fs::write(&garbage, "{\"not\": \"a record\"}\n").unwrap();
    for (args, want) in [
        (vec!["analyse", &file, "--games", "3"], "no game on line 3"),
        (vec!["analyse", &file, "--games", "2-1"], "runs backwards"),
        (
            vec!["analyse", &file, "--games", "5-99999999999"],
            "no game on lines 5-99999999999",
        ),
        (
            vec!["analyse", &file, "--with", "random"],
            "'random' reports no score",
        ),
        (vec!["analyse", &file, "--with", "alphabeta:dpth=2"], "dpth"),
        (vec!["analyse", &garbage], "line 1: not a game record"),
        (vec!["analyse", "/no/such.jsonl"], "/no/such.jsonl"),
    ] {
        let (code, _, stderr) = shax(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
}

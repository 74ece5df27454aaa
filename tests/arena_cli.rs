//! End-to-end tests of `shax arena`, `shax ladder` and `shax bench uct`:
//! machine-readable output and exit code 2 on bad input.

mod common;
use common::shax;

fn tmp(name: &str) -> String {
    common::tmp_file("arena-cli", name)
}

#[test]
fn arena_json_has_the_promised_keys_and_records_replay() {
    let out = tmp("games.jsonl");
    let (code, stdout, stderr) = shax(&[
        "arena",
        "--rules",
        "nine-mens-morris",
        "--a",
        "greedy",
        "--b",
        "random",
        "--games",
        "6",
        "--threads",
        "2",
        "--seed",
        "5",
        "--json",
        "--out",
        &out,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    for k in [
        "games", "a_wins", "b_wins", "draws", "score", "elo", "elo_low", "elo_high",
    ] {
        assert!(v.get(k).is_some(), "missing {k} in {v}");
    }
    assert_eq!(v["games"], 6);
    assert!(
        !std::path::Path::new(&format!("{out}.partial")).exists(),
        "the partial records outlived the match"
    );
    let lines = std::fs::read_to_string(&out).unwrap();
    assert_eq!(lines.lines().count(), 6);
    for l in lines.lines() {
        let rec: shax_train::GameRecord = serde_json::from_str(l).unwrap();
        rec.replay().unwrap();
    }
}

/// A match stopped part way keeps the games it finished, one whole record
/// a line in `<out>.partial`.
#[test]
fn a_killed_match_keeps_its_finished_games() {
    let out = tmp("killed.jsonl");
    let args = [
        "arena",
        "--rules",
        "nine-mens-morris",
        "--a",
        "greedy",
        "--b",
        "alphabeta:ms=20",
        "--games",
        "400",
        "--threads",
        "1",
        "--out",
        &out,
    ];
    let kept = common::kill_once_kept(&args, &out, 2);
    assert!(kept.len() >= 2);
}

/// Two matches started together without `--out` keep their own records: the
/// default name carries the process id beside the time.
#[test]
fn matches_started_together_keep_their_own_default_records() {
    let dir = std::path::PathBuf::from(tmp("two-at-once"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let start = |games: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_shax"))
            .current_dir(&dir)
            .args(["arena", "--rules", "shax", "--a", "random", "--b", "random"])
            .args(["--games", games, "--threads", "1", "--json"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("start shax")
    };
    let children = [start("3"), start("5")];
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let mut counts: Vec<usize> = std::fs::read_dir(dir.join("runs"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .map(|text| text.lines().count())
        .collect();
    counts.sort();
    assert_eq!(counts, [3, 5], "one records file a match, no partial left");
}

#[test]
fn bad_input_exits_2_naming_the_problem() {
    let out = tmp("bad.jsonl");
    for (args, needle) in [
        (
            vec!["arena", "--a", "alphabeta:dpth=3", "--b", "random"],
            "dpth",
        ),
        (
            vec!["arena", "--a", "random", "--b", "alphabeta:depth=100"],
            "depth",
        ),
        (vec!["arena", "--a", "minimax", "--b", "random"], "minimax"),
        (
            vec!["arena", "--a", "random", "--b", "random", "--games", "0"],
            "games",
        ),
        (
            vec![
                "arena", "--a", "random", "--b", "random", "--rules", "chess",
            ],
            "chess",
        ),
        (
            vec![
                "arena",
                "--a",
                "random",
                "--b",
                "random",
                "--openings",
                "41",
            ],
            "openings",
        ),
        (vec!["ladder", "--players", "random,mcts:sims=0"], "sims"),
        (vec!["ladder", "--players", "random"], "two players"),
        (vec!["bench", "uct", "--sims", "0"], "sims"),
    ] {
        let mut args = args;
        if args[0] != "bench" {
            args.extend(["--out", &out]);
        }
        let (code, _, stderr) = shax(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[test]
fn ladder_prints_a_table_and_writes_json() {
    let out = tmp("ladder.json");
    let (code, stdout, stderr) = shax(&[
        "ladder",
        "--rules",
        "nine-mens-morris",
        "--players",
        "random,greedy",
        "--games",
        "4",
        "--out",
        &out,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("rank") && stdout.contains("greedy"),
        "{stdout}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["anchor"], "random");
    assert_eq!(v["ratings"].as_array().unwrap().len(), 2);
}

#[test]
fn bench_uct_json() {
    let (code, stdout, stderr) = shax(&[
        "bench",
        "uct",
        "--rules",
        "nine-mens-morris",
        "--sims",
        "200",
        "--seconds",
        "0.2",
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(v["rows"][0]["sims_per_sec"].as_f64().unwrap() > 0.0);
}

/// A reader that stops early (`| head`) ends the reports quietly: no panic
/// on the broken pipe, exit 0.
#[test]
fn reports_into_a_closed_pipe_end_quietly() {
    let out = tmp("closed-pipe.jsonl");
    let ladder = tmp("closed-pipe-ladder.json");
    let nmm = "--rules=nine-mens-morris";
    common::into_closed_pipe(&[
        "arena", nmm, "--a", "greedy", "--b", "random", "--games", "2", "--out", &out,
    ]);
    common::into_closed_pipe(&[
        "ladder",
        nmm,
        "--players=random,greedy",
        "--games=2",
        "--out",
        &ladder,
    ]);
    common::into_closed_pipe(&["bench", "uct", nmm, "--sims", "200", "--seconds", "0.2"]);
}

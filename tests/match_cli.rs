//! End-to-end tests of `shax match`: two real `shax engine` processes, and
//! fake engines (small shell scripts) that play an illegal action, answer
//! garbage, hang, die, or cannot start.

mod common;
use common::shax;

fn tmp(name: &str) -> String {
    common::tmp_file("match-cli", name)
}

/// A fake engine: shakes hands, and answers `go` with `on_go` (shell).
fn fake(name: &str, on_go: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = tmp(name);
    let script = format!(
        "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name fake'; echo uciok;;\n    isready) echo readyok;;\n    go*) {on_go};;\n    quit) exit 0;;\n  esac\ndone\n"
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn engine() -> String {
    format!("{} engine", env!("CARGO_BIN_EXE_shax"))
}

fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// `shax match` between two real engines, alpha-beta at depth 2 against
/// random, in Nine Men's Morris, at `go depth 2`.
fn real_match<'a>(eng: &'a str, games: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "match",
        "--a-cmd",
        eng,
        "--a-option",
        "Player=alphabeta:depth=2",
        "--b-cmd",
        eng,
        "--b-option",
        "Player=random",
        "--rules",
        "nine-mens-morris",
        "--games",
        games,
        "--depth",
        "2",
        "--out",
        out,
    ]
}

#[test]
fn two_real_engines_play_refereed_games_with_records() {
    let out = tmp("real.jsonl");
    let eng = engine();
    let mut args = real_match(&eng, "4", &out);
    args.extend(["--concurrency", "2", "--json"]);
    let (code, stdout, stderr) = shax(&args);
    assert_eq!(code, 0, "{stderr}");
    let v = json(&stdout);
    for k in [
        "games", "a_wins", "b_wins", "draws", "score", "elo", "elo_low", "elo_high", "a_white",
        "a_black", "forfeits",
    ] {
        assert!(v.get(k).is_some(), "missing {k} in {v}");
    }
    assert_eq!(v["games"], 4);
    assert_eq!(v["go"], "go depth 2");
    assert_eq!(v["a_white"]["games"], 2);
    assert_eq!(v["forfeits"].as_array().unwrap().len(), 0);
    let n = v["a_wins"].as_u64().unwrap() + v["b_wins"].as_u64().unwrap();
    assert_eq!(n + v["draws"].as_u64().unwrap(), 4);
    assert!(v["a_wins"].as_u64().unwrap() >= 3, "depth 2 vs random: {v}");
    let lines = std::fs::read_to_string(&out).unwrap();
    assert_eq!(lines.lines().count(), 4);
    for l in lines.lines() {
        let rec: shax_train::GameRecord = serde_json::from_str(l).unwrap();
        rec.replay().unwrap();
    }
    assert!(
        !std::path::Path::new(&format!("{out}.partial")).exists(),
        "the partial file goes once the records are written"
    );
}

#[test]
fn a_killed_match_keeps_its_finished_games() {
    let out = tmp("killed.jsonl");
    let eng = engine();
    let kept = common::kill_once_kept(&real_match(&eng, "400", &out), &out, 2);
    assert!(kept.len() >= 2);
    for rec in kept {
        let names = format!("{} {}", rec.white, rec.black);
        assert!(names.contains("Player=alphabeta:depth=2"), "{names}");
    }
}

/// A against a real random engine; A forfeits every game the same way.
fn forfeits_of(a_cmd: &str, extra: &[&str]) -> (serde_json::Value, String) {
    let eng = engine();
    let out = tmp(&format!("{}.jsonl", a_cmd.replace('/', "_")));
    let mut args = vec![
        "match",
        "--a-cmd",
        a_cmd,
        "--b-cmd",
        &eng,
        "--b-option",
        "Player=random",
        "--games",
        "2",
        "--opening-plies",
        "0",
        "--json",
        "--out",
        &out,
    ];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = shax(&args);
    assert_eq!(code, 0, "{stderr}");
    (json(&stdout), std::fs::read_to_string(&out).unwrap())
}

fn assert_a_forfeits(v: &serde_json::Value, records: &str, reason: &str) {
    assert_eq!(v["b_wins"], 2, "{v}");
    let f = v["forfeits"].as_array().unwrap();
    assert_eq!(f.len(), 2, "{v}");
    for x in f {
        assert_eq!(x["engine"], "A");
        assert_eq!(x["reason"], reason, "{x}");
    }
    assert_eq!(v["reasons"][reason], 2, "{v}");
    for l in records.lines() {
        let rec: shax_train::GameRecord = serde_json::from_str(l).unwrap();
        assert_eq!(rec.reason, reason);
    }
}

#[test]
fn an_engine_that_plays_an_illegal_action_loses_and_the_match_goes_on() {
    // a7 is legal once; the second time it is taken.
    let a = fake("illegal.sh", "echo 'bestmove a7'");
    let (v, records) = forfeits_of(&a, &[]);
    assert_a_forfeits(&v, &records, "illegal-action");
    assert!(
        v["forfeits"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("illegal action 'a7'")
    );
}

#[test]
fn an_engine_that_dies_loses_and_is_restarted() {
    let a = fake("dies.sh", "exit 3");
    let (v, records) = forfeits_of(&a, &[]);
    assert_a_forfeits(&v, &records, "engine-died");
}

#[test]
fn an_engine_that_answers_garbage_or_hangs_loses() {
    let a = fake("garbage.sh", "echo 'bestmove hello'");
    let (v, records) = forfeits_of(&a, &[]);
    assert_a_forfeits(&v, &records, "garbage");
    let a = fake("hangs.sh", "sleep 5");
    let (v, records) = forfeits_of(&a, &["--movetime", "50", "--timeout-ms", "300"]);
    assert_a_forfeits(&v, &records, "timeout");
}

#[test]
fn engines_that_cannot_start_or_refuse_an_option_stop_the_match() {
    let eng = engine();
    let (code, _, stderr) = shax(&[
        "match",
        "--a-cmd",
        "/nonexistent/engine",
        "--b-cmd",
        &eng,
        "--games",
        "2",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("engine A") && stderr.contains("cannot start"),
        "{stderr}"
    );
    let (code, _, stderr) = shax(&[
        "match",
        "--a-cmd",
        &eng,
        "--b-cmd",
        &eng,
        "--b-option",
        "Player=chess",
        "--games",
        "2",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("engine B") && stderr.contains("Player"),
        "{stderr}"
    );
    for bad in [
        &["--a-option", "Player"][..],
        &["--movetime", "0"][..],
        &["--games", "0"][..],
        &["--concurrency", "0"][..],
    ] {
        let mut args = vec!["match", "--a-cmd", &eng, "--b-cmd", &eng];
        args.extend_from_slice(bad);
        let (code, _, stderr) = shax(&args);
        assert_eq!(code, 2, "{bad:?}");
        assert!(stderr.contains(bad[0]), "{bad:?}: {stderr}");
    }
}

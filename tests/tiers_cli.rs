//! Difficulty tiers end to end: a manifest (written here by hand; `shax
//! tiers` writes real ones) read by `tier:<name>` in the arena, the engine's
//! `setoption name Tier` and `shax play --tier`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn shax(root: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shax"))
        .args(args)
        .env("SHAX_CHECKPOINTS", root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The tier names of a manifest's text, weakest first.
fn tier_names(manifest: &str) -> Vec<String> {
    manifest
        .lines()
        .filter_map(|l| l.strip_prefix("name = "))
        .map(|n| n.trim_matches('"').to_string())
        .collect()
}

/// `shax tiers` on one checkpoint at one simulation count and temperature,
/// with `classic` beside it, a short ladder and no bound for beginner;
/// `extra` adds or overrides flags.
fn calibrate(root: &Path, net: &Path, out: &Path, classic: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "tiers",
        "--candidates",
        net.to_str().unwrap(),
        "--sims",
        "1",
        "--temps",
        "0",
        "--classic",
        classic,
        "--beginner-below",
        "",
        "--ladder-games",
        "4",
        "--screen-games",
        "6",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    shax(root, &args, "")
}

/// A checkpoints root with `shax/tiers.toml` and a tiny network beside it.
fn tiers_root(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("shax-tiers-{}-{name}", std::process::id()));
    // Not a folder left by an earlier run whose process had this id.
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.join("shax");
    std::fs::create_dir_all(&dir).unwrap();
    let model = root.join("tiny.toml");
    std::fs::write(&model, "hidden = 32\nblocks = 1\nvalue_hidden = 16\n").unwrap();
    let o = shax(
        &root,
        &[
            "net",
            "init",
            "--rules",
            "shax",
            "--model",
            model.to_str().unwrap(),
            "--out",
            dir.join("n1.bpk").to_str().unwrap(),
            "--force",
        ],
        "",
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let tier = |name: &str, player: &str, ckpt: &str, elo: f64| {
        format!(
            "[[tier]]\nname = \"{name}\"\nplayer = \"{player}\"\n{ckpt}elo = {elo}\nelo_low = {}\nelo_high = {}\ngames_vs_below = 0\n\n",
            elo - 50.0,
            elo + 50.0
        )
    };
    let manifest = format!(
        "format_version = 1\nrules = \"shax\"\ncreated = \"2026-11-29T00:00:00Z\"\nladder_games_per_pair = 10\ntotal_games = 0\n\n{}{}{}{}{}",
        tier(
            "beginner",
            "net:n1.bpk,sims=2,temp=1",
            "checkpoint = \"n1.bpk\"\n",
            400.0
        ),
        tier("easy", "greedy", "", 500.0),
        tier("medium", "alphabeta:depth=1", "", 600.0),
        tier("hard", "alphabeta:depth=2", "", 700.0),
        tier("master", "alphabeta:depth=3", "", 800.0),
    );
    std::fs::write(dir.join("tiers.toml"), manifest).unwrap();
    root
}

#[test]
fn every_tier_loads_and_plays_legal_games() {
    let root = tiers_root("arena");
    for pair in [
        ["beginner", "easy"],
        ["medium", "hard"],
        ["master", "beginner"],
    ] {
        let (a, b) = (format!("tier:{}", pair[0]), format!("tier:{}", pair[1]));
        let records = root.join(format!("{}.jsonl", pair[0]));
        let o = shax(
            &root,
            &[
                "arena",
                "--rules",
                "shax",
                "--a",
                &a,
                "--b",
                &b,
                "--games",
                "2",
                "--json",
                "--out",
                records.to_str().unwrap(),
            ],
            "",
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        // The records replay: every action was legal.
        assert_eq!(
            std::fs::read_to_string(&records).unwrap().lines().count(),
            2
        );
    }
    let o = shax(
        &root,
        &[
            "arena",
            "--rules",
            "shax",
            "--a",
            "tier:grandmaster",
            "--b",
            "random",
            "--games",
            "2",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("grandmaster"),
        "{}",
        text(&o.stderr)
    );
    // Rules without shipped tiers (every preset has some; a preset with an
    // option changed is other rules) say so and where they looked.
    let custom = root.join("morabaraba-no-flying.toml");
    std::fs::write(&custom, "preset = \"morabaraba\"\nflying = 0\n").unwrap();
    let o = shax(
        &root,
        &[
            "arena",
            "--rules",
            custom.to_str().unwrap(),
            "--a",
            "tier:easy",
            "--b",
            "random",
            "--games",
            "2",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("no difficulty tiers for rules 'morabaraba+custom'")
            && err.contains("looked for"),
        "{err}"
    );
}

#[test]
fn engine_takes_a_tier() {
    let root = tiers_root("engine");
    let o = shax(
        &root,
        &["engine"],
        "setoption name Tier value hard\nposition startpos\ngo\nsetoption name Tier value legendary\nquit\n",
    );
    let out = text(&o.stdout);
    assert!(out.lines().any(|l| l.starts_with("bestmove ")), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("info string error") && l.contains("legendary")),
        "{out}"
    );
}

/// Every tier shipped in `checkpoints/` answers `go` in the engine (a short
/// `movetime`: the top tiers search thousands of simulations).
#[test]
fn engine_answers_go_with_every_shipped_tier() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints");
    let mut asked = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("tiers.toml")) else {
            continue;
        };
        let rules = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut script = format!("setoption name Rules value {rules}\n");
        let names = tier_names(&manifest);
        for name in &names {
            script +=
                &format!("setoption name Tier value {name}\nposition startpos\ngo movetime 200\n");
        }
        script += "quit\n";
        let o = shax(&root, &["engine"], &script);
        let out = text(&o.stdout);
        let answers = out.lines().filter(|l| l.starts_with("bestmove ")).count();
        assert_eq!(answers, names.len(), "{rules}: {out}");
        assert!(!out.contains("info string error"), "{rules}: {out}");
        asked += names.len();
    }
    assert!(asked >= 5, "the Shax tiers at least");
}

#[test]
fn play_against_a_tier_in_the_terminal() {
    let root = tiers_root("play");
    let record = root.join("game.jsonl");
    // Bad input gets a hint and a re-prompt; undo takes back a whole turn.
    let o = shax(
        &root,
        &[
            "play",
            "--rules",
            "shax",
            "--tier",
            "easy",
            "--record",
            record.to_str().unwrap(),
        ],
        "d9\nxa1\nmoves\nd7\nundo\nundo\nd7\nquit\n",
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("is not an action"), "{out}");
    assert!(out.contains("white must place now"), "{out}");
    assert!(out.contains("legal: a1 a4 a7"), "{out}");
    assert!(out.contains("nothing to undo"), "{out}");
    assert!(
        out.contains("7  .-----------W---"),
        "the board shows the piece on d7: {out}"
    );
    let rec: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&record).unwrap().trim()).unwrap();
    assert_eq!(rec["white"], "human");
    assert_eq!(rec["black"], "tier:easy");
    assert_eq!(rec["actions"][0], "d7");
    assert_eq!(
        rec["actions"].as_array().unwrap().len(),
        2,
        "d7 and the reply; the undone turn is gone"
    );
    // Playing as Black: the tier opens.
    let o = shax(
        &root,
        &[
            "play",
            "--tier",
            "medium",
            "--as",
            "black",
            "--record",
            record.to_str().unwrap(),
        ],
        "",
    );
    assert!(o.status.success());
    assert!(text(&o.stdout).contains("opponent plays "));
}

#[test]
fn tiers_calibrates_and_writes_a_manifest_that_loads() {
    let root = tiers_root("calibrate");
    let net = root.join("shax").join("n1.bpk");
    let out = root.join("cal").join("shax").join("tiers.toml");
    let o = calibrate(
        &root,
        &net,
        &out,
        // Seven players well above random: five of them rate over 90% against it.
        "greedy;alphabeta:depth=1;alphabeta:depth=2;alphabeta:depth=3;alphabeta:depth=4;alphabeta:depth=5;mcts:sims=200",
        // Twelve games a match cannot promise the band: accept what comes.
        &[
            "--rules",
            "shax",
            "--games",
            "12",
            "--tries",
            "2",
            "--accept-out-of-band",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    // Beginner's check against random is a full match (no bound given).
    let printed = text(&o.stdout);
    assert!(
        printed.contains("beginner vs random: ") && printed.contains("needs at least 90%"),
        "{printed}"
    );
    assert!(!printed.contains("beginner vs alphabeta"), "{printed}");
    let m = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        tier_names(&m),
        ["beginner", "easy", "medium", "hard", "master"]
    );
    // Every tier above beginner played a full match against the one below.
    let games: Vec<&str> = m
        .lines()
        .filter_map(|l| l.strip_prefix("games_vs_below = "))
        .collect();
    assert_eq!(games, ["0", "12", "12", "12", "12"]);
    // The manifest it wrote is one `tier:` reads.
    let o = shax(
        &root.join("cal"),
        &[
            "arena",
            "--rules",
            "shax",
            "--a",
            "tier:master",
            "--b",
            "tier:easy",
            "--games",
            "2",
            "--out",
            root.join("cal-games.jsonl").to_str().unwrap(),
        ],
        "",
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    // An unknown bound is named.
    let o = shax(
        &root,
        &[
            "tiers",
            "--candidates",
            net.to_str().unwrap(),
            "--classic",
            "greedy",
            "--beginner-below",
            "alphabeta:depth=9",
            "--out",
            out.to_str().unwrap(),
        ],
        "",
    );
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("alphabeta:depth=9"),
        "{}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn tiers_out_of_the_band_leaves_the_manifest_alone() {
    let root = tiers_root("band");
    let net = root.join("shax").join("n1.bpk");
    let out = root.join("cal").join("shax").join("tiers.toml");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(&out, "# the shipped manifest\n").unwrap();
    // 6-game screens and 12-game matches score in steps of 1/12 and 1/24:
    // none falls in (0.501, 0.54), so every step misses the band.
    let extra = [
        "--tiers",
        "beginner,master",
        "--band",
        "0.501,0.54",
        "--games",
        "12",
        "--tries",
        "1",
    ];
    let classic = "alphabeta:depth=1;alphabeta:depth=2;alphabeta:depth=3";
    // A band needs both ends.
    let o = calibrate(&root, &net, &out, classic, &["--band", "0.6"]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("--band takes two scores"),
        "{}",
        text(&o.stderr)
    );
    let o = calibrate(&root, &net, &out, classic, &extra);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("tiers.out-of-band.toml") && err.contains("--accept-out-of-band"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "# the shipped manifest\n"
    );
    let rejected = std::fs::read_to_string(out.with_file_name("tiers.out-of-band.toml")).unwrap();
    assert_eq!(tier_names(&rejected), ["beginner", "master"]);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn tiers_makes_fewer_tiers_when_asked() {
    let root = tiers_root("three");
    let net = root.join("shax").join("n1.bpk");
    let out = root.join("cal").join("shax").join("tiers.toml");
    // Five players well above random (the untrained network is not): three or
    // more rate over 90% against it whatever the short ladder's noise.
    let classic = "greedy;alphabeta:depth=1;alphabeta:depth=2;alphabeta:depth=3;alphabeta:depth=5";
    let three = |tiers| {
        let extra = [
            "--tiers",
            tiers,
            "--games",
            "8",
            "--tries",
            "1",
            "--accept-out-of-band",
        ];
        calibrate(&root, &net, &out, classic, &extra)
    };
    let o = three("beginner,medium,master");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let m = std::fs::read_to_string(&out).unwrap();
    assert_eq!(tier_names(&m), ["beginner", "medium", "master"]);
    // A tier the manifest lacks is refused, naming the ones it has.
    let o = shax(
        &root.join("cal"),
        &["arena", "--a", "tier:easy", "--b", "random", "--games", "2"],
        "",
    );
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("easy") && err.contains("beginner, medium, master"),
        "{err}"
    );
    // Names out of order are refused before any game.
    let o = three("master,beginner");
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("weakest first"),
        "{}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&root);
}

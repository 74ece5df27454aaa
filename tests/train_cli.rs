//! End-to-end tests of `shax train` (configs/smoke.toml), `shax inspect`,
//! `shax replay` and `shax selfplay`:
//! - `smoke_config_runs_the_whole_loop`: the files, the checkpoints, every
//!   promised TensorBoard tag, an event file that parses, one evaluation,
//!   `shax compare` of the run and `shax tune-eval`'s errors on it;
//! - `bad_config_fails_before_any_work_naming_key_and_file`;
//! - `selfplay_workers_follow_a_trainer_only_run`;
//! - `a_selfplay_worker_waits_for_its_run_then_gives_up_with_exit_2`.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use shax_train::tb::{event_files, read_dir_values, read_event_file};

fn shax(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shax"))
        .args(args)
        .env_remove("RAYON_NUM_THREADS")
        .output()
        .expect("run shax");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shax-train-cli-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

const SMOKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/smoke.toml");

#[test]
fn smoke_config_runs_the_whole_loop() {
    let run = tmp("smoke");
    let r = run.display().to_string();
    let (code, stdout, stderr) = shax(&[
        "train",
        "--config",
        SMOKE,
        "--run-dir",
        &r,
        "--set",
        "train.search_value_weight=0.5",
        "--set",
        "model.material_head=true",
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("step 20"), "{stdout}");
    // The material head trains: its loss is in each checkpoint's log line.
    let log = fs::read_to_string(run.join("train.log")).unwrap();
    assert!(log.contains(", material "), "{log}");
    // The overrides are what the run recorded (and trained with).
    let recorded = fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(recorded.contains("search_value_weight = 0.5"), "{recorded}");
    assert!(recorded.contains("material_head = true"), "{recorded}");
    for f in ["config.toml", "train.log", "elo.jsonl", "best.txt"] {
        assert!(run.join(f).is_file(), "{f}");
    }
    for step in ["000000000", "000000010", "000000020"] {
        let c = run.join(format!("checkpoints/step-{step}"));
        for f in [
            "net.bpk",
            "net.meta.toml",
            "optim.bpk",
            "state.json",
            "config.toml",
        ] {
            assert!(c.join(f).is_file(), "{}", c.join(f).display());
        }
    }
    assert!(!shax_train::list_shards(&run.join("shards")).is_empty());
    // The event file parses (CRCs checked) and holds every promised tag.
    let files = event_files(&run.join("tb"));
    assert_eq!(files.len(), 1);
    let ev = read_event_file(&files[0]).unwrap();
    assert!(!ev.truncated && ev.records > 1);
    let tb = read_dir_values(&run.join("tb"));
    for tag in shax_train::tb::TRAINING_TAGS {
        let steps: Vec<i64> = tb
            .get(tag)
            .map_or(vec![], |v| v.iter().map(|x| x.0).collect());
        assert_eq!(steps, [10, 20], "{tag}");
    }
    for tag in ["eval/elo", "eval/score_vs_random", "eval/score_vs_greedy"] {
        assert_eq!(tb[tag].len(), 1, "{tag}");
        assert_eq!(tb[tag][0].0, 20, "{tag}");
    }
    let total = tb["loss/total"][0].1;
    assert!(total.is_finite() && total > 0.0);

    // compare: the run's evaluation by its clock; a folder that is no run is named.
    let (code, out, err) = shax(&["compare", &r, "--clock", "wall"]);
    assert_eq!(code, 0, "{err}");
    let name = run.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        out.contains(&name) && out.contains("20") && out.contains("random"),
        "{out}"
    );
    let (code, out, _) = shax(&["compare", &r, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["step"], 20);
    assert!(v["cpu_hours"].as_f64().unwrap() > 0.0, "{v}");
    // A reader that has gone (`| head`) ends it quietly, with success.
    common::into_closed_pipe(&["compare", &r, "--json"]);
    let missing = run.join("no-such-run").display().to_string();
    let (code, _, err) = shax(&["compare", &missing]);
    assert_eq!(code, 2);
    assert!(err.contains(&missing), "{err}");

    // inspect: the run and a checkpoint.
    common::into_closed_pipe(&["inspect", &r]);
    let (code, out, err) = shax(&["inspect", &r]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("step 20 of 20") && out.contains("newest Elo: step-20"),
        "{out}"
    );
    let (code, out, err) = shax(&["inspect", &format!("{r}/checkpoints/step-000000020")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("step 20") && out.contains("optim.bpk"),
        "{out}"
    );
    // replay: a shard in notation with its result.
    let shard = shax_train::list_shards(&run.join("shards"))[0]
        .display()
        .to_string();
    let (code, out, err) = shax(&["replay", &shard, "--game", "0"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("game 0:") && out.contains("winner"), "{out}");
    // A reader that stops early (`shax replay ... | head`) ends it quietly.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_shax"))
        .args(["replay", &shard])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let done = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success() && err.is_empty(), "{err}");
    // tune-eval: one shard (at most `games_in_flight` = 8 games) is too few to hold
    // a tenth out, and it says so; a path that does not exist is named.
    let (code, _, err) = shax(&["tune-eval", &shard]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at least 10"), "{err}");
    let (code, _, err) = shax(&["tune-eval", &missing]);
    assert_eq!(code, 2);
    assert!(err.contains(&missing), "{err}");
    // A second `train` into the same directory without --resume is refused, naming it.
    let (code, _, err) = shax(&["train", "--config", SMOKE, "--run-dir", &r]);
    assert_eq!(code, 2);
    assert!(err.contains(&r) && err.contains("--resume"), "{err}");
    let _ = fs::remove_dir_all(&run);
}

#[test]
fn bad_config_fails_before_any_work_naming_key_and_file() {
    let dir = tmp("bad");
    fs::create_dir_all(&dir).unwrap();
    for (text, key) in [
        ("[selfplay]\nsimz = 3\n", "selfplay.simz"),
        ("[train]\nbatch_size = 0\n", "train.batch_size"),
        ("[model]\nblocks = 100\n", "model.blocks"),
        ("[model]\nhiden = 100\n", "model.hiden"),
        ("rules = \"checkers\"\n", "rules"),
    ] {
        let cfg = dir.join("bad.toml");
        fs::write(&cfg, text).unwrap();
        let run = dir.join("run");
        let (code, _, err) = shax(&[
            "train",
            "--config",
            &cfg.display().to_string(),
            "--run-dir",
            &run.display().to_string(),
        ]);
        assert_eq!(code, 2, "{text}");
        assert!(
            err.contains(&cfg.display().to_string()) && err.contains(key),
            "{text}: {err}"
        );
        assert!(!run.exists(), "work started for {text}");
    }
    // --set overrides are checked the same way, before any work.
    let run = dir.join("run");
    for (set, says) in [
        ("selfplay.simz=3", "selfplay.simz"),
        ("train.search_value_weight=2", "train.search_value_weight"),
        ("model.value_head=tanh", "model.value_head"),
        ("run.hours", "KEY=VALUE"),
    ] {
        let (code, _, err) = shax(&[
            "train",
            "--config",
            SMOKE,
            "--run-dir",
            &run.display().to_string(),
            "--set",
            set,
        ]);
        assert_eq!(code, 2, "{set}");
        assert!(err.contains(says) && err.contains("--set"), "{set}: {err}");
        assert!(!run.exists(), "work started for --set {set}");
    }
    let _ = fs::remove_dir_all(&dir);
}

fn positions_on_disk(run: &Path) -> usize {
    shax_train::list_shards(&run.join("shards"))
        .iter()
        .map(|p| shax_train::read_shard(p).unwrap().positions())
        .sum()
}

#[test]
fn selfplay_workers_follow_a_trainer_only_run() {
    // A trainer-only run needs games from elsewhere: start it, it waits; a
    // `shax selfplay` process writes shards into the same directory.
    let run = tmp("split");
    let r = run.display().to_string();
    let mut trainer = Command::new(env!("CARGO_BIN_EXE_shax"))
        .args(["train", "--config", SMOKE, "--run-dir", &r, "--no-selfplay"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the step-0 checkpoint, then play until the run is done.
    for _ in 0..200 {
        if run.join("checkpoints/step-000000000/state.json").is_file() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let (code, out, err) = shax(&[
        "selfplay",
        "--run-dir",
        &r,
        "--workers",
        "1",
        "--shard-positions",
        "50",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("reached its last step"), "{err}");
    let status = trainer.wait().unwrap();
    assert!(status.success());
    assert!(positions_on_disk(&run) >= 80);
    assert!(run.join("checkpoints/step-000000020/net.bpk").is_file());
    let _ = fs::remove_dir_all(&run);
}

#[test]
fn a_selfplay_worker_waits_for_its_run_then_gives_up_with_exit_2() {
    let run = tmp("never-started");
    let r = run.display().to_string();
    let t = std::time::Instant::now();
    let (code, _, err) = shax(&["selfplay", "--run-dir", &r, "--wait", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        t.elapsed().as_secs_f64() >= 1.0,
        "gave up before its --wait"
    );
    assert!(err.contains("waiting for the run"), "{err}");
    assert!(err.contains(&r) && err.contains("--wait"), "{err}");
}

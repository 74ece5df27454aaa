//! End-to-end tests of the network commands: `shax net init|average`, the `net:`
//! player spec in the arena and the engine, `shax bench nn|mcts --json`.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn shax(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shax"))
        .args(args)
        .output()
        .expect("run shax")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shax-nn-cli-{}-{name}", std::process::id()));
    // A folder of an earlier run whose process had this id would refuse `net init`.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn init(dir: &std::path::Path, rules: &str) -> PathBuf {
    let model = dir.join("tiny.toml");
    std::fs::write(&model, "hidden = 32\nblocks = 1\nvalue_hidden = 16\n").unwrap();
    let out = dir.join(format!("{rules}.bpk"));
    let o = shax(&[
        "net",
        "init",
        "--rules",
        rules,
        "--model",
        model.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    out
}

#[test]
fn net_init_writes_a_checkpoint_and_refuses_to_overwrite() {
    let dir = tmp("init");
    let ckpt = init(&dir, "shax");
    assert!(ckpt.exists());
    assert!(ckpt.with_extension("meta.toml").exists());
    let o = shax(&[
        "net",
        "init",
        "--rules",
        "shax",
        "--out",
        ckpt.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--force"));
}

#[test]
fn net_average_writes_the_mean_and_guards_its_output() {
    let dir = tmp("average");
    let a = init(&dir, "morabaraba");
    // A second network of the same shape, in a run's checkpoint folder.
    let folder = dir.join("step-000000100");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::rename(&a, folder.join("net.bpk")).unwrap();
    std::fs::rename(a.with_extension("meta.toml"), folder.join("net.meta.toml")).unwrap();
    let b = init(&dir, "morabaraba");
    let out = dir.join("mean.bpk");
    let average = |inputs: &[&std::path::Path], out: &std::path::Path| {
        let mut args = vec!["net", "average", "--out", out.to_str().unwrap()];
        args.extend(inputs.iter().map(|p| p.to_str().unwrap()));
        shax(&args)
    };
    let o = average(&[&folder, &b], &out);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("the mean of 2 checkpoints"),
        "{}",
        text(&o.stdout)
    );
    // The mean plays.
    let o = shax(&[
        "arena",
        "--rules",
        "morabaraba",
        "--a",
        &format!("net:{},sims=4", out.display()),
        "--b",
        "random",
        "--games",
        "2",
        "--out",
        dir.join("games.jsonl").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));

    let o = average(&[&b], &out);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--force"), "{}", text(&o.stderr));
    let o = average(&[&b, &out], &out);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("is both an input and --out"),
        "{}",
        text(&o.stderr)
    );
    let shax_net = init(&dir, "shax");
    let o = average(&[&b, &shax_net], &dir.join("other.bpk"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("other rules"),
        "{}",
        text(&o.stderr)
    );
    assert!(!dir.join("other.bpk").exists());
}

#[test]
fn net_player_plays_legal_games_in_the_arena() {
    let dir = tmp("arena");
    let ckpt = init(&dir, "nine-mens-morris");
    let spec = format!("net:{},sims=8", ckpt.display());
    let records = dir.join("games.jsonl");
    let o = shax(&[
        "arena",
        "--rules",
        "nine-mens-morris",
        "--a",
        &spec,
        "--b",
        "random",
        "--games",
        "2",
        "--json",
        "--out",
        records.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&o.stdout)).unwrap();
    assert_eq!(v["games"], 2);
    assert!(std::fs::read_to_string(&records).unwrap().lines().count() == 2);
    // Gumbel root too.
    let spec = format!("net:{},sims=8,gumbel", ckpt.display());
    let o = shax(&[
        "arena",
        "--rules",
        "nine-mens-morris",
        "--a",
        &spec,
        "--b",
        "random",
        "--games",
        "2",
        "--json",
        "--out",
        records.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn a_checkpoint_for_other_rules_is_refused_with_a_clear_error() {
    let dir = tmp("mismatch");
    let ckpt = init(&dir, "morabaraba");
    let spec = format!("net:{},sims=8", ckpt.display());
    let o = shax(&[
        "arena", "--rules", "shax", "--a", &spec, "--b", "random", "--games", "2",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(e.contains("morabaraba") && e.contains("shax"), "{e}");
    // A missing checkpoint and a bad parameter are named too.
    let o = shax(&[
        "arena",
        "--rules",
        "shax",
        "--a",
        "net:/no/such.bpk",
        "--b",
        "random",
        "--games",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("/no/such"), "{}", text(&o.stderr));
    let spec = format!("net:{},sims=0", ckpt.display());
    let o = shax(&[
        "arena",
        "--rules",
        "morabaraba",
        "--a",
        &spec,
        "--b",
        "random",
        "--games",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("sims"), "{}", text(&o.stderr));
}

#[test]
fn engine_plays_with_a_net_player() {
    let dir = tmp("engine");
    let ckpt = init(&dir, "shax");
    let mut child = Command::new(env!("CARGO_BIN_EXE_shax"))
        .arg("engine")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = format!(
        "setoption name Player value net:{},sims=16\nposition startpos moves d7\ngo\n\
         setoption name Rules value morabaraba\nstatus\nquit\n",
        ckpt.display()
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    let best = lines
        .iter()
        .find(|l| l.starts_with("bestmove "))
        .expect("a bestmove line");
    let action = best.trim_start_matches("bestmove ");
    assert!(action.len() == 2 && action != "d7", "{best}");
    // The shax network cannot play morabaraba: the rules stay as they were.
    let err = lines
        .iter()
        .find(|l| l.starts_with("info string error"))
        .expect("an error line");
    assert!(err.contains("Rules"), "{err}");
    assert_eq!(lines.last().unwrap(), "status ongoing to-act black");
}

#[test]
fn bench_nn_and_mcts_report_json() {
    let o = shax(&[
        "bench",
        "nn",
        "--batches",
        "1,8",
        "--seconds",
        "0.05",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&o.stdout)).unwrap();
    assert_eq!(v["batches"].as_array().unwrap().len(), 2);
    assert!(v["peak_gflops_one_thread"].as_f64().unwrap() > 0.0);
    assert!(v["batches"][1]["direct_evals_per_s"].as_f64().unwrap() > 0.0);
    let o = shax(&[
        "bench",
        "mcts",
        "--games",
        "4",
        "--sims",
        "8",
        "--seconds",
        "0.2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&o.stdout)).unwrap();
    assert!(v["simulations"].as_u64().unwrap() > 0);
    assert!(v["pure_evals_per_sec"].as_f64().unwrap() > 0.0);
    // Every simulation is an evaluation, a finished game or a cache hit.
    let (sims, evals, hits) = (
        v["simulations"].as_u64().unwrap(),
        v["evaluations"].as_u64().unwrap(),
        v["cache_hits"].as_u64().unwrap(),
    );
    assert!(evals + hits <= sims, "{evals} + {hits} > {sims}");
}

#[test]
fn bench_train_reports_each_batch_and_names_an_unknown_backend() {
    let dir = tmp("bench-train");
    let model = dir.join("small.toml");
    std::fs::write(&model, "hidden = 32\nblocks = 1\nvalue_hidden = 16\n").unwrap();
    let model = model.to_str().unwrap();
    let args = ["bench", "train", "--model", model, "--batches", "8,16"];
    let o = shax(&[&args[..], &["--seconds", "0.05", "--json"]].concat());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&o.stdout)).unwrap();
    let batches = v["batches"].as_array().unwrap();
    assert_eq!(batches.len(), 2);
    assert_eq!(batches[1]["batch"], 16);
    assert!(batches[0]["samples_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(v["model"]["hidden"], 32);
    let o = shax(&[&args[..], &["--backend", "tpu"]].concat());
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("unknown backend 'tpu'"),
        "{}",
        text(&o.stderr)
    );
}

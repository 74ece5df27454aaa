//! What the end-to-end tests share: running the `shax` binary.

// Each test binary includes this module and uses a part of it.
#![allow(dead_code)]

use std::process::Command;

/// Runs `shax` with `args`: exit code, stdout, stderr.
pub fn shax(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shax"))
        .args(args)
        .output()
        .expect("run shax");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `shax` with `args` into a pipe whose reader has gone (`| head`
/// stopped early) and checks that it ends quietly, with success.
pub fn into_closed_pipe(args: &[&str]) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let gone = Command::new(env!("CARGO_BIN_EXE_shax"))
        .args(args)
        .stdout(writer)
        .output()
        .expect("run shax");
    let err = String::from_utf8_lossy(&gone.stderr);
    assert!(gone.status.success() && err.is_empty(), "{args:?}: {err}");
}

/// A path for `name` in this test process's own folder for `suite` (created)
/// under the system's temporary directory.
pub fn tmp_file(suite: &str, name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("shax-{suite}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).display().to_string()
}

/// Starts `shax` with `args`, waits until its `<out>.partial` holds `games`
/// whole lines (at most 120 s), kills it, checks that it did not write `out`,
/// and returns the records of the partial file's whole lines, each replayed.
pub fn kill_once_kept(args: &[&str], out: &str, games: usize) -> Vec<shax_train::GameRecord> {
    use std::time::{Duration, Instant};
    let partial = format!("{out}.partial");
    let _ = std::fs::remove_file(&partial);
    let mut child = Command::new(env!("CARGO_BIN_EXE_shax"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start shax");
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::fs::read_to_string(&partial).map_or(0, |t| t.matches('\n').count()) < games {
        assert!(Instant::now() < deadline, "no {games} games kept in 120 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    let _ = child.wait();
    assert!(
        !std::path::Path::new(out).exists(),
        "the match did not finish"
    );
    let text = std::fs::read_to_string(&partial).unwrap();
    let whole = &text[..=text.rfind('\n').unwrap()];
    let kept: Vec<shax_train::GameRecord> = whole
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    for rec in &kept {
        rec.replay().unwrap();
    }
    kept
}

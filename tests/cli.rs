//! End-to-end tests of the `shax` binary: perft, the engine protocol, bench.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn shax(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shax"))
        .args(args)
        .output()
        .expect("run shax")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn engine(input: &str) -> (Vec<String>, Output) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shax"))
        .arg("engine")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start engine");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (stdout(&out).lines().map(str::to_string).collect(), out)
}

#[test]
fn perft_prints_the_count_on_its_last_line() {
    let o = shax(&["perft", "--rules", "nine-mens-morris", "--depth", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().last(), Some("255024"));
}

#[test]
fn perft_divide_into_a_pipe_whose_reader_has_gone_ends_quietly() {
    // `shax perft --divide ... | head -1`: the reader goes before the end.
    common::into_closed_pipe(&["perft", "--depth", "2", "--divide"]);
}

#[test]
fn perft_turns_counts_a_move_and_its_removal_as_one() {
    // --fen starts from a given position: Black places on one of 23 points.
    let fen = "W../.../.../....../.../.../... b - 8,8 - -,- 0 0 1";
    let plies = shax(&[
        "perft",
        "--rules",
        "nine-mens-morris",
        "--fen",
        fen,
        "--depth",
        "1",
    ]);
    assert_eq!(stdout(&plies).lines().last(), Some("23"));
    let turns = shax(&[
        "perft",
        "--rules",
        "nine-mens-morris",
        "--depth",
        "5",
        "--turns",
    ]);
    let plies = shax(&["perft", "--rules", "nine-mens-morris", "--depth", "5"]);
    let (t, p): (u64, u64) = (
        stdout(&turns).lines().last().unwrap().parse().unwrap(),
        stdout(&plies).lines().last().unwrap().parse().unwrap(),
    );
    // The fifth placement is the first that can form a line (White's three
    // pieces on one of 16 lines in any of 3! orders, Black's two on the other
    // 21 points): such a turn ends after one of Black's two pieces is removed,
    // two leaves where the ply count has one.
    assert_eq!(t, p + 16 * 6 * 21 * 20);
    let turns6 = shax(&[
        "perft",
        "--rules",
        "nine-mens-morris",
        "--depth",
        "6",
        "--turns",
    ]);
    let t6: u64 = stdout(&turns6).lines().last().unwrap().parse().unwrap();
    // A line at the fifth placement puts a removal and Black's placement in
    // the next two turns' worth of leaves, so turn depth 6 has more leaves
    // than ply depth 6 (96223680).
    assert!(
        t6 > 96_223_680,
        "turn depth 6 reaches beyond the removals: {t6}"
    );
}

#[test]
fn unknown_rules_exit_with_code_2_and_say_what() {
    let o = shax(&["perft", "--rules", "checkers", "--depth", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("checkers"), "{}", stderr(&o));
}

#[test]
fn a_bad_rules_file_names_the_file_and_the_key() {
    let dir = std::env::temp_dir().join(format!("shax-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    std::fs::write(&path, "preset = \"shax\"\nflying = 2\n").unwrap();
    let o = shax(&["perft", "--rules", path.to_str().unwrap(), "--depth", "1"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("bad.toml") && e.contains("flying"), "{e}");
    std::fs::write(&path, "preset = \"nine-mens-morris\"\nflying = 0\n").unwrap();
    let o = shax(&["perft", "--rules", path.to_str().unwrap(), "--depth", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().last(), Some("552"));
}

#[test]
fn engine_session() {
    let (lines, out) = engine(
        "uci\nisready\nsetoption name Rules value nine-mens-morris\nposition startpos moves a7 a1 d7 d1 g7\n\
         legal\nstatus\nposition startpos moves a7 a7\nlegal\nperft 2\nbogus\nd\nquit\nisready\n",
    );
    assert!(out.status.success());
    assert!(lines[0].starts_with("id name shax "));
    let uciok = lines.iter().position(|l| l == "uciok").unwrap();
    assert_eq!(lines[uciok + 1], "readyok");
    assert_eq!(lines[uciok + 2], "legal xa1 xd1");
    assert_eq!(lines[uciok + 3], "status ongoing to-act white");
    assert!(
        lines[uciok + 4].starts_with("info string error: "),
        "{}",
        lines[uciok + 4]
    );
    assert!(lines[uciok + 4].contains("a7"));
    // The bad position line left the position as it was.
    assert_eq!(lines[uciok + 5], "legal xa1 xd1");
    // Two removals, then Black places on one of 20 empty points.
    assert_eq!(lines[uciok + 6], "perft 2 40");
    assert!(lines[uciok + 7].starts_with("info string error: unknown command"));
    assert!(lines.iter().any(|l| l.starts_with("fen: ")));
    // Nothing after quit is answered.
    assert_eq!(lines.last().unwrap(), "status ongoing to-act white");
}

#[test]
fn engine_survives_garbage_and_eof() {
    let mut input = String::new();
    for junk in [
        "\u{0}\u{1}",
        "position fen",
        "position fen a b c d e f g h i",
        "setoption",
        "perft -1",
        "go go go",
    ] {
        input.push_str(junk);
        input.push('\n');
    }
    input.push_str("status");
    let (lines, out) = engine(&input);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines.last().unwrap(), "status ongoing to-act white");
}

#[test]
fn bench_rules_json() {
    let o = shax(&[
        "bench",
        "rules",
        "--rules",
        "shax",
        "--depth",
        "3",
        "--seconds",
        "0.05",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let row = &v["rows"][0];
    assert_eq!(row["perft_leaves"], 24 * 23 * 22);
    assert!(row["games"].as_u64().unwrap() > 0);
    assert!(row["games_per_sec"].as_f64().unwrap() > 0.0);
}

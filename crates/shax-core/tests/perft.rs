//! Perft counts against the data file `data/perft.txt`.

use shax_core::{Depth, Position, Rules, perft};

fn cases() -> Vec<(String, Depth, u32, u64)> {
    include_str!("data/perft.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let mode = match f[1] {
                "plies" => Depth::Plies,
                "turns" => Depth::Turns,
                other => panic!("bad mode {other} in perft.txt"),
            };
            (
                f[0].to_string(),
                mode,
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn perft_matches_the_data_file() {
    let cases = cases();
    assert!(cases.len() >= 7);
    for (rules, mode, depth, expected) in cases {
        let pos = Position::new(Rules::load(&rules).unwrap());
        assert_eq!(
            perft(&pos, depth, mode),
            expected,
            "{rules} {mode:?} depth {depth}"
        );
    }
}

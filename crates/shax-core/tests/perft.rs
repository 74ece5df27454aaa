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

#[test]
fn divide_sums_to_perft_in_both_modes() {
    use shax_core::perft_divide;
    let pos = Position::new(Rules::load("nine-mens-morris").unwrap());
    for mode in [Depth::Plies, Depth::Turns] {
        let parts = perft_divide(&pos, 5, mode);
        assert_eq!(parts.len(), 24);
        assert_eq!(
            parts.iter().map(|(_, n)| n).sum::<u64>(),
            perft(&pos, 5, mode),
            "{mode:?}"
        );
    }
}

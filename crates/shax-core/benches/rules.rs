//! Rules-core benchmarks: perft as the library counts it (bulk counting and a
//! transposition table), a plain bulk-counting perft without a table (the raw
//! move generator), legal action generation, and random playouts.
//!
//! `cargo bench -p shax-core`; `shax bench rules` gives the user-facing figures.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shax_core::{ActionList, Depth, KeyHistory, Position, Preset, Rules, perft, play_out};

/// Bulk-counting perft without a table (no repetition either: fine from the
/// start position to these depths).
fn plain_perft(pos: &Position, depth: u32) -> u64 {
    if pos.outcome().is_some() {
        return 0;
    }
    if depth == 1 {
        return pos.count_legal_actions() as u64;
    }
    let mut n = 0;
    for &a in pos.legal_actions().iter() {
        let mut child = *pos;
        child.play_unchecked(a);
        n += plain_perft(&child, depth - 1);
    }
    n
}

fn bench_perft(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft");
    for preset in [Preset::NineMensMorris, Preset::Shax] {
        let pos = Position::new(Rules::preset(preset));
        let leaves = perft(&pos, 5, Depth::Plies);
        assert_eq!(plain_perft(&pos, 5), leaves);
        g.throughput(Throughput::Elements(leaves));
        g.bench_with_input(
            BenchmarkId::new(format!("{}/table", preset.name()), 5),
            &pos,
            |b, pos| b.iter(|| perft(pos, 5, Depth::Plies)),
        );
        g.bench_with_input(
            BenchmarkId::new(format!("{}/plain", preset.name()), 5),
            &pos,
            |b, pos| b.iter(|| plain_perft(pos, 5)),
        );
    }
    g.finish();
}

/// Positions from the middle of random games, for generation speed.
fn sample_positions(rules: Rules, n: usize) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(7);
    let mut out = Vec::new();
    while out.len() < n {
        let mut pos = Position::new(rules);
        for _ in 0..rng.random_range(0..120) {
            if pos.outcome().is_some() {
                break;
            }
            let legal = pos.legal_actions();
            pos.play_unchecked(legal[rng.random_range(0..legal.len())]);
        }
        out.push(pos);
    }
    out
}

fn bench_generation(c: &mut Criterion) {
    let mut g = c.benchmark_group("legal_actions");
    for preset in Preset::ALL {
        let positions = sample_positions(Rules::preset(preset), 1024);
        g.throughput(Throughput::Elements(positions.len() as u64));
        g.bench_function(preset.name(), |b| {
            let mut list = ActionList::new();
            b.iter(|| {
                let mut n = 0;
                for p in &positions {
                    p.legal_actions_into(&mut list);
                    n += list.len();
                }
                n
            })
        });
    }
    g.finish();
}

fn bench_playout(c: &mut Criterion) {
    let mut g = c.benchmark_group("random_game");
    g.throughput(Throughput::Elements(1));
    for preset in Preset::ALL {
        let start = Position::new(Rules::preset(preset));
        let mut rng = SmallRng::seed_from_u64(1);
        let mut history = KeyHistory::new(&start);
        g.bench_function(preset.name(), |b| {
            b.iter(|| {
                play_out(&start, &mut history, |_, legal| {
                    legal[rng.random_range(0..legal.len())]
                })
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_perft, bench_generation, bench_playout);
criterion_main!(benches);

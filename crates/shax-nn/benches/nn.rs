//! Criterion benchmark of the evaluator at the default batch (one thread).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shax_core::{POLICY_SIZE, Position, Rules};
use shax_nn::{Backend, DEFAULT_BATCH, ModelConfig, NetEvaluator};
use shax_search::Evaluator;

fn evaluator(c: &mut Criterion) {
    let device = Backend::Cpu.device();
    let mut eval = NetEvaluator::new(ModelConfig::new().init(&device), device);
    let mut positions = Vec::new();
    let mut pos = Position::new(Rules::default());
    while positions.len() < DEFAULT_BATCH {
        positions.push(pos);
        let actions = pos.legal_actions();
        if actions.is_empty() || pos.outcome().is_some() {
            pos = Position::new(Rules::default());
        } else {
            pos.play_unchecked(actions[positions.len() % actions.len()]);
        }
    }
    let mut logits = vec![0.0; DEFAULT_BATCH * POLICY_SIZE];
    let mut values = vec![0.0; DEFAULT_BATCH];
    let mut group = c.benchmark_group("nn");
    group.throughput(Throughput::Elements(DEFAULT_BATCH as u64));
    group.bench_function("evaluate_default_batch", |b| {
        b.iter(|| eval.evaluate(&positions, &mut logits, &mut values))
    });
    group.finish();
}

criterion_group!(benches, evaluator);
criterion_main!(benches);

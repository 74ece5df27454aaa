//! `shax bench nn` and `shax bench mcts`: the network's evaluation rate
//! against the machine's matmul peak, and the neural MCTS's simulation rate
//! with many games in flight against the pure evaluation rate.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde::Serialize;
use shax_core::{KeyHistory, Position, Rules};
use shax_nn::{Backend, DEFAULT_BENCH_BATCHES, ModelConfig, NetWeights, bench_nn};
use shax_search::{EvalBuffers, Evaluator, GumbelConfig, Puct, PuctConfig, step_batched};

/// The model file's network, or the default one.
pub(super) fn model(path: &Option<PathBuf>) -> anyhow::Result<ModelConfig> {
    match path {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            Ok(ModelConfig::from_toml(&text).with_context(|| format!("{}", p.display()))?)
        }
        None => Ok(ModelConfig::default()),
    }
}

#[derive(clap::Args, Debug)]
pub struct NnArgs {
    /// Model file (TOML); the default network when absent.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Batch sizes, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_BENCH_BATCHES.to_vec())]
    batches: Vec<usize>,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Where the network runs: cpu, or wgpu in a build with the `wgpu` feature.
    #[arg(long, default_value = "cpu")]
    backend: Backend,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn nn(a: NnArgs) -> anyhow::Result<()> {
    super::bench::check_seconds(a.seconds)?;
    let config = model(&a.model)?;
    let r = bench_nn(&config, a.backend, &a.batches, a.seconds)?;
    if a.json {
        writeln!(super::stdout(), "{}", serde_json::to_string_pretty(&r)?)?;
        return Ok(());
    }
    write!(super::stdout(), "{r}")?;
    Ok(())
}

#[derive(clap::Args, Debug)]
pub struct MctsArgs {
    /// Rules: a preset or a rules TOML file.
    #[arg(long, default_value = "shax")]
    rules: String,
    /// Model file (TOML); the default network, fresh, when absent.
    #[arg(long, conflicts_with = "net")]
    model: Option<PathBuf>,
    /// A trained network (a checkpoint of these rules) instead of fresh weights: a
    /// sharper policy makes virtual losses collide more, so fewer leaves per call.
    #[arg(long)]
    net: Option<PathBuf>,
    /// Games in flight per thread.
    #[arg(long, default_value_t = 64)]
    games: usize,
    /// Simulations per move.
    #[arg(long, default_value_t = 64)]
    sims: u32,
    /// Leaves each game contributes to a batch (virtual loss spreads them).
    #[arg(long, default_value_t = 1)]
    leaves: usize,
    /// Worker threads, each with its own copy of the network and its own games.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Use the Gumbel root.
    #[arg(long)]
    gumbel: bool,
    /// Seconds of self-play (and as long again for the pure evaluation rate).
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize, Default, Clone)]
struct MctsReport {
    threads: usize,
    games_in_flight: usize,
    sims_per_move: u32,
    simulations: u64,
    evaluations: u64,
    /// Leaves answered from the search's evaluation cache (transpositions).
    cache_hits: u64,
    evaluator_calls: u64,
    mean_batch: f64,
    moves: u64,
    seconds: f64,
    sims_per_sec: f64,
    evals_per_sec_in_search: f64,
    pure_evals_per_sec: f64,
    sims_over_pure_evals: f64,
}

/// Self-play with `games` searches in flight on this thread for `seconds`.
fn selfplay(
    rules: Rules,
    weights: &NetWeights,
    a: &MctsArgs,
    seed: u64,
) -> anyhow::Result<MctsReport> {
    let batch = a.games * a.leaves;
    let mut eval = weights.evaluator()?.with_preferred_batch(batch);
    let config = PuctConfig {
        simulations: a.sims,
        leaves_per_batch: a.leaves,
        dirichlet_epsilon: if a.gumbel { 0.0 } else { 0.25 },
        gumbel: a.gumbel.then(GumbelConfig::default),
        ..PuctConfig::default()
    };
    let start = Position::new(rules);
    let mut games: Vec<(Position, KeyHistory)> = Vec::new();
    let mut searches: Vec<Puct> = Vec::new();
    for i in 0..a.games {
        let mut s = Puct::new(config, seed ^ (i as u64) << 20);
        s.set_root(start, KeyHistory::new(&start));
        searches.push(s);
        games.push((start, KeyHistory::new(&start)));
    }
    let mut buf = EvalBuffers::default();
    let (mut sims, mut moves) = (0u64, 0u64);
    let t = Instant::now();
    let budget = Duration::from_secs_f64(a.seconds);
    while t.elapsed() < budget {
        step_batched(&mut searches, &mut eval, &mut buf);
        for (s, (pos, history)) in searches.iter_mut().zip(games.iter_mut()) {
            if !s.finished() {
                continue;
            }
            sims += s.done() as u64;
            moves += 1;
            let action = s
                .best_action(1.0)
                .expect("a search root of an ongoing game has children");
            pos.play_unchecked(action);
            history.push(action, pos);
            if history.outcome(pos).is_some() {
                *pos = start;
                *history = KeyHistory::new(&start);
            }
            s.set_root(*pos, history.clone());
        }
    }
    let seconds = t.elapsed().as_secs_f64();
    sims += searches.iter().map(|s| s.done() as u64).sum::<u64>();
    let cache_hits = searches.iter().map(|s| s.cache_hits).sum();
    let mean_batch = buf.evaluated as f64 / buf.calls.max(1) as f64;

    let n = mean_batch.round().max(1.0) as usize;
    let positions: Vec<Position> = games.iter().map(|(p, _)| *p).cycle().take(n).collect();
    let pure = pure_rate(&mut eval, &positions, budget);
    Ok(MctsReport {
        threads: 1,
        games_in_flight: a.games,
        sims_per_move: a.sims,
        simulations: sims,
        evaluations: buf.evaluated,
        cache_hits,
        evaluator_calls: buf.calls,
        mean_batch,
        moves,
        seconds,
        sims_per_sec: sims as f64 / seconds,
        evals_per_sec_in_search: buf.evaluated as f64 / seconds,
        pure_evals_per_sec: pure,
        sims_over_pure_evals: sims as f64 / seconds / pure,
    })
}

/// The pure rate: evaluations a second of `eval` on the batch `positions`
/// (the search's mean batch size) for `budget`.
fn pure_rate<E: Evaluator>(eval: &mut E, positions: &[Position], budget: Duration) -> f64 {
    let n = positions.len();
    let mut logits = vec![0.0; n * shax_core::POLICY_SIZE];
    let mut values = vec![0.0; n];
    let (mut evals, t) = (0u64, Instant::now());
    while t.elapsed() < budget {
        eval.evaluate(positions, &mut logits, &mut values);
        evals += n as u64;
    }
    evals as f64 / t.elapsed().as_secs_f64()
}

pub fn mcts(a: MctsArgs) -> anyhow::Result<()> {
    super::bench::check_seconds(a.seconds)?;
    if a.games == 0 || a.games > 4096 {
        anyhow::bail!("--games must be 1 to 4096, got {}", a.games);
    }
    if a.sims == 0 || a.leaves == 0 || a.leaves > 64 {
        anyhow::bail!("--sims must be at least 1 and --leaves 1 to 64");
    }
    if a.threads == 0 || a.threads > 256 {
        anyhow::bail!("--threads must be 1 to 256, got {}", a.threads);
    }
    let rules = Rules::load(&a.rules)?;
    let (config, weights) = network(&a, &rules)?;
    let reports: Vec<anyhow::Result<MctsReport>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..a.threads)
            .map(|i| {
                let (w, a) = (&weights, &a);
                scope.spawn(move || {
                    // One thread per worker: inference on the calling thread.
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
                    pool.install(|| selfplay(rules, w, a, i as u64))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("bench thread"))
            .collect()
    });
    let reports: Vec<MctsReport> = reports.into_iter().collect::<anyhow::Result<_>>()?;
    let r = combined(&reports);
    let mut out = super::stdout();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?;
    } else {
        report(&mut out, &r, &config)?;
    }
    Ok(())
}

/// The network to search with: `--net`'s, or random weights of `--model`'s shape.
fn network(a: &MctsArgs, rules: &Rules) -> anyhow::Result<(ModelConfig, NetWeights)> {
    Ok(match &a.net {
        Some(path) => {
            let (meta, weights) = shax_nn::load_weights(path, Some(rules))
                .with_context(|| format!("loading {}", path.display()))?;
            (meta.model, weights)
        }
        None => {
            let config = model(&a.model)?;
            let net = config.init(&shax_nn::Backend::Cpu.device());
            let weights = NetWeights::from_net(&config, net)?;
            (config, weights)
        }
    })
}

/// The threads' reports as one: counts and rates summed.
fn combined(reports: &[MctsReport]) -> MctsReport {
    let mut r = reports[0].clone();
    if reports.len() > 1 {
        let sum = |f: fn(&MctsReport) -> f64| reports.iter().map(f).sum::<f64>();
        r.threads = reports.len();
        r.simulations = reports.iter().map(|x| x.simulations).sum();
        r.evaluations = reports.iter().map(|x| x.evaluations).sum();
        r.cache_hits = reports.iter().map(|x| x.cache_hits).sum();
        r.evaluator_calls = reports.iter().map(|x| x.evaluator_calls).sum();
        r.moves = reports.iter().map(|x| x.moves).sum();
        r.mean_batch = r.evaluations as f64 / r.evaluator_calls.max(1) as f64;
        r.sims_per_sec = sum(|x| x.sims_per_sec);
        r.evals_per_sec_in_search = sum(|x| x.evals_per_sec_in_search);
        r.pure_evals_per_sec = sum(|x| x.pure_evals_per_sec);
        r.sims_over_pure_evals = r.sims_per_sec / r.pure_evals_per_sec;
    }
    r
}

fn report(out: &mut impl Write, r: &MctsReport, config: &ModelConfig) -> std::io::Result<()> {
    writeln!(
        out,
        "{} thread(s), {} games in flight each, {} sims/move, network hidden {} blocks {}",
        r.threads, r.games_in_flight, r.sims_per_move, config.hidden, config.blocks
    )?;
    writeln!(
        out,
        "MCTS: {:.0} sims/s ({} moves, mean batch {:.1}); pure network: {:.0} evals/s at that batch",
        r.sims_per_sec, r.moves, r.mean_batch, r.pure_evals_per_sec
    )?;
    writeln!(
        out,
        "search keeps {:.0}% of the network's rate in simulations, {:.0}% in evaluations \
         ({:.0} evals/s; simulations ending in finished games need none, nor the {:.1}% \
         answered from the evaluation cache)",
        100.0 * r.sims_over_pure_evals,
        100.0 * r.evals_per_sec_in_search / r.pure_evals_per_sec,
        r.evals_per_sec_in_search,
        100.0 * r.cache_hits as f64 / r.simulations.max(1) as f64
    )
}

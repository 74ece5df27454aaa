//! The load generator of `shax bench serve`: `clients` concurrent clients
//! each sending `POST /v1/move` one after another for a while, from a fixed
//! set of positions (random openings), timing each answer.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};
use shax_core::{Game, Rules};
use shax_search::mix_seed;

use crate::client::Client;

/// What a load run measured.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    /// Concurrent clients.
    pub clients: usize,
    /// Requests answered 200.
    pub ok: u64,
    /// Requests answered otherwise (503 included) or failed.
    pub errors: u64,
    /// Wall-clock seconds of the run.
    pub seconds: f64,
    /// Answers 200 per second.
    pub requests_per_sec: f64,
    /// Median latency of the 200 answers, milliseconds.
    pub p50_ms: f64,
    /// 99th percentile latency of the 200 answers, milliseconds.
    pub p99_ms: f64,
    /// Mean search time the server reported (`time_ms`).
    pub mean_search_ms: f64,
}

/// `count` request bodies for `rules` and `player`: positions after random
/// openings of 0 to 39 actions (seeded), each asking for `player`.
pub fn bodies(rules: &Rules, player: &str, count: usize, seed: u64) -> Vec<Value> {
    (0..count as u64)
        .map(|i| {
            let mut game = Game::new(*rules);
            let len = mix_seed(seed, i) % 40;
            for j in 0..len {
                let legal = game.legal_actions();
                if legal.is_empty() {
                    break;
                }
                let k = mix_seed(seed ^ i, j) as usize % legal.len();
                if game.play(legal[k]).is_err() {
                    break;
                }
            }
            if game.outcome().is_some() {
                game.undo();
            }
            let moves: Vec<String> = game.actions().iter().map(|a| a.to_string()).collect();
            json!({ "rules": rules.preset.name(), "moves": moves, "player": player })
        })
        .collect()
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i]
}

/// Runs `clients` clients against `client`'s server for `duration`.
pub async fn run(
    client: &Client,
    clients: usize,
    duration: Duration,
    bodies: Vec<Value>,
) -> LoadReport {
    let bodies = std::sync::Arc::new(bodies);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let (client, bodies) = (client.clone(), std::sync::Arc::clone(&bodies));
        tasks.push(tokio::spawn(async move {
            let (mut lat, mut search, mut errors) = (Vec::new(), 0.0, 0u64);
            let mut i = c;
            while start.elapsed() < duration {
                let t = Instant::now();
                match client
                    .post_json("/v1/move", &bodies[i % bodies.len()])
                    .await
                {
                    Ok(a) if a.status.is_success() => {
                        lat.push(t.elapsed().as_secs_f64() * 1e3);
                        search += a.json()["time_ms"].as_f64().unwrap_or(0.0);
                    }
                    _ => errors += 1,
                }
                i += clients;
            }
            (lat, search, errors)
        }));
    }
    let (mut lat, mut search, mut errors) = (Vec::new(), 0.0, 0);
    for t in tasks {
        if let Ok((l, s, e)) = t.await {
            lat.extend(l);
            search += s;
            errors += e;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    lat.sort_by(f64::total_cmp);
    let ok = lat.len() as u64;
    LoadReport {
        clients,
        ok,
        errors,
        seconds,
        requests_per_sec: ok as f64 / seconds,
        p50_ms: percentile(&lat, 0.5),
        p99_ms: percentile(&lat, 0.99),
        mean_search_ms: if ok > 0 { search / ok as f64 } else { 0.0 },
    }
}

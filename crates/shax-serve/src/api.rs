//! The handlers of the versioned JSON API (`/v1/...`) and `/healthz`.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use shax_core::{BoardKind, Point, Rules};
use shax_search::{Limits, history_of, mix_seed};

use crate::error::{ApiError, ApiJson, ApiQuery};
use crate::game::{GameRequest, board, replay, rule_set, status};
use crate::players::{self, Chosen};
use crate::state::{AppState, RuleSet};

type Shared = State<Arc<AppState>>;

/// `GET /healthz`.
pub async fn healthz(State(s): Shared) -> Json<Value> {
    let busy = s.config.workers - s.workers.available_permits();
    Json(json!({
        "ok": true,
        "workers": s.config.workers,
        "busy": busy,
        "admitted": s.admitted.load(Ordering::Relaxed),
        "queue": s.config.queue,
    }))
}

/// The board of a rule set: every point with its file and rank, the lines,
/// the adjacency, and which lines are diagonals.
fn geometry_json(rules: &Rules) -> Value {
    let g = rules.board.geometry();
    let names = |bb: shax_core::Bitboard| bb.iter().map(Point::name).collect::<Vec<_>>();
    let plain = BoardKind::Plain.geometry();
    let points: Vec<Value> = Point::ALL
        .iter()
        .map(|p| {
            let b = p.name().as_bytes();
            json!({
                "name": p.name(),
                "index": p.index(),
                "file": b[0] - b'a',
                "rank": b[1] - b'0',
            })
        })
        .collect();
    let adjacency: serde_json::Map<String, Value> = Point::ALL
        .iter()
        .map(|p| (p.name().to_string(), json!(names(g.adjacent[p.index()]))))
        .collect();
    let diagonals: Vec<_> = g
        .lines
        .iter()
        .filter(|l| !plain.lines.contains(l))
        .map(|&l| names(l))
        .collect();
    json!({
        "kind": rules.board.name(),
        "points": points,
        "lines": g.lines.iter().map(|&l| names(l)).collect::<Vec<_>>(),
        "diagonals": diagonals,
        "adjacency": adjacency,
    })
}

/// The options of a rule set, as in a rules file.
fn options_json(rules: &Rules) -> Value {
    toml::from_str::<toml::Table>(&rules.to_toml())
        .ok()
        .and_then(|t| serde_json::to_value(t).ok())
        .unwrap_or(Value::Null)
}

/// `GET /v1/rules`.
pub async fn rules(State(s): Shared) -> Json<Value> {
    let sets: Vec<Value> = s
        .rule_sets
        .iter()
        .map(|set| {
            json!({
                "name": set.rules.preset.name(),
                "options": options_json(&set.rules),
                "board": geometry_json(&set.rules),
                "start": shax_core::Position::new(set.rules).fen(),
                "tiers": set.tiers.iter().map(|t| t.entry.name.as_str()).collect::<Vec<_>>(),
            })
        })
        .collect();
    Json(json!({ "version": 1, "default": "shax", "rules": sets }))
}

/// The query of `GET /v1/tiers`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TiersQuery {
    rules: Option<String>,
}

/// `GET /v1/tiers?rules=<preset>`.
pub async fn tiers(
    State(s): Shared,
    ApiQuery(q): ApiQuery<TiersQuery>,
) -> Result<Json<Value>, ApiError> {
    let set = rule_set(&s, q.rules.as_deref())?;
    let name = set.rules.preset.name();
    let tiers: Vec<Value> = set
        .tiers
        .iter()
        .map(|t| {
            json!({
                "name": t.entry.name,
                "elo": t.entry.elo.round(),
                "elo_low": t.entry.elo_low.round(),
                "elo_high": t.entry.elo_high.round(),
                "score_vs_below": t.entry.score_vs_below,
                "player": t.entry.player,
                "spec": format!("tier:{}", t.entry.name),
            })
        })
        .collect();
    let note = if tiers.is_empty() {
        format!("rules '{name}' have no tiers yet: ask /v1/move for a classic player ('player')")
    } else {
        format!("Elo with random = 0, calibrated by `shax tiers` for '{name}'")
    };
    Ok(Json(json!({ "rules": name, "tiers": tiers, "note": note })))
}

/// `POST /v1/legal`.
pub async fn legal(
    State(s): Shared,
    ApiJson(req): ApiJson<GameRequest>,
) -> Result<Json<Value>, ApiError> {
    let set = rule_set(&s, req.rules.as_deref())?;
    let game = replay(set, &req)?;
    let mut legal: Vec<String> = game.legal_actions().iter().map(|a| a.to_string()).collect();
    legal.sort();
    Ok(Json(json!({
        "rules": set.rules.preset.name(),
        "legal": legal,
        "status": status(&game),
        "board": board(game.position()),
        "fen": game.position().fen(),
    })))
}

fn choose_player(set: &RuleSet, req: &GameRequest) -> Result<Chosen, ApiError> {
    match (&req.tier, &req.player) {
        (Some(t), None) => players::tier(set, "tier", t),
        (None, Some(p)) => players::player(set, p),
        (Some(_), Some(_)) => Err(ApiError::bad_field(
            "tier",
            "give 'tier' or 'player', not both",
        )),
        (None, None) => Err(ApiError::bad_field(
            "tier",
            "missing: give 'tier' (a tier name) or 'player' (a player spec)",
        )),
    }
}

/// `POST /v1/move`: one decision on the bounded search pool.
pub async fn choose(
    State(s): Shared,
    ApiJson(req): ApiJson<GameRequest>,
) -> Result<Json<Value>, ApiError> {
    let arrived = Instant::now();
    let set = rule_set(&s, req.rules.as_deref())?;
    let game = replay(set, &req)?;
    if let Some(o) = game.outcome() {
        return Err(ApiError::bad_field(
            "moves",
            format!("the game is over ({o}): no move to make"),
        ));
    }
    let chosen = choose_player(set, &req)?;
    let Some(ticket) = s.admit() else {
        return Err(ApiError::busy(format!(
            "busy: {} searches running and {} waiting; try again shortly",
            s.config.workers, s.config.queue
        )));
    };
    let limit = s.config.move_timeout;
    let state = Arc::clone(&s);
    let preset = set.rules.preset;
    let seed = req.seed.unwrap_or(0);
    let work = async move {
        let permit = Arc::clone(&state.workers).acquire_owned().await;
        let waited = arrived.elapsed();
        tokio::task::spawn_blocking(move || {
            let _hold = (permit, ticket);
            // The search stops at the time limit, freeing its worker for
            // the next request, and its answer is dropped for the 503.
            let cutoff = arrived + limit;
            search(&state, preset, &chosen, &game, seed, cutoff).map(|mut v| {
                v["queue_ms"] = json!(waited.as_secs_f64() * 1e3);
                v
            })
        })
        .await
    };
    match tokio::time::timeout(limit, work).await {
        Ok(Ok(answer)) => answer.map(Json),
        Ok(Err(_)) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the search failed",
        )),
        Err(_) => Err(out_of_time(limit)),
    }
}

/// The 503 of a move request that ran out of its time limit.
fn out_of_time(limit: Duration) -> ApiError {
    ApiError::busy(format!(
        "the move took longer than the limit of {} ms; try again",
        limit.as_millis()
    ))
}

/// Runs one search on the calling (blocking) thread, stopping at `cutoff`.
fn search(
    state: &AppState,
    preset: shax_core::Preset,
    chosen: &Chosen,
    game: &shax_core::Game,
    seed: u64,
    cutoff: Instant,
) -> Result<Value, ApiError> {
    let set = state
        .rule_sets
        .iter()
        .find(|s| s.rules.preset == preset)
        .expect("the preset was looked up before");
    let mut player = state
        .take_player(set, &chosen.build)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("player: {e}")))?;
    player.reset();
    let started = Instant::now();
    let seed = mix_seed(seed, game.len() as u64);
    let limits = Limits {
        cutoff: Some(cutoff),
        ..Limits::NONE
    };
    let action = player.choose(game.position(), &history_of(game), &limits, seed);
    let time_ms = started.elapsed().as_secs_f64() * 1e3;
    let info = player.info();
    if chosen.pooled {
        state.put_back(preset, &chosen.build, player);
    }
    if Instant::now() >= cutoff {
        return Err(out_of_time(state.config.move_timeout));
    }
    let Some(action) = action else {
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "no move found",
        ));
    };
    let mut out = json!({
        "action": action.to_string(),
        "player": chosen.shown,
        "time_ms": time_ms,
    });
    if let Some(i) = info {
        let mcts = !chosen.build.starts_with("alphabeta");
        out["score"] = json!(i.score);
        out["value"] = if mcts {
            json!(f64::from(i.score) / 1000.0)
        } else {
            Value::Null
        };
        out["nodes"] = json!(i.nodes);
        out["depth"] = json!(i.depth);
        out["pv"] = json!(i.pv.iter().map(|a| a.to_string()).collect::<Vec<_>>());
    }
    Ok(out)
}

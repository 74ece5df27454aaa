//! The API end to end: a server on an ephemeral loopback port, a real HTTP client.
//!
//! - `rules_*`, `tiers_*`: the catalogue of rule sets, geometry and tiers.
//! - `legal_*`: positions, status, the first illegal action.
//! - `move_*`: decisions by tiers and capped classic players; refused specs.
//! - `errors_*`: every error is JSON with its status (400, 404, 405, 413).
//! - `busy_*`: 32 concurrent moves on a small pool: 200 or 503, then /healthz;
//!   a move past its time limit: 503, and its worker is free at once.
//! - `shutdown_*`: a request in flight finishes after the shutdown signal.

use std::sync::Arc;
use std::time::Duration;

use hyper::{Method, StatusCode};
use serde_json::{Value, json};
use shax_serve::client::{Answer, Client};
use shax_serve::{AppState, ServeConfig};
use tokio::sync::oneshot;

struct Server {
    client: Client,
    stop: Option<oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<()>,
}

async fn start_with(config: ServeConfig) -> Server {
    let state = Arc::new(AppState::new(config).expect("the shipped tiers load"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let done = tokio::spawn(async move {
        shax_serve::serve_on(listener, state, async {
            let _ = stopped.await;
        })
        .await
        .unwrap();
    });
    Server {
        client: Client::new(&format!("http://{addr}")),
        stop: Some(stop),
        done,
    }
}

/// The tests' server settings: two workers, no request log.
fn quiet_config() -> ServeConfig {
    let mut c = ServeConfig::new();
    (c.workers, c.log) = (2, false);
    c
}

async fn start() -> Server {
    start_with(quiet_config()).await
}

/// A server whose checkpoints folder holds the shipped tiers of `presets`
/// only (copied from `checkpoints/`), so the other rule sets have none.
async fn start_with_tiers_of(presets: &[&str], name: &str) -> Server {
    let dir = std::env::temp_dir().join(format!("shax-serve-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../checkpoints");
    for preset in presets {
        std::fs::create_dir_all(dir.join(preset)).unwrap();
        for file in std::fs::read_dir(shipped.join(preset)).unwrap() {
            let file = file.unwrap().path();
            std::fs::copy(&file, dir.join(preset).join(file.file_name().unwrap())).unwrap();
        }
    }
    let mut c = quiet_config();
    c.checkpoints = Some(dir);
    start_with(c).await
}

async fn post(s: &Server, path: &str, body: Value) -> Answer {
    s.client.post_json(path, &body).await.unwrap()
}

/// Asserts a JSON error of `status` whose message contains `needle`.
fn assert_error(a: &Answer, status: StatusCode, needle: &str) -> Value {
    let v = a.json();
    let msg = v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no JSON error: {a:?}"));
    assert_eq!(a.status, status, "{v}");
    assert!(msg.contains(needle), "'{msg}' lacks '{needle}'");
    assert!(
        a.content_type
            .as_deref()
            .unwrap_or("")
            .starts_with("application/json")
    );
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_list_presets_geometry_and_tiers() {
    let s = start().await;
    let a = s.client.get("/v1/rules").await.unwrap();
    assert_eq!(a.status, StatusCode::OK);
    let v = a.json();
    let sets = v["rules"].as_array().unwrap();
    let names: Vec<_> = sets.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["shax", "shax-flying", "nine-mens-morris", "morabaraba"]
    );
    let shax = &sets[0];
    assert_eq!(
        shax["tiers"],
        json!(["beginner", "easy", "medium", "hard", "master"])
    );
    assert_eq!(shax["options"]["pieces"], 12);
    assert_eq!(shax["board"]["points"].as_array().unwrap().len(), 24);
    assert_eq!(shax["board"]["lines"].as_array().unwrap().len(), 16);
    assert_eq!(shax["board"]["diagonals"], json!([]));
    assert_eq!(shax["board"]["adjacency"]["d7"], json!(["a7", "g7", "d6"]));
    assert_eq!(sets[2]["options"]["pieces"], 9);
    for set in sets {
        assert!(set["tiers"].as_array().unwrap().len() >= 3, "{set}");
    }
    assert_eq!(sets[2]["tiers"], shax["tiers"]);
    let mora = &sets[3]["board"];
    assert_eq!(mora["lines"].as_array().unwrap().len(), 20);
    assert_eq!(mora["diagonals"].as_array().unwrap().len(), 4);
    assert_eq!(mora["adjacency"]["a7"], json!(["d7", "a4", "b6"]));
    let a7 = &shax["board"]["points"][0];
    assert_eq!(
        (
            a7["name"].as_str(),
            a7["file"].as_u64(),
            a7["rank"].as_u64()
        ),
        (Some("a7"), Some(0), Some(7))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tiers_of_shax_rise_and_rules_without_tiers_say_so() {
    let s = start_with_tiers_of(&["shax"], "tiers").await;
    let v = s.client.get("/v1/tiers?rules=shax").await.unwrap().json();
    let tiers = v["tiers"].as_array().unwrap();
    assert_eq!(tiers.len(), 5);
    let elos: Vec<f64> = tiers.iter().map(|t| t["elo"].as_f64().unwrap()).collect();
    assert!(elos.windows(2).all(|w| w[0] < w[1]), "{elos:?}");
    for t in tiers {
        let spec = format!("tier:{}", t["name"].as_str().unwrap());
        assert_eq!(t["spec"], json!(spec), "{t:?}");
        assert!(!t["player"].as_str().unwrap().is_empty(), "{t:?}");
    }
    let master = tiers[4]["player"].as_str().unwrap();
    assert!(master.starts_with("net:"), "{master}");
    let v = s
        .client
        .get("/v1/tiers?rules=morabaraba")
        .await
        .unwrap()
        .json();
    assert_eq!(v["tiers"], json!([]));
    assert!(v["note"].as_str().unwrap().contains("no tiers"));
    let a = s.client.get("/v1/tiers?rules=chess").await.unwrap();
    assert_error(&a, StatusCode::BAD_REQUEST, "unknown rules 'chess'");
    let a = s.client.get("/v1/tiers?rule=shax").await.unwrap();
    assert_error(&a, StatusCode::BAD_REQUEST, "rule");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legal_follows_the_moves_and_names_the_task() {
    let s = start().await;
    let v = post(&s, "/v1/legal", json!({})).await.json();
    assert_eq!(v["legal"].as_array().unwrap().len(), 24);
    assert_eq!(v["status"]["to_act"], "white");
    assert_eq!(v["status"]["task"], "place");
    assert_eq!(v["status"]["hand"]["white"], 12);
    assert_eq!(v["status"]["text"], "White to place (12 in hand).");
    // Nine Men's Morris: a line while placing removes.
    let moves = json!(["a7", "a1", "d7", "d1", "g7"]);
    let v = post(
        &s,
        "/v1/legal",
        json!({"rules": "nine-mens-morris", "moves": moves}),
    )
    .await
    .json();
    assert_eq!(v["status"]["task"], "remove");
    assert_eq!(v["legal"], json!(["xa1", "xd1"]));
    assert_eq!(v["board"]["white"], json!(["a7", "d7", "g7"]));
    assert!(
        v["status"]["text"]
            .as_str()
            .unwrap()
            .contains("White to remove a piece of Black")
    );
    // The position string of an answer is a start that gives the same answer.
    let again = post(
        &s,
        "/v1/legal",
        json!({"rules": "nine-mens-morris", "fen": v["fen"]}),
    )
    .await
    .json();
    assert_eq!(again["legal"], v["legal"]);
    let done = post(
        &s,
        "/v1/legal",
        json!({"rules": "nine-mens-morris", "moves": ["a7", "a1", "d7", "d1", "g7", "xa1"]}),
    )
    .await
    .json();
    assert_eq!(done["status"]["to_act"], "black");
    assert_eq!(done["status"]["on_board"]["black"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legal_reports_bad_positions_and_the_first_illegal_action() {
    let s = start().await;
    let a = post(&s, "/v1/legal", json!({"moves": ["d7", "a1", "d7", "g7"]})).await;
    let v = assert_error(&a, StatusCode::BAD_REQUEST, "moves: [2] 'd7'");
    assert_eq!(
        (v["field"].as_str(), v["index"].as_u64()),
        (Some("moves"), Some(2))
    );
    let a = post(&s, "/v1/legal", json!({"moves": ["d7", "z9"]})).await;
    let v = assert_error(&a, StatusCode::BAD_REQUEST, "'z9'");
    assert_eq!(v["index"], 1);
    let a = post(&s, "/v1/legal", json!({"fen": "W.B/nonsense"})).await;
    assert_error(&a, StatusCode::BAD_REQUEST, "fen: bad position string");
    let a = post(&s, "/v1/legal", json!({"rules": "nine-men"})).await;
    assert_error(
        &a,
        StatusCode::BAD_REQUEST,
        "rules: unknown rules 'nine-men'",
    );
    // A rules file's path is a name like any other: never read.
    let a = post(
        &s,
        "/v1/legal",
        json!({"rules": "configs/rules/shax-traditional.toml"}),
    )
    .await;
    assert_error(&a, StatusCode::BAD_REQUEST, "unknown rules");
    let a = post(&s, "/v1/legal", json!({"rules": "shax", "move": ["d7"]})).await;
    assert_error(&a, StatusCode::BAD_REQUEST, "unknown field `move`");
    let a = post(&s, "/v1/legal", json!({"moves": "d7"})).await;
    assert_error(&a, StatusCode::BAD_REQUEST, "moves");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_answers_a_legal_action_for_tiers_and_classic_players() {
    let s = start().await;
    let moves = json!(["d7", "a1", "g4"]);
    let legal = post(&s, "/v1/legal", json!({"moves": moves})).await.json()["legal"].clone();
    for (key, who) in [
        ("tier", "beginner"),
        ("tier", "medium"),
        ("player", "tier:easy"),
        ("player", "alphabeta:depth=2"),
        ("player", "mcts:sims=200"),
        ("player", "greedy"),
    ] {
        let a = post(&s, "/v1/move", json!({"moves": moves, key: who, "seed": 7})).await;
        let v = a.json();
        assert_eq!(a.status, StatusCode::OK, "{who}: {v}");
        assert!(
            legal.as_array().unwrap().contains(&v["action"]),
            "{who}: {v}"
        );
        assert!(v["time_ms"].as_f64().unwrap() >= 0.0);
        let shown = if key == "tier" {
            format!("tier:{who}")
        } else {
            who.to_string()
        };
        assert_eq!(v["player"], shown.as_str());
    }
    let v = post(&s, "/v1/move", json!({"moves": moves, "tier": "medium"}))
        .await
        .json();
    let value = v["value"].as_f64().unwrap();
    assert!(
        // The shipped medium tier searches 512 simulations (checkpoints/shax/tiers.toml).
        (-1.0..=1.0).contains(&value) && v["nodes"].as_u64().unwrap() >= 512,
        "{v}"
    );
    let v = post(
        &s,
        "/v1/move",
        json!({"rules": "nine-mens-morris", "player": "alphabeta:depth=3"}),
    )
    .await
    .json();
    assert_eq!(v["depth"], 3, "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_refuses_unknown_tiers_and_specs_over_the_caps() {
    let s = start_with_tiers_of(&["shax"], "refuses").await;
    let cases: [(Value, &str); 14] = [
        (json!({}), "tier: missing"),
        (json!({"tier": "grandmaster"}), "unknown tier 'grandmaster'"),
        (
            json!({"rules": "morabaraba", "tier": "easy"}),
            "have no tiers",
        ),
        (json!({"tier": "easy", "player": "greedy"}), "not both"),
        (
            json!({"player": "net:checkpoints/shax/step-000350000.bpk"}),
            "'net' players are not served",
        ),
        (json!({"player": "tier:../../etc/passwd"}), "unknown tier"),
        (json!({"player": "alphabeta:ms=60000"}), "'ms'"),
        (json!({"player": "alphabeta:depth=12"}), "'depth'"),
        (json!({"player": "alphabeta:tt=1024,ms=100"}), "'tt'"),
        (json!({"player": "mcts:sims=1000000"}), "'sims'"),
        (json!({"player": "alphabeta:depht=2"}), "depht"),
        (json!({"player": "stockfish"}), "unknown player 'stockfish'"),
        (json!({"player": ""}), "empty player spec"),
        (json!({"player": "greedy", "seed": -1}), "seed"),
    ];
    for (body, needle) in cases {
        let a = post(&s, "/v1/move", body.clone()).await;
        assert_error(&a, StatusCode::BAD_REQUEST, needle);
    }
    let over = json!({"rules": "nine-mens-morris", "fen": "WWW/.../.../BB..../.../.../... b - 0,0 - -,- 0 0 30", "tier": "x"});
    let a = post(&s, "/v1/move", over).await;
    assert_error(&a, StatusCode::BAD_REQUEST, "the game is over");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_of_the_http_layer_are_json_too() {
    let s = start().await;
    let c = &s.client;
    let a = c.get("/v2/rules").await.unwrap();
    assert_error(&a, StatusCode::NOT_FOUND, "no such path: GET /v2/rules");
    let a = c.get("/v1/move").await.unwrap();
    assert_error(
        &a,
        StatusCode::METHOD_NOT_ALLOWED,
        "GET is not allowed on /v1/move",
    );
    let a = c.send(Method::DELETE, "/v1/rules", None, "").await.unwrap();
    assert_error(&a, StatusCode::METHOD_NOT_ALLOWED, "DELETE");
    let a = c
        .send(
            Method::POST,
            "/v1/legal",
            Some("application/json"),
            "{\"rules\": ",
        )
        .await
        .unwrap();
    assert_error(&a, StatusCode::BAD_REQUEST, "malformed JSON");
    let a = c
        .send(Method::POST, "/v1/legal", Some("text/plain"), "{}")
        .await
        .unwrap();
    assert_error(
        &a,
        StatusCode::BAD_REQUEST,
        "Content-Type: application/json",
    );
    let a = c.send(Method::POST, "/v1/move", None, "{}").await.unwrap();
    assert_error(&a, StatusCode::BAD_REQUEST, "content type");
    let big = format!("{{\"moves\": [\"{}\"]}}", "d".repeat(70 * 1024));
    let a = c
        .send(Method::POST, "/v1/legal", Some("application/json"), big)
        .await
        .unwrap();
    assert_error(&a, StatusCode::PAYLOAD_TOO_LARGE, "65536 bytes");
    // The connection and the server are fine after all of that.
    assert_eq!(c.get("/healthz").await.unwrap().status, StatusCode::OK);
    let page = c.get("/").await.unwrap();
    assert!(page.content_type.unwrap().starts_with("text/html"));
    assert!(String::from_utf8_lossy(&page.body).contains("<svg id=\"board\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn busy_pool_answers_503_beyond_its_queue_then_recovers() {
    let mut c = quiet_config();
    c.queue = 14;
    c.move_timeout = Duration::from_secs(120);
    let s = start_with(c).await;
    let body = json!({"moves": ["d7"], "player": "mcts:sims=20000"});
    let tasks: Vec<_> = (0..32)
        .map(|_| {
            let (client, body) = (s.client.clone(), body.clone());
            tokio::spawn(async move { client.post_json("/v1/move", &body).await.unwrap() })
        })
        .collect();
    let (mut ok, mut busy) = (0, 0);
    for t in tasks {
        let a = t.await.unwrap();
        match a.status {
            StatusCode::OK => ok += 1,
            StatusCode::SERVICE_UNAVAILABLE => {
                assert_error(&a, StatusCode::SERVICE_UNAVAILABLE, "busy");
                busy += 1;
            }
            other => panic!("unexpected {other}: {:?}", a.json()),
        }
    }
    assert_eq!(ok + busy, 32);
    assert!(ok >= 16, "{ok} answered, {busy} busy");
    assert!(busy >= 1, "the queue never filled: {ok} answered");
    let h = s.client.get("/healthz").await.unwrap().json();
    assert_eq!(
        (h["ok"].as_bool(), h["admitted"].as_u64()),
        (Some(true), Some(0)),
        "{h}"
    );
}

/// A move that runs out of its time limit gets 503, and its search stops
/// there: the only worker is free at once for the next request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_move_past_its_time_limit_frees_its_worker() {
    let mut c = quiet_config();
    (c.workers, c.move_timeout) = (1, Duration::from_millis(500));
    let s = start_with(c).await;
    // Five seconds of search on any machine, unless the limit stops it.
    let slow = json!({"moves": ["d7"], "player": "mcts:ms=5000"});
    let a = post(&s, "/v1/move", slow).await;
    assert_error(&a, StatusCode::SERVICE_UNAVAILABLE, "limit of 500 ms");
    let a = post(&s, "/v1/move", json!({"moves": ["d7"], "player": "random"})).await;
    assert_eq!(a.status, StatusCode::OK, "{:?}", a.json());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_lets_the_request_in_flight_finish() {
    let mut s = start().await;
    let client = s.client.clone();
    let slow = tokio::spawn(async move {
        let body = json!({"player": "mcts:sims=20000"});
        client.post_json("/v1/move", &body).await.unwrap()
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    s.stop.take().unwrap().send(()).unwrap();
    let a = slow.await.unwrap();
    assert_eq!(a.status, StatusCode::OK, "{:?}", a.json());
    tokio::time::timeout(Duration::from_secs(30), s.done)
        .await
        .expect("the server stops")
        .unwrap();
}

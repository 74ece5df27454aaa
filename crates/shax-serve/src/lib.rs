//! `shax serve`: the tiers one HTTP call away for game backends, and a page
//! to play them in a browser.
//!
//! - [`router`]: the axum router over an [`AppState`]: the versioned JSON API
//!   (`GET /v1/rules`, `GET /v1/tiers`, `POST /v1/legal`, `POST /v1/move`),
//!   `GET /healthz` and the page at `/` (plain HTML, CSS and JavaScript
//!   embedded in the binary).
//! - [`serve`]: binds an address and serves until SIGTERM or Ctrl-C, letting
//!   requests in flight finish.
//! - [`client`]: a small HTTP client over hyper (the tests and `shax bench serve`).
//! - [`bench`]: the load generator of `shax bench serve`.
//!
//! Searches run on a bounded pool: `workers` at once (blocking threads), at
//! most `queue` more waiting; a move request beyond that gets 503 at once,
//! and one past its time limit gets 503 with its search stopped there.
//! Every error is JSON `{"error": "..."}` (see [`ApiError`]).

mod api;
pub mod bench;
pub mod client;
mod error;
mod game;
mod players;
mod state;
mod web;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::cors::CorsLayer;

pub use error::ApiError;
pub use players::{MAX_DEPTH_UNTIMED, MAX_MS, MAX_NODES, MAX_SIMS, MAX_TT_MIB};
pub use state::{AppState, ServeConfig, ServeError};

/// The largest request body, bytes (64 KiB).
pub const BODY_LIMIT: usize = 64 * 1024;

/// One line per request on stderr: method, path, status, milliseconds.
async fn log_line(req: Request, next: Next) -> Response {
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    let t = Instant::now();
    let res = next.run(req).await;
    eprintln!(
        "{method} {path} {} {:.1}ms",
        res.status().as_u16(),
        t.elapsed().as_secs_f64() * 1e3
    );
    res
}

/// The router over `state`.
///
/// # Errors
///
/// [`ServeError::Config`] for an `allow_origin` that is not a header value.
pub fn router(state: Arc<AppState>) -> Result<Router, ServeError> {
    let mut app = Router::new()
        .route("/", get(web::index))
        .route("/app.js", get(web::script))
        .route("/style.css", get(web::style))
        .route("/healthz", get(api::healthz))
        .route("/v1/rules", get(api::rules))
        .route("/v1/tiers", get(api::tiers))
        .route("/v1/legal", post(api::legal))
        .route("/v1/move", post(api::choose))
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(CatchPanicLayer::custom(error::panic_response));
    if let Some(origin) = &state.config.allow_origin {
        let origin = HeaderValue::from_str(origin).map_err(|_| {
            ServeError::Config(format!("--allow-origin '{origin}' is not a valid origin"))
        })?;
        app = app.layer(
            CorsLayer::new()
                .allow_origin(origin)
                .allow_methods([Method::GET, Method::POST])
                .allow_headers([header::CONTENT_TYPE]),
        );
    }
    if state.config.log {
        app = app.layer(middleware::from_fn(log_line));
    }
    Ok(app.with_state(state))
}

/// Resolves when SIGTERM or Ctrl-C arrives.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    eprintln!("shutting down: finishing the requests in flight");
}

/// Serves on an already bound listener until `shutdown` resolves; requests in
/// flight finish first.
///
/// # Errors
///
/// [`ServeError::Io`] when serving fails.
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let app = router(state)?;
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await?;
    Ok(())
}

/// Loads the tiers, binds `addr` and serves until SIGTERM or Ctrl-C (a
/// runtime of its own: call it from synchronous code).
///
/// # Errors
///
/// [`ServeError`]: tiers that do not load, an address that cannot be bound.
pub fn serve(addr: SocketAddr, config: ServeConfig) -> Result<(), ServeError> {
    let state = Arc::new(AppState::new(config)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(state.config.workers + 4)
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| ServeError::Config(format!("cannot listen on {addr}: {e}")))?;
        let local = listener.local_addr()?;
        let tiers: Vec<String> = state
            .rule_sets
            .iter()
            .filter(|s| !s.tiers.is_empty())
            .map(|s| format!("{} ({})", s.rules.preset.name(), s.tiers.len()))
            .collect();
        eprintln!(
            "shax serve: http://{local}/ ({} workers, queue {}; tiers: {})",
            state.config.workers,
            state.config.queue,
            if tiers.is_empty() {
                "none".to_string()
            } else {
                tiers.join(", ")
            }
        );
        serve_on(listener, state, shutdown_signal()).await
    })
}

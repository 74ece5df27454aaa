//! The page at `/`: plain HTML, CSS and JavaScript from `web/`, embedded in
//! the binary (nothing to build to run it).

use axum::http::header;
use axum::response::IntoResponse;

const INDEX: &str = include_str!("../web/index.html");
const SCRIPT: &str = include_str!("../web/app.js");
const STYLE: &str = include_str!("../web/style.css");

fn page(kind: &'static str, body: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
}

/// `GET /`.
pub async fn index() -> impl IntoResponse {
    page("text/html; charset=utf-8", INDEX)
}

/// `GET /app.js`.
pub async fn script() -> impl IntoResponse {
    page("text/javascript; charset=utf-8", SCRIPT)
}

/// `GET /style.css`.
pub async fn style() -> impl IntoResponse {
    page("text/css; charset=utf-8", STYLE)
}

//! A small HTTP/1 client over hyper, for the tests and `shax bench serve`:
//! keep-alive connections to one base URL, JSON in and out.

use axum::body::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use hyper_util::client::legacy::Client as Hyper;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

/// What went wrong talking to the server.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The URL or request could not be built.
    #[error("bad request to {0}")]
    Request(String),
    /// The connection failed.
    #[error("{url}: {why}")]
    Connect {
        /// The URL.
        url: String,
        /// The reason.
        why: String,
    },
}

/// A response: the status and the body (parsed as JSON where it is).
#[derive(Debug, Clone)]
pub struct Answer {
    /// The status.
    pub status: StatusCode,
    /// The content type, if any.
    pub content_type: Option<String>,
    /// The raw body.
    pub body: Bytes,
}

impl Answer {
    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// A client of one server (`http://host:port`), cheap to clone.
#[derive(Clone, Debug)]
pub struct Client {
    base: String,
    http: Hyper<HttpConnector, Full<Bytes>>,
}

impl Client {
    /// A client of the server at `base` (such as `http://127.0.0.1:8080`).
    pub fn new(base: &str) -> Client {
        Client {
            base: base.trim_end_matches('/').to_string(),
            http: Hyper::builder(TokioExecutor::new()).build_http(),
        }
    }

    /// Sends a request with any method, content type and body.
    ///
    /// # Errors
    ///
    /// [`ClientError`] when the request cannot be built or sent.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        content_type: Option<&str>,
        body: impl Into<Bytes>,
    ) -> Result<Answer, ClientError> {
        let url = format!("{}{path}", self.base);
        let mut req = Request::builder().method(method).uri(&url);
        if let Some(ct) = content_type {
            req = req.header(hyper::header::CONTENT_TYPE, ct);
        }
        let req = req
            .body(Full::new(body.into()))
            .map_err(|_| ClientError::Request(url.clone()))?;
        let conn = |e: &dyn std::fmt::Display| ClientError::Connect {
            url: url.clone(),
            why: e.to_string(),
        };
        let res = self.http.request(req).await.map_err(|e| conn(&e))?;
        let status = res.status();
        let content_type = res
            .headers()
            .get(hyper::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = res.into_body().collect().await.map_err(|e| conn(&e))?;
        Ok(Answer {
            status,
            content_type,
            body: body.to_bytes(),
        })
    }

    /// `GET path`.
    ///
    /// # Errors
    ///
    /// As [`Client::send`].
    pub async fn get(&self, path: &str) -> Result<Answer, ClientError> {
        self.send(Method::GET, path, None, Bytes::new()).await
    }

    /// `POST path` with a JSON body.
    ///
    /// # Errors
    ///
    /// As [`Client::send`].
    pub async fn post_json(&self, path: &str, body: &Value) -> Result<Answer, ClientError> {
        let bytes = serde_json::to_vec(body).map_err(|_| ClientError::Request(path.to_string()))?;
        self.send(Method::POST, path, Some("application/json"), bytes)
            .await
    }
}

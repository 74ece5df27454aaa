//! Every error the API answers: `{"error": "..."}` with a status, for the
//! handlers' own errors and for axum's rejections (malformed JSON, a wrong
//! content type, a body over the limit, unknown paths and methods).

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// An API error: a status and a message naming the field and what is wrong,
/// with optional extra fields (`field`, `index`) in the JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The message, the body's `error`.
    pub message: String,
    /// The request field at fault, when there is one.
    pub field: Option<String>,
    /// The index in `moves` of the first illegal action.
    pub index: Option<usize>,
}

impl ApiError {
    /// An error of this status.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            field: None,
            index: None,
        }
    }

    /// A 400 about `field`: the message is prefixed with the field's name.
    pub fn bad_field(field: &str, why: impl std::fmt::Display) -> ApiError {
        ApiError {
            field: Some(field.to_string()),
            ..ApiError::new(StatusCode::BAD_REQUEST, format!("{field}: {why}"))
        }
    }

    /// A 503: the server cannot take the request now.
    pub fn busy(why: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, why)
    }

    /// The JSON body.
    pub fn body(&self) -> Value {
        let mut v = json!({ "error": self.message });
        if let Some(f) = &self.field {
            v["field"] = json!(f);
        }
        if let Some(i) = self.index {
            v["index"] = json!(i);
        }
        v
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (self.status, axum::Json(self.body())).into_response();
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            r.headers_mut()
                .insert(axum::http::header::RETRY_AFTER, 1.into());
        }
        r
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        match r {
            JsonRejection::MissingJsonContentType(_) => ApiError::new(
                StatusCode::BAD_REQUEST,
                "content type: the body must be JSON, sent with 'Content-Type: application/json'",
            ),
            JsonRejection::JsonSyntaxError(e) => ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("malformed JSON: {}", inner_message(&e.body_text())),
            ),
            JsonRejection::JsonDataError(e) => ApiError::new(
                StatusCode::BAD_REQUEST,
                format!("request body: {}", inner_message(&e.body_text())),
            ),
            JsonRejection::BytesRejection(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the body is over the limit of {} bytes", crate::BODY_LIMIT),
                )
            }
            other => ApiError::new(
                other.status(),
                format!("request body: {}", other.body_text()),
            ),
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("query string: {}", inner_message(&r.body_text())),
        )
    }
}

/// serde's message without axum's "Failed to deserialize ..." preamble.
fn inner_message(text: &str) -> String {
    match text.split_once(": ") {
        Some((head, rest)) if head.starts_with("Failed to") => rest.to_string(),
        _ => text.to_string(),
    }
}

/// `axum::Json` whose rejections are [`ApiError`]s.
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let axum::Json(v) = axum::Json::<T>::from_request(req, state).await?;
        Ok(ApiJson(v))
    }
}

/// `axum::extract::Query` whose rejections are [`ApiError`]s.
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let axum::extract::Query(v) =
            axum::extract::Query::<T>::from_request_parts(parts, state).await?;
        Ok(ApiQuery(v))
    }
}

/// The answer to a path the API does not have.
pub async fn not_found(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!(
            "no such path: {method} {} (see GET /v1/rules, /v1/tiers, POST /v1/legal, /v1/move)",
            uri.path()
        ),
    )
}

/// The answer to a method a path does not take.
pub async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("method {method} is not allowed on {}", uri.path()),
    )
}

/// The answer to a handler that panicked (a bug): 500, JSON, the connection kept.
pub fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal error").into_response()
}

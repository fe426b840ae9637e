//! Errors as JSON answers: `{"error": {"status": 400, "message": "…"}}`, with the headers each
//! status needs (WWW-Authenticate on 401, Retry-After on 429 and 503).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::search::SearchError;

/// An answer that is not a result.
#[derive(Debug)]
pub struct ApiError {
    /// The status.
    pub status: StatusCode,
    /// What happened and what to do.
    pub message: String,
    /// Seconds to wait (429, 503).
    pub retry_after: Option<u64>,
    /// Extra headers (rate-limit fields).
    pub headers: Vec<(&'static str, String)>,
}

impl ApiError {
    /// An error with a status and a message.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
            headers: Vec::new(),
        }
    }

    /// 400 with what is wrong.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    /// 503 with Retry-After.
    pub fn unavailable(message: impl Into<String>, retry_after: u64) -> ApiError {
        ApiError {
            retry_after: Some(retry_after),
            ..ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message)
        }
    }
}

impl From<SearchError> for ApiError {
    fn from(e: SearchError) -> ApiError {
        match e {
            SearchError::BadRequest(m) => ApiError::bad(m),
            SearchError::NotReady(archives) => ApiError::unavailable(
                format!(
                    "the index of {} is being built; try again shortly",
                    archives.join(", ")
                ),
                5,
            ),
            other => {
                tracing::error!(error = %other, "search failed");
                ApiError::unavailable("the index cannot be read just now; try again shortly", 5)
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"status": self.status.as_u16(), "message": self.message}});
        let mut r = (self.status, axum::Json(body)).into_response();
        let h = r.headers_mut();
        if let Some(s) = self.retry_after {
            h.insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            let challenge = if self.message.contains("not a valid key") {
                "Bearer realm=\"modoai-explorer\", error=\"invalid_token\""
            } else {
                "Bearer realm=\"modoai-explorer\""
            };
            h.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(challenge),
            );
        }
        for (name, value) in self.headers {
            if let Ok(v) = HeaderValue::from_str(&value) {
                h.insert(name, v);
            }
        }
        r
    }
}

//! The one error of every door: an answer that is not a result, with the status and headers its
//! variant needs (`WWW-Authenticate` on 401, `Retry-After` on 429 and 503, the RateLimit fields
//! on 429). It renders itself as JSON, `{"error": {"status": 400, "message": "…"}}`, the answer
//! of the API, Memento and PWID doors; the answer carries the error itself too, so that the door
//! of the pages makes it a page (`ui/error.rs`) with the same status and headers.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::ratelimit::RateLimit;
use crate::search::{CursorError, MementoError, SearchError};

/// An answer that is not a result. Its `Display` is the message the caller reads.
#[derive(Clone, Debug, thiserror::Error)]
pub(crate) enum AppError {
    /// 400: the request is wrong; the message says how.
    #[error("{0}")]
    BadRequest(String),
    /// 401: no key where one is needed, or not a valid one.
    #[error("{0}")]
    Unauthorized(Unauthorized),
    /// 404: nothing here (or nothing the caller may see).
    #[error("{0}")]
    NotFound(String),
    /// 404 for an item asked for at a time it was not captured: the captures nearest to it.
    #[error("{message}")]
    NotAt {
        /// What is not there.
        message: String,
        /// The captures of the item nearest to the time asked for, in time order.
        nearest: Vec<Nearby>,
    },
    /// 409: the request does not fit the state it refers to (a cursor of another search).
    #[error("{0}")]
    Conflict(String),
    /// 410: what the request refers to is gone (a cursor of an index that has changed).
    #[error("{0}")]
    Gone(String),
    /// 429: the key's quota or rate is spent.
    #[error("{spent}; retry after {retry} s")]
    TooMany {
        /// Which limit.
        spent: Spent,
        /// Seconds to wait.
        retry: u64,
        /// Where the key's quota stands.
        limits: RateLimit,
    },
    /// 503: the answer cannot be given just now (an index being built, an unreadable file).
    #[error("{message}")]
    Unavailable {
        /// What happened and what to do.
        message: String,
        /// Seconds to wait.
        retry: u64,
    },
}

/// A capture offered instead of one that is not there.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Nearby {
    /// Its capture time, RFC 3339.
    pub(crate) datetime: String,
    /// Its memento's URL.
    pub(crate) memento: String,
    /// Its PWID.
    pub(crate) pwid: String,
}

/// Why a caller is not admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Unauthorized {
    /// No key, at a door that needs one.
    #[error("this API needs a key: send `Authorization: Bearer KEY` (keys are made with `modoai-explorer keys add NAME`)")]
    Missing,
    /// A key that is not in the key file.
    #[error("not a valid key: it is unknown or was revoked")]
    Unknown,
    /// An `Authorization` header that is not one Bearer key.
    #[error("the Authorization header is not a valid key: send `Authorization: Bearer KEY`")]
    Malformed,
    /// An export's `ticket=` that is unknown, used already or expired.
    #[error("not a valid ticket: it is unknown, used already or more than a minute old; ask POST /api/v1/export/ticket for a new one")]
    Ticket,
}

impl Unauthorized {
    /// The `WWW-Authenticate` challenge (RFC 6750 §3): `invalid_token` for a key that was sent.
    fn challenge(self) -> &'static str {
        match self {
            Unauthorized::Missing => "Bearer realm=\"modoai-explorer\"",
            Unauthorized::Unknown | Unauthorized::Malformed | Unauthorized::Ticket => {
                "Bearer realm=\"modoai-explorer\", error=\"invalid_token\""
            }
        }
    }
}

/// Which limit of a key a request went past.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub(crate) enum Spent {
    /// The hourly quota, of this many requests.
    #[error("the hourly quota of {0} requests is spent")]
    Quota(u64),
    /// The rate, of this many requests per second.
    #[error("more than {0} requests per second")]
    Rate(f64),
}

impl AppError {
    /// 503 with `Retry-After: retry`.
    pub(crate) fn unavailable(message: impl Into<String>, retry: u64) -> AppError {
        AppError::Unavailable {
            message: message.into(),
            retry,
        }
    }

    /// The status of the answer.
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            AppError::NotFound(_) | AppError::NotAt { .. } => StatusCode::NOT_FOUND,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::Gone(_) => StatusCode::GONE,
            AppError::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// Seconds to wait before asking again (429, 503).
    pub(crate) fn retry_after(&self) -> Option<u64> {
        match self {
            AppError::TooMany { retry, .. } | AppError::Unavailable { retry, .. } => Some(*retry),
            _ => None,
        }
    }
}

impl From<SearchError> for AppError {
    fn from(e: SearchError) -> AppError {
        match e {
            SearchError::BadRequest(m) => AppError::BadRequest(m),
            SearchError::Query(e) => AppError::BadRequest(e.to_string()),
            SearchError::Cursor(e) => match e {
                CursorError::Malformed(_) => AppError::BadRequest(e.to_string()),
                CursorError::OtherSearch => AppError::Conflict(e.to_string()),
                CursorError::Stale => AppError::Gone(e.to_string()),
            },
            SearchError::NotReady(archives) => AppError::unavailable(
                format!(
                    "the index of {} is being built; try again shortly",
                    archives.join(", ")
                ),
                5,
            ),
            other => {
                tracing::error!(error = %other, "search failed");
                AppError::unavailable("the index cannot be read just now; try again shortly", 5)
            }
        }
    }
}

impl From<MementoError> for AppError {
    fn from(e: MementoError) -> AppError {
        match e {
            MementoError::NotAUri { .. } => AppError::BadRequest(e.to_string()),
            MementoError::Unreadable { archive, reason } => {
                tracing::error!(archive, error = reason, "an archive's index cannot be read");
                AppError::unavailable(format!("the archive {archive} cannot be read just now"), 5)
            }
            MementoError::Search(e) => e.into(),
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let status = self.status();
        let mut body = json!({"error": {"status": status.as_u16(), "message": self.to_string()}});
        if let AppError::NotAt { nearest, .. } = &self {
            body["error"]["nearest"] = json!(nearest);
        }
        let mut r = (status, axum::Json(body)).into_response();
        let h = r.headers_mut();
        if let Some(s) = self.retry_after() {
            h.insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        if let AppError::Unauthorized(why) = &self {
            h.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(why.challenge()),
            );
        }
        if let AppError::TooMany { limits, .. } = &self {
            r = (*limits, r).into_response();
        }
        // The door of the pages draws its page from the error itself, not from this body.
        r.extensions_mut().insert(self);
        r
    }
}

//! Who is calling, what they may see, and their limits: the PrEV request flow (validate the key,
//! load its rate and access level, check the quota, restrict the query to its scope, answer
//! with rate-limit headers).
//!
//! Rate-limit fields follow the IETF httpapi draft "RateLimit header fields for HTTP" in its
//! current, Structured-Field form (draft-ietf-httpapi-ratelimit-headers-08 and later, RFC 9651
//! lists): `RateLimit-Policy: "hour";q=1000;w=3600` says the quota (`q` requests per `w`
//! seconds), `RateLimit: "hour";r=998;t=1720` what is left (`r`) and the seconds until the window
//! resets (`t`). A spent quota or a request faster than the key's rate gets 429 with
//! `Retry-After` (RFC 6585 §4, RFC 9110 §10.2.3), never earlier than `t`.

use axum::http::{HeaderMap, StatusCode};
use modoai_gate::Credentials;

use super::error::ApiError;
use super::state::AppState;
use crate::keys::{ApiKey, Decision, Usage};
use crate::search::Scope;

/// The caller of a request.
#[derive(Clone, Debug)]
pub enum Caller {
    /// No key, where that is allowed.
    Anonymous,
    /// A key holder.
    Key(Box<ApiKey>),
}

impl Caller {
    /// What the caller may see.
    pub fn scope(&self) -> Scope {
        match self {
            Caller::Anonymous => Scope::all(),
            Caller::Key(k) => k.scope(),
        }
    }
}

/// Which door a request came through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Door {
    /// The JSON API (`/api/…`).
    Api,
    /// The UI, Memento and PWID routes.
    Public,
}

/// Header fields to add to an answer.
pub type Fields = Vec<(&'static str, String)>;

/// The caller, admitted (counted against its limits), and the rate-limit headers to send.
pub fn admit(
    state: &AppState,
    headers: &HeaderMap,
    door: Door,
) -> Result<(Caller, Fields), ApiError> {
    let presented = presented_key(headers)?;
    let Some(presented) = presented else {
        let open = match door {
            Door::Api => state.access.anonymous_api,
            Door::Public => state.access.public_ui,
        };
        return if open {
            Ok((Caller::Anonymous, Vec::new()))
        } else {
            Err(ApiError::new(StatusCode::UNAUTHORIZED, "this API needs a key: send `Authorization: Bearer KEY` (keys are made with `modoai-explorer keys add NAME`)"))
        };
    };
    let key = state.keys().find(&presented).cloned().ok_or_else(|| {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "not a valid key: it is unknown or was revoked",
        )
    })?;
    match state.limits.admit(&key) {
        Decision::Allowed(u) => Ok((Caller::Key(Box::new(key)), fields(&u))),
        Decision::QuotaSpent(u) => Err(too_many(
            format!(
                "the hourly quota of {} requests is spent",
                u.quota.unwrap_or_default()
            ),
            u.reset,
            &u,
        )),
        Decision::TooFast(u, wait) => Err(too_many(
            format!(
                "more than {} requests per second",
                key.rate_per_sec.unwrap_or_default()
            ),
            wait.max(1),
            &u,
        )),
    }
}

/// The key of a Bearer `Authorization` header (the scheme's name in any case, RFC 9110 §11.1), or
/// none without the header; any other header is a 401.
fn presented_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    match Credentials::from_headers(headers) {
        Credentials::None => Ok(None),
        Credentials::Bearer(key) => Ok(Some(key)),
        Credentials::Basic { .. } | Credentials::Malformed => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "the Authorization header is not a valid key: send `Authorization: Bearer KEY`",
        )),
    }
}

fn too_many(message: String, retry_after: u64, usage: &Usage) -> ApiError {
    ApiError {
        retry_after: Some(retry_after),
        headers: fields(usage),
        ..ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!("{message}; retry after {retry_after} s"),
        )
    }
}

/// The `RateLimit-Policy` and `RateLimit` fields of a key with a quota.
pub fn fields(u: &Usage) -> Fields {
    match (u.quota, u.remaining) {
        (Some(q), Some(r)) => vec![
            ("ratelimit-policy", format!("\"hour\";q={q};w=3600")),
            ("ratelimit", format!("\"hour\";r={r};t={}", u.reset)),
        ],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use axum::http::{header::AUTHORIZATION, HeaderValue};

    use super::*;

    fn key_of(values: &[&str]) -> Result<Option<String>, StatusCode> {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        }
        presented_key(&headers).map_err(|e| e.status)
    }

    #[test]
    fn the_bearer_scheme_is_read_in_any_case() {
        for header in [
            "Bearer k3y-_",
            "bearer k3y-_",
            "BEARER k3y-_",
            "bEaReR  k3y-_",
        ] {
            assert_eq!(key_of(&[header]), Ok(Some("k3y-_".to_owned())), "{header}");
        }
        assert_eq!(key_of(&[]), Ok(None));
    }

    #[test]
    fn other_authorization_headers_are_refused() {
        for header in [
            "Basic YWxpY2U6cHc=",
            "Bearer",
            "Bearer a b",
            "Token k3y",
            "k3y",
        ] {
            assert_eq!(key_of(&[header]), Err(StatusCode::UNAUTHORIZED), "{header}");
        }
        assert_eq!(
            key_of(&["Bearer a", "Bearer b"]),
            Err(StatusCode::UNAUTHORIZED)
        );
    }
}

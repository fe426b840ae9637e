//! The API's handlers (the capture page is in capture.rs).

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::auth::{admit, Caller, Door, Fields};
use super::error::ApiError;
use super::state::AppState;
use crate::search::{gone_since, SearchParams};

/// Words a word cloud has by default, and at most.
const TERMS: usize = 50;
const MAX_TERMS: usize = 200;
/// Captures of one URL listed at most.
pub(super) const MAX_CAPTURES: usize = 10_000;

/// The query string as pairs; a query that is not `application/x-www-form-urlencoded` is 400.
pub fn pairs(query: Option<String>) -> Result<Vec<(String, String)>, ApiError> {
    let query = query.unwrap_or_default();
    serde_urlencoded(&query)
        .ok_or_else(|| ApiError::bad("the query string is not valid form encoding"))
}

fn serde_urlencoded(q: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    for part in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(&s.replace('+', " "))
                .decode_utf8()
                .ok()
                .map(|c| c.into_owned())
        };
        out.push((decode(k)?, decode(v)?));
    }
    Some(out)
}

/// Runs `work` off the async runtime for an admitted caller and answers its JSON with the
/// caller's rate-limit headers.
pub(super) async fn answer<T: serde::Serialize + Send + 'static>(
    state: Arc<AppState>,
    headers: &HeaderMap,
    work: impl FnOnce(&AppState, &Caller) -> Result<T, ApiError> + Send + 'static,
) -> Response {
    match run(state, headers, Door::Api, work).await {
        Ok((value, fields)) => with_fields(Json(value).into_response(), fields),
        Err(e) => e.into_response(),
    }
}

/// Admits the caller through `door`, then runs `work` off the async runtime, one search per
/// core at a time; its result and the caller's rate-limit headers. The API and the UI both
/// answer through this.
pub async fn run<T: Send + 'static>(
    state: Arc<AppState>,
    headers: &HeaderMap,
    door: Door,
    work: impl FnOnce(&AppState, &Caller) -> Result<T, ApiError> + Send + 'static,
) -> Result<(T, Fields), ApiError> {
    let (caller, limit_headers) = admit(&state, headers, door)?;
    let gate = Arc::clone(&state);
    let permit = gate
        .searching
        .acquire()
        .await
        .expect("the search semaphore is never closed");
    let result = tokio::task::spawn_blocking(move || work(&state, &caller)).await;
    drop(permit);
    match result {
        Ok(r) => r.map(|value| (value, limit_headers)),
        Err(e) => {
            tracing::error!(error = %e, "a request's work panicked");
            Err(ApiError::unavailable(
                "the server could not answer this; try again",
                1,
            ))
        }
    }
}

/// `http://host` of this server, from the Host header (`localhost` without one): the base of
/// the absolute URLs an answer gives (TimeMaps, the API page's curl commands).
pub fn base_url(headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    format!("http://{host}")
}

/// `response` with the rate-limit header fields added.
pub fn with_fields(mut response: Response, fields: Fields) -> Response {
    for (name, value) in fields {
        if let Ok(v) = HeaderValue::from_str(&value) {
            response.headers_mut().insert(name, v);
        }
    }
    response
}

/// `GET /api/v1/search`.
pub(super) async fn search(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    let params = match pairs(q).and_then(|p| SearchParams::parse(&p).map_err(ApiError::bad)) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    answer(state, &headers, move |s, caller| {
        Ok(s.library.search(&params, &caller.scope())?)
    })
    .await
}

/// `GET /api/v1/terms`: `size` is the number of words.
pub(super) async fn terms(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    let parsed = pairs(q).and_then(|mut p| {
        let mut size = TERMS;
        if let Some(i) = p.iter().position(|(k, _)| k == "size") {
            let (_, v) = p.remove(i);
            size = v
                .parse()
                .ok()
                .filter(|n| (1..=MAX_TERMS).contains(n))
                .ok_or_else(|| {
                    ApiError::bad(format!(
                        "size={v:?} is not a whole number from 1 to {MAX_TERMS}"
                    ))
                })?;
        }
        Ok((SearchParams::parse(&p).map_err(ApiError::bad)?, size))
    });
    let (params, size) = match parsed {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    answer(state, &headers, move |s, caller| {
        Ok(s.library.terms(&params, &caller.scope(), size)?)
    })
    .await
}

/// `GET /api/v1/captures?url=`: the captures of a URL and the deletions of its file.
pub(super) async fn captures(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    let url = match pairs(q) {
        Ok(p) => match p.as_slice() {
            [(k, v)] if k == "url" && !v.is_empty() => v.clone(),
            _ => return ApiError::bad("give exactly one parameter, url=URL").into_response(),
        },
        Err(e) => return e.into_response(),
    };
    answer(state, &headers, move |s, caller| {
        let items = s.library.captures(&url, &caller.scope(), MAX_CAPTURES)?;
        // Deletions go with the captures the caller may see: none without them.
        let deletions = match items.is_empty() {
            true => Vec::new(),
            false => s.library.deletions(&url, &caller.scope())?,
        };
        let gone = gone_since(&items, &deletions).map(|g| g.datestamp.clone());
        Ok(json!({"url": url, "count": items.len(), "data": items,
            "deletions": deletions, "gone_since": gone}))
    })
    .await
}

/// `GET /api/v1/me`: the caller's limits, use and scope.
pub(super) async fn me(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    answer(state, &headers, |s, caller| {
        let scope = caller.scope();
        let visible = s.library.count(&scope)?;
        Ok(match caller {
            Caller::Anonymous => {
                json!({"name": null, "anonymous": true, "scope": [], "captures": visible})
            }
            Caller::Key(k) => {
                let u = s.limits.usage(k);
                json!({
                    "name": k.name,
                    "anonymous": false,
                    "quota_per_hour": k.quota_per_hour,
                    "rate_per_sec": k.rate_per_sec,
                    "used": u.used,
                    "remaining": u.remaining,
                    "reset_secs": u.reset,
                    "scope": k.allow.iter().map(ToString::to_string).collect::<Vec<_>>(),
                    "captures": visible,
                })
            }
        })
    })
    .await
}

/// `GET /api/v1/openapi.json`: public, so a program can learn the API before it has a key.
pub(super) async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], super::OPENAPI).into_response()
}

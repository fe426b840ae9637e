//! The API's handlers (the capture call is in capture.rs).

use axum::http::header;
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

use super::params::{TermsQuery, UrlQuery};
use super::shown::{self, Shown};
use crate::search::{gone_since, SearchParams};
use crate::web::{Api, AppError, Caller, Params, Who, OPENAPI};

/// Captures of one URL listed at most.
const MAX_CAPTURES: usize = 10_000;

/// `GET /api/v1/search`.
pub(super) async fn search(
    Params(params): Params<SearchParams>,
    caller: Caller<Api>,
) -> Result<impl IntoResponse, AppError> {
    let page = caller
        .run(move |s, who| Ok(s.library.search(&params, &who.scope())?))
        .await?;
    Ok((caller.rate_limit(), Json(page.map(Shown::from))))
}

/// `GET /api/v1/terms`: `size` is the number of words.
pub(super) async fn terms(
    Params(query): Params<TermsQuery>,
    caller: Caller<Api>,
) -> Result<impl IntoResponse, AppError> {
    let terms = caller
        .run(move |s, who| Ok(s.library.terms(&query.params, &who.scope(), query.size)?))
        .await?;
    Ok((caller.rate_limit(), Json(terms)))
}

/// `GET /api/v1/captures?url=`: the captures of a URL and the deletions of its file.
pub(super) async fn captures(
    Params(UrlQuery(url)): Params<UrlQuery>,
    caller: Caller<Api>,
) -> Result<impl IntoResponse, AppError> {
    let answer = caller
        .run(move |s, who| {
            let items = s.library.captures(&url, &who.scope(), MAX_CAPTURES)?;
            // Deletions go with the captures the caller may see: none without them.
            let deletions = match items.is_empty() {
                true => Vec::new(),
                false => s.library.deletions(&url, &who.scope())?,
            };
            let gone = gone_since(&items, &deletions).map(|g| g.datestamp.clone());
            Ok(
                json!({"url": url, "count": items.len(), "data": shown::all(items),
                "deletions": deletions, "gone_since": gone}),
            )
        })
        .await?;
    Ok((caller.rate_limit(), Json(answer)))
}

/// `GET /api/v1/me`: the caller's limits, use and scope.
pub(super) async fn me(caller: Caller<Api>) -> Result<impl IntoResponse, AppError> {
    let me = caller
        .run(|s, who| {
            let visible = s.library.count(&who.scope())?;
            Ok(match who {
                Who::Anonymous => {
                    json!({"name": null, "anonymous": true, "scope": [], "captures": visible})
                }
                Who::Key(k) => {
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
        .await?;
    Ok((caller.rate_limit(), Json(me)))
}

/// `GET /api/v1/openapi.json`: public, so a program can learn the API before it has a key.
pub(super) async fn openapi() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI)
}

/// Any other path under `/api/`.
pub(super) async fn not_found() -> AppError {
    AppError::NotFound(
        "no such page; the API is under /api/v1/ (see /api/v1/openapi.json)".to_owned(),
    )
}

//! The pages for people: server-rendered HTML that works without JavaScript, in the manner of
//! PrEV's web front end.
//!
//! ```text
//! /  and  /search?q=…&FACET=VALUE…   results with snippets, facet counts, paging; the calendar
//!                                    of the matching captures (year → month → day); the share
//!                                    of MIME types and formats; the word cloud of the results
//! /capture/ID                        one capture: its fields, CRATE findings, the memento
//!                                    inline, PWID, captures of the same bytes, replay links
//! /timeline?url=URL                  every capture of a URL on a time axis
//! /api                               the JSON API: its calls from the OpenAPI document, curl
//!                                    commands, and a form that tries calls with a key
//! ```
//!
//! Every page goes through the public door ([`Door::Public`](crate::api::Door)): open to all
//! unless `[access] public-ui = false`, and always within the caller's scope. Every value is
//! escaped by maud; charts and the word cloud are SVG drawn here. Errors are pages too: 400 with
//! what is wrong, 503 with `Retry-After` while an archive is being indexed, never a 500.

mod calendar;
mod capture;
mod chart;
mod cloud;
mod crate_table;
mod error;
mod facets;
mod format;
mod layout;
mod query;
mod results;
mod sandbox;
mod search;
mod timeline;

use std::sync::Arc;

use axum::extract::OriginalUri;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::api::{ApiError, AppState};

/// The routes of the pages.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/", get(search::page))
        .route("/search", get(search::page))
        .route("/capture/{id}", get(capture::page))
        .route("/timeline", get(timeline::page))
        .route("/api", get(sandbox::page))
}

/// What a path no route serves gets: a JSON error under `/api/`, a page elsewhere.
pub async fn not_found(OriginalUri(uri): OriginalUri) -> Response {
    if uri.path().starts_with("/api/") {
        return ApiError::new(
            StatusCode::NOT_FOUND,
            "no such page; the API is under /api/v1/ (see /api/v1/openapi.json)",
        )
        .into_response();
    }
    error::page(ApiError::not_found(format!(
        "there is no page {}; search the archive from the front page",
        uri.path()
    )))
}

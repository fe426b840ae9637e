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
//! Every page goes through the public door ([`Public`](crate::web::Public)): open to all unless
//! `[access] public-ui = false`, and always within the caller's scope. Every value is escaped by
//! maud; charts and the word cloud are SVG drawn here. Errors are pages too (this door's layer,
//! [`error`]): 400 with what is wrong, 503 with `Retry-After` while an archive is being indexed,
//! never a 500; a path no door serves is this door's 404 page.

mod calendar;
mod capture;
mod chart;
mod cloud;
mod crate_table;
mod error;
mod export;
mod facets;
mod format;
mod help;
mod layout;
mod query;
mod results;
mod sandbox;
mod search;
mod timeline;

use std::sync::Arc;

use axum::extract::OriginalUri;
use axum::routing::get;
use axum::Router;

use crate::web::{AppError, AppState};

/// The routes of the pages, and the page of every path no route serves.
pub(crate) fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/", get(search::page))
        .route("/search", get(search::page))
        .route("/capture/{id}", get(capture::page))
        .route("/timeline", get(timeline::page))
        .route("/api", get(sandbox::page))
        .fallback(not_found)
        .layer(axum::middleware::map_response(error::page))
}

/// A path no route serves.
async fn not_found(OriginalUri(uri): OriginalUri) -> AppError {
    AppError::NotFound(format!(
        "there is no page {}; search the archive from the front page",
        uri.path()
    ))
}

//! Memento (RFC 7089) and PWID resolution over HTTP, at the paths archives conventionally use:
//!
//! ```text
//! /timemap/link/{URI-R}   TimeMap, application/link-format (§5)
//! /timemap/json/{URI-R}   the same as JSON
//! /timegate/{URI-R}       TimeGate: Accept-Datetime → 302 to the closest memento (§4.2.1)
//! /memento/{YYYYMMDDhhmmss}/{URI-R}   the memento: the payload byte-exact from the WARC
//! /pwid/urn:pwid:…        302 to the memento a PWID names exactly, else 404 with the nearest
//! ```
//!
//! Every request goes through the public door ([`Public`](crate::web::Public)), as the pages do:
//! open to all unless `[access] public-ui = false`, within the caller's scope, counted against
//! a key's limits and answered with its RateLimit fields. The mementos come from
//! [`crate::search::mementos`]; errors are the shell's JSON. No rewriting: pywb stays the
//! rewriting replay.

pub(crate) mod datetime;
mod foreign;
mod payload;
mod pwid;
mod routes;
pub(crate) mod target;
mod timemap;

use std::sync::Arc;

use axum::routing::get;
use axum::Router;

use crate::web::AppState;

/// The Memento and PWID routes. Each ends in a catch-all: what follows the route's prefix in the
/// request target, query included, is the URI ([`target`]).
pub(crate) fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/timemap/link/{*uri}", get(routes::timemap_link))
        .route("/timemap/json/{*uri}", get(routes::timemap_json))
        .route("/timegate/{*uri}", get(routes::timegate))
        .route("/memento/{*rest}", get(routes::memento))
        .route("/pwid/{*pwid}", get(pwid::pwid))
}

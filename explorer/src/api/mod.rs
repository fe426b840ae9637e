//! The HTTP side: the JSON API under `/api/v1/`, Memento and PWID routes ([`crate::memento`])
//! and the pages for people ([`crate::ui`]), as one axum router over [`AppState`].

mod auth;
mod capture;
mod error;
mod routes;
mod state;

use std::sync::Arc;

use axum::routing::get;
use axum::Router;

pub use auth::{admit, fields as ratelimit_fields, Caller, Door, Fields};
pub use capture::{crate_facts, SAME_BYTES};
pub use error::ApiError;
pub use routes::{base_url, pairs as query_pairs, run, with_fields};
pub use state::AppState;

/// The OpenAPI 3.1 document of the API.
pub const OPENAPI: &str = include_str!("openapi.json");

/// Every route of the server.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/api/v1/search", get(routes::search))
        .route("/api/v1/terms", get(routes::terms))
        .route("/api/v1/captures", get(routes::captures))
        .route("/api/v1/capture/{id}", get(capture::capture))
        .route("/api/v1/me", get(routes::me))
        .route("/api/v1/openapi.json", get(routes::openapi))
        .merge(crate::memento::routes())
        .merge(crate::ui::routes())
        .fallback(crate::ui::not_found)
        .with_state(state)
}

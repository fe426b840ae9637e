//! The JSON API under `/api/v1/`: search, exports of a search (and their tickets), terms, the captures of a URL,
//! one capture, the caller's limits, and the OpenAPI document. Every call is admitted through the API's door
//! ([`Api`](crate::web::Api)): a key unless `[access] anonymous-api`; errors are the shell's JSON.

mod capture;
mod export;
mod params;
mod routes;
mod shown;
mod ticket;

use std::sync::Arc;

use axum::routing::{any, get, post};
use axum::Router;

use crate::web::AppState;

/// The API's routes; any other path under `/api/` is the API's 404 (JSON, not a page).
pub(crate) fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/api/v1/search", get(routes::search))
        .route("/api/v1/terms", get(routes::terms))
        .route("/api/v1/export", get(export::export))
        .route("/api/v1/export/ticket", post(ticket::issue))
        .route("/api/v1/export/progress/{token}", get(ticket::progress))
        .route("/api/v1/captures", get(routes::captures))
        .route("/api/v1/capture/{id}", get(capture::capture))
        .route("/api/v1/me", get(routes::me))
        .route("/api/v1/openapi.json", get(routes::openapi))
        .route("/api/", any(routes::not_found))
        .route("/api/{*rest}", any(routes::not_found))
}

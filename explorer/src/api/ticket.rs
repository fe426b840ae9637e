//! Export tickets (`web::ticket`): `POST /api/v1/export/ticket` gives the caller a ticket for one
//! export's URL, and `GET /api/v1/export/progress/T` says how far that export is.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

use crate::web::{links, Api, AppError, AppState, Caller, Holder, Seen, Who, TICKET_LIFE};

/// `POST /api/v1/export/ticket`: a ticket that stands for the caller (its key, or nobody where
/// the API answers without one) in one export's URL within a minute. Counted as a request.
pub(super) async fn issue(caller: Caller<Api>) -> Result<impl IntoResponse, AppError> {
    let holder = match caller.who() {
        Who::Anonymous => Holder::Anonymous,
        Who::Key(key) => Holder::Key(key.digest.clone()),
    };
    let token = caller
        .state()
        .tickets
        .issue(holder)
        .map_err(|e| AppError::unavailable(e.to_string(), TICKET_LIFE.as_secs()))?;
    let answer = json!({
        "ticket": token,
        "expires_in": TICKET_LIFE.as_secs(),
        "progress": links::export_progress(&token),
    });
    Ok((
        StatusCode::CREATED,
        caller.rate_limit(),
        [(header::CACHE_CONTROL, "no-store")],
        Json(answer),
    ))
}

/// `GET /api/v1/export/progress/T`: where the export of ticket `T` stands. The ticket is the
/// only credential (it tells counts, nothing of the captures), and asking is not counted, so a
/// page can ask every second.
pub(super) async fn progress(
    State(state): State<Arc<AppState>>,
    Path(token): Path<String>,
) -> Result<impl IntoResponse, AppError> {
    let seen: Seen = state.tickets.progress(&token).ok_or_else(|| {
        AppError::NotFound(
            "no export has this ticket: it is unknown, or its export ended hours ago".into(),
        )
    })?;
    Ok(([(header::CACHE_CONTROL, "no-store")], Json(seen)))
}

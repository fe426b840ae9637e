//! A request the server could not answer is not counted: an answer `503` (an index still being
//! built, an archive that cannot be read just now) tells its client to retry after
//! `Retry-After`, and the retry is the request that counts against the key's quota. The layer
//! gives every request a [`Charged`] slot; the [`super::Caller`] extractor records there the key
//! it counted, and a `503` answer gives that request back ([`crate::keys::Limits::refund`]).
//! The rate's tokens are not given back: the rate limits bursts, answered or not.

use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;

use super::state::AppState;
use crate::keys::ApiKey;

/// The key a request was counted against, once the caller is admitted.
#[derive(Clone, Debug, Default)]
pub(crate) struct Charged(Arc<Mutex<Option<ApiKey>>>);

impl Charged {
    /// Records that the request was counted against `key`.
    pub(crate) fn charge(&self, key: &ApiKey) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(key.clone());
    }

    fn take(&self) -> Option<ApiKey> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// The layer's function (`axum::middleware::from_fn_with_state`): runs the request with a
/// [`Charged`] slot and gives the request back to its key when the answer is `503`.
pub(crate) async fn refund_unavailable(
    State(state): State<Arc<AppState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let charged = Charged::default();
    request.extensions_mut().insert(charged.clone());
    let response = next.run(request).await;
    if response.status() == StatusCode::SERVICE_UNAVAILABLE {
        if let Some(key) = charged.take() {
            state.limits.refund(&key);
        }
    }
    response
}

//! Who is calling, what they may see, and their limits: the PrEV request flow (validate the key,
//! load its rate and access level, check the quota, restrict the query to its scope, answer
//! with rate-limit headers), the same at every door. A handler that needs a caller takes a
//! [`Caller`]: the request is admitted (and counted) before the handler runs. A spent quota or a
//! request faster than the key's rate gets 429 with `Retry-After` (RFC 6585 §4, RFC 9110
//! §10.2.3), never earlier than the quota's reset. An export's URL may carry a ticket
//! (`ticket=T`, [`super::ticket`]) instead of the header: the caller is then the key the ticket
//! stands for, admitted the same way. A request answered `503` is given back ([`super::refund`]).

use std::marker::PhantomData;
use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::HeaderMap;
use modoai_gate::Credentials;

use super::error::{AppError, Spent, Unauthorized};
use super::links;
use super::ratelimit::RateLimit;
use super::refund::Charged;
use super::state::AppState;
use super::ticket::{Holder, Progress, Tracked};
use crate::config::AccessConfig;
use crate::keys::{ApiKey, Decision, Usage};
use crate::search::Scope;

/// A door, as admission sees it: whether it answers callers without a key.
pub(crate) trait Door: Send + Sync + 'static {
    /// Whether a caller without a key is admitted, by the configuration.
    fn is_open(access: &AccessConfig) -> bool;
}

/// The JSON API (`/api/v1/…`): without a key only when `[access] anonymous-api`.
pub(crate) enum Api {}

/// The pages, Memento and PWID: without a key unless `[access] public-ui = false`.
pub(crate) enum Public {}

impl Door for Api {
    fn is_open(access: &AccessConfig) -> bool {
        access.anonymous_api
    }
}

impl Door for Public {
    fn is_open(access: &AccessConfig) -> bool {
        access.public_ui
    }
}

/// Who a caller is.
#[derive(Clone, Debug)]
pub(crate) enum Who {
    /// No key, where that is allowed.
    Anonymous,
    /// A key holder.
    Key(Box<ApiKey>),
}

impl Who {
    /// What the caller may see.
    pub(crate) fn scope(&self) -> Scope {
        match self {
            Who::Anonymous => Scope::all(),
            Who::Key(k) => k.scope(),
        }
    }
}

/// A caller admitted through door `D`: counted against its key's limits, with the RateLimit
/// fields its answer carries.
pub(crate) struct Caller<D> {
    who: Who,
    limits: RateLimit,
    state: Arc<AppState>,
    /// The progress an export admitted by a ticket reports to.
    tracked: Option<Tracked>,
    door: PhantomData<fn() -> D>,
}

impl<D: Door> FromRequestParts<Arc<AppState>> for Caller<D> {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, AppError> {
        let open = D::is_open(&state.access);
        let (who, limits, tracked) = match ticket(parts) {
            Some(token) => {
                let (holder, tracked) = state
                    .tickets
                    .redeem(token)
                    .ok_or(AppError::Unauthorized(Unauthorized::Ticket))?;
                match admit_holder(state, holder, open) {
                    Ok((who, limits)) => (who, limits, Some(tracked)),
                    Err(e) => {
                        tracked.progress().end(Err(e.to_string()));
                        return Err(e);
                    }
                }
            }
            None => {
                let (who, limits) = admit(state, &parts.headers, open)?;
                (who, limits, None)
            }
        };
        if let (Who::Key(key), Some(charged)) = (&who, parts.extensions.get::<Charged>()) {
            charged.charge(key);
        }
        Ok(Caller {
            who,
            limits,
            state: Arc::clone(state),
            tracked,
            door: PhantomData,
        })
    }
}

impl<D> Caller<D> {
    /// The RateLimit fields of the answer.
    pub(crate) fn rate_limit(&self) -> RateLimit {
        self.limits
    }

    /// The server's state.
    pub(crate) fn state(&self) -> &Arc<AppState> {
        &self.state
    }

    /// Who the caller is.
    pub(crate) fn who(&self) -> &Who {
        &self.who
    }

    /// The progress this request's export reports to, when a ticket admitted it.
    pub(crate) fn progress(&self) -> Option<&Arc<Progress>> {
        self.tracked.as_ref().map(Tracked::progress)
    }

    /// Counts one more request of the caller's quota for work its request goes on doing (an
    /// export's next thousand captures); the 429 when the quota is spent. A caller without a
    /// key, or a key without a quota, is never refused.
    pub(crate) fn spend(&self) -> Result<(), AppError> {
        let Who::Key(key) = &self.who else {
            return Ok(());
        };
        self.state
            .limits
            .spend(key)
            .map(|_| ())
            .map_err(|u| spent(&u))
    }

    /// Whether `n` more requests fit the caller's quota now; the 429 when they do not.
    pub(crate) fn afford(&self, n: u64) -> Result<(), AppError> {
        let Who::Key(key) = &self.who else {
            return Ok(());
        };
        let u = self.state.limits.usage(key);
        match u.remaining {
            Some(r) if r < n => Err(spent(&u)),
            _ => Ok(()),
        }
    }

    /// Runs `work` off the async runtime with a search permit: one search per core at a time,
    /// the others wait their turn rather than share the cores as many threads.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&AppState, &Who) -> Result<T, AppError> + Send + 'static,
    ) -> Result<T, AppError> {
        let _permit = self
            .state
            .searching
            .acquire()
            .await
            .expect("the search semaphore is never closed");
        let (state, who) = (Arc::clone(&self.state), self.who.clone());
        match tokio::task::spawn_blocking(move || work(&state, &who)).await {
            Ok(result) => result,
            Err(e) => {
                tracing::error!(error = %e, "a request's work panicked");
                Err(AppError::unavailable(
                    "the server could not answer this; try again",
                    1,
                ))
            }
        }
    }
}

/// The caller of `headers`, counted against its key's limits, and its RateLimit fields; without
/// a key, anonymous when the door is `open`.
fn admit(state: &AppState, headers: &HeaderMap, open: bool) -> Result<(Who, RateLimit), AppError> {
    let Some(presented) = presented_key(headers)? else {
        return match open {
            true => Ok((Who::Anonymous, RateLimit::default())),
            false => Err(AppError::Unauthorized(Unauthorized::Missing)),
        };
    };
    let key = state
        .keys()
        .find(&presented)
        .cloned()
        .ok_or(AppError::Unauthorized(Unauthorized::Unknown))?;
    admit_key(state, key)
}

/// The caller a ticket's `holder` is: the key of its digest as the key file has it now (a key
/// revoked since is not admitted), or anonymous where the door is `open`.
fn admit_holder(
    state: &AppState,
    holder: Holder,
    open: bool,
) -> Result<(Who, RateLimit), AppError> {
    match holder {
        Holder::Anonymous if open => Ok((Who::Anonymous, RateLimit::default())),
        Holder::Anonymous => Err(AppError::Unauthorized(Unauthorized::Missing)),
        Holder::Key(digest) => {
            let key = state
                .keys()
                .keys()
                .find(|k| k.digest == digest)
                .cloned()
                .ok_or(AppError::Unauthorized(Unauthorized::Unknown))?;
            admit_key(state, key)
        }
    }
}

/// `key`, counted against its limits.
fn admit_key(state: &AppState, key: ApiKey) -> Result<(Who, RateLimit), AppError> {
    match state.limits.admit(&key) {
        Decision::Allowed(u) => Ok((Who::Key(Box::new(key)), RateLimit::of(&u))),
        Decision::QuotaSpent(u) => Err(spent(&u)),
        Decision::TooFast(u, wait) => Err(AppError::TooMany {
            spent: Spent::Rate(key.rate_per_sec.unwrap_or_default()),
            retry: wait.max(1),
            limits: RateLimit::of(&u),
        }),
    }
}

/// The ticket of an export's URL (`/api/v1/export?…&ticket=T`); tickets admit to nothing else.
fn ticket(parts: &Parts) -> Option<&str> {
    if parts.uri.path() != links::EXPORT {
        return None;
    }
    parts
        .uri
        .query()?
        .split('&')
        .find_map(|pair| pair.strip_prefix("ticket="))
}

/// The 429 of a spent quota.
fn spent(u: &Usage) -> AppError {
    AppError::TooMany {
        spent: Spent::Quota(u.quota.unwrap_or_default()),
        retry: u.reset,
        limits: RateLimit::of(u),
    }
}

/// The key of a Bearer `Authorization` header (the scheme's name in any case, RFC 9110 §11.1), or
/// none without the header; any other header is a 401.
fn presented_key(headers: &HeaderMap) -> Result<Option<String>, AppError> {
    match Credentials::from_headers(headers) {
        Credentials::None => Ok(None),
        Credentials::Bearer(key) => Ok(Some(key)),
        Credentials::Basic { .. } | Credentials::Malformed => {
            Err(AppError::Unauthorized(Unauthorized::Malformed))
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::http::{header::AUTHORIZATION, HeaderValue, StatusCode};

    use super::*;

    fn key_of(values: &[&str]) -> Result<Option<String>, StatusCode> {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        }
        presented_key(&headers).map_err(|e| e.status())
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

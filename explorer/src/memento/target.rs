//! What a Memento or PWID request names, read from its request target before the caller is
//! admitted: a malformed request is a 400 and is not counted against a key's quota.

use axum::extract::{FromRequestParts, MatchedPath};
use axum::http::request::Parts;
use modoai_archive::pwid::Pwid;
use time::OffsetDateTime;

use super::datetime::parse_http_date;
use crate::search::parse_timestamp14;
use crate::web::AppError;

/// The URI-R of a route ending in a catch-all (`/timemap/link/{*uri}`): the request target after
/// the route's prefix, query included, as a client sent it.
pub(super) struct Target(pub(super) String);

impl<S: Send + Sync> FromRequestParts<S> for Target {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, AppError> {
        let route = parts
            .extensions
            .get::<MatchedPath>()
            .map(MatchedPath::as_str);
        let prefix = route.and_then(|r| r.split("{*").next()).unwrap_or_default();
        let target = parts.uri.path_and_query().map(|p| p.as_str());
        let rest = target
            .and_then(|t| t.strip_prefix(prefix))
            .unwrap_or_default();
        uri_r(rest, prefix).map(Target)
    }
}

/// `rest` with a `scheme:/` that a client collapsed made `scheme://` again; empty is a 400 that
/// names the route's `prefix`.
pub(crate) fn uri_r(rest: &str, prefix: &str) -> Result<String, AppError> {
    let fixed = match rest.split_once(":/") {
        Some((scheme, tail)) if !tail.starts_with('/') && !scheme.contains('/') => {
            format!("{scheme}://{tail}")
        }
        _ => rest.to_owned(),
    };
    if fixed.is_empty() {
        return Err(AppError::BadRequest(format!("give the URI after {prefix}")));
    }
    Ok(fixed)
}

/// A URI-M, `/memento/YYYYMMDDhhmmss/URI-R`: its time as written and as read (a prefix is the
/// start of its period), and the URI-R.
pub(super) struct MementoAt {
    pub(super) timestamp: String,
    pub(super) at: OffsetDateTime,
    pub(super) uri: String,
}

impl<S: Send + Sync> FromRequestParts<S> for MementoAt {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        let Target(rest) = Target::from_request_parts(parts, state).await?;
        let (timestamp, uri) = rest
            .split_once('/')
            .ok_or_else(|| AppError::BadRequest("use /memento/YYYYMMDDhhmmss/URI".to_owned()))?;
        let at = parse_timestamp14(timestamp).ok_or_else(|| {
            AppError::BadRequest(format!("{timestamp:?} is not a time YYYYMMDDhhmmss"))
        })?;
        Ok(MementoAt {
            at,
            uri: uri_r(uri, "/")?,
            timestamp: timestamp.to_owned(),
        })
    }
}

/// The `Accept-Datetime` of a TimeGate request (RFC 7089 §2.1.1), if any; a malformed one is a
/// 400.
pub(super) struct AcceptDatetime(pub(super) Option<OffsetDateTime>);

impl<S: Send + Sync> FromRequestParts<S> for AcceptDatetime {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, AppError> {
        let Some(value) = parts.headers.get("accept-datetime") else {
            return Ok(AcceptDatetime(None));
        };
        let at = value.to_str().ok().and_then(parse_http_date).ok_or_else(|| {
            AppError::BadRequest("Accept-Datetime is not an HTTP-date such as \"Tue, 20 Mar 2001 20:35:00 GMT\" (RFC 7089 §2.1.1)".to_owned())
        })?;
        Ok(AcceptDatetime(Some(at)))
    }
}

/// The PWID of `/pwid/urn:pwid:…`, percent-decoded.
pub(super) struct Named(pub(super) Pwid);

impl<S: Send + Sync> FromRequestParts<S> for Named {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        let Target(text) = Target::from_request_parts(parts, state).await?;
        let text = percent_encoding::percent_decode_str(&text)
            .decode_utf8_lossy()
            .into_owned();
        text.parse()
            .map(Named)
            .map_err(|e| AppError::BadRequest(format!("{text:?} is not a PWID: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_collapsed_scheme_is_made_whole_again() {
        assert_eq!(uri_r("http:/a.org/x", "/").unwrap(), "http://a.org/x");
        assert_eq!(
            uri_r("http://a.org/x?y=1", "/").unwrap(),
            "http://a.org/x?y=1"
        );
        assert_eq!(
            uri_r("2024/http:/a.org/", "/memento/").unwrap(),
            "2024/http:/a.org/",
            "the scheme is the URI's, not the time's"
        );
        assert_eq!(
            uri_r("", "/timegate/").unwrap_err().to_string(),
            "give the URI after /timegate/"
        );
    }
}

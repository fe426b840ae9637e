//! The URLs of the explorer's own routes, built here and nowhere else: the paths the pages link
//! to and the API's answers give, and with [`Base`] the absolute URLs of Memento answers and of
//! the API page's curl commands. The routes themselves are declared by each door's `routes()`.

use std::convert::Infallible;

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;
use url::form_urlencoded::Serializer;

/// A memento, `/memento/YYYYMMDDhhmmss/URI-R`.
pub(crate) fn memento(timestamp: &str, uri: &str) -> String {
    format!("/memento/{timestamp}/{uri}")
}

/// The TimeGate of a URI-R, `/timegate/URI-R`.
pub(crate) fn timegate(uri: &str) -> String {
    format!("/timegate/{uri}")
}

/// The TimeMap of a URI-R in `format`, `/timemap/link/URI-R` or `/timemap/json/URI-R`.
pub(crate) fn timemap(format: TimeMap, uri: &str) -> String {
    format!("/timemap/{}/{uri}", format.as_str())
}

/// The memento a PWID names, through its redirect: `/pwid/urn:pwid:…`.
pub(crate) fn pwid(pwid: &str) -> String {
    format!("/pwid/{pwid}")
}

/// The page of a capture, `/capture/ID`.
pub(crate) fn capture(id: &str) -> String {
    format!("/capture/{id}")
}

/// The timeline of a URL, `/timeline?url=URL`.
pub(crate) fn timeline(url: &str) -> String {
    const PATH: &str = "/timeline?";
    // The query starts after the path: `new` would take the path for pairs and add a `&`.
    let mut s = Serializer::for_suffix(String::from(PATH), PATH.len());
    s.append_pair("url", url);
    s.finish()
}

/// The search page of `pairs` (the API's parameters), `/search?…`; `/search` without any.
pub(crate) fn search<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut s = Serializer::new(String::new());
    s.extend_pairs(pairs);
    match s.finish() {
        query if query.is_empty() => "/search".to_owned(),
        query => format!("/search?{query}"),
    }
}

/// The path of the API's export.
pub(crate) const EXPORT: &str = "/api/v1/export";

/// The progress of the export of ticket `token`, `/api/v1/export/progress/TOKEN`.
pub(crate) fn export_progress(token: &str) -> String {
    format!("{EXPORT}/progress/{token}")
}

/// The API's export of a search (`pairs`, the API's parameters) in `format`,
/// `/api/v1/export?format=…&…`.
pub(crate) fn export<'a>(
    format: &str,
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> String {
    let mut s = Serializer::new(String::new());
    s.append_pair("format", format);
    s.extend_pairs(pairs);
    format!("{EXPORT}?{}", s.finish())
}

/// The two forms of a TimeMap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimeMap {
    /// `application/link-format` (RFC 7089 §5).
    Link,
    /// The JSON of Memento aggregators.
    Json,
}

impl TimeMap {
    /// Its path segment.
    fn as_str(self) -> &'static str {
        match self {
            TimeMap::Link => "link",
            TimeMap::Json => "json",
        }
    }
}

/// `http://host` of this server, from the Host header (`localhost` without one): the base of
/// the absolute URLs an answer gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Base(pub(crate) String);

impl<S: Send + Sync> FromRequestParts<S> for Base {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        let host = parts
            .headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("localhost");
        Ok(Base(format!("http://{host}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_to_the_routes() {
        let uri = "http://a.org/x?y=1";
        assert_eq!(
            memento("20240101000000", uri),
            "/memento/20240101000000/http://a.org/x?y=1"
        );
        assert_eq!(
            timemap(TimeMap::Json, uri),
            "/timemap/json/http://a.org/x?y=1"
        );
        assert_eq!(timegate(uri), "/timegate/http://a.org/x?y=1");
        assert_eq!(
            timeline(uri),
            "/timeline?url=http%3A%2F%2Fa.org%2Fx%3Fy%3D1"
        );
        assert_eq!(capture("0123abcd"), "/capture/0123abcd");
        assert_eq!(
            search([("q", "old maps"), ("mime", "image/png")]),
            "/search?q=old+maps&mime=image%2Fpng"
        );
        assert_eq!(search([]), "/search");
    }
}

//! Query strings, decoded by the project's strict form decoder ([`modoai_protocol::form`]): `+`
//! and `%XX` are decoded once, and a malformed escape or bytes that are not UTF-8 are a 400
//! rather than something else than the caller sent.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::error::AppError;

/// The pairs of a query string, in order, repeats kept.
pub(crate) type Pairs = Vec<(String, String)>;

/// The pairs of `query` (none without one); a query that is not form encoding is a 400.
pub(crate) fn pairs(query: Option<&str>) -> Result<Pairs, AppError> {
    modoai_protocol::form::parse(query.unwrap_or_default())
        .map_err(|_| AppError::BadRequest("the query string is not valid form encoding".to_owned()))
}

/// What a route reads from its query string's pairs, checked: a mistake is an [`AppError`]
/// (a 400 that says what is wrong).
pub(crate) trait FromPairs: Sized {
    /// `Self` from the pairs.
    fn from_pairs(pairs: Pairs) -> Result<Self, AppError>;
}

impl FromPairs for Pairs {
    fn from_pairs(pairs: Pairs) -> Result<Self, AppError> {
        Ok(pairs)
    }
}

/// A query string read as `T`: decoded, then checked. As an extractor it goes before the
/// [`Caller`](super::Caller) in a handler's arguments, so that a request that cannot be answered
/// is refused before it is counted against a key's quota.
pub(crate) struct Params<T>(pub(crate) T);

impl<S: Send + Sync, T: FromPairs> FromRequestParts<S> for Params<T> {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, AppError> {
        T::from_pairs(pairs(parts.uri.query())?).map(Params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_decoded_once_and_strictly() {
        assert_eq!(
            pairs(Some("q=old+maps&url=http%3A%2F%2Fa.org%2F%2541&&x")).unwrap(),
            [
                ("q".to_owned(), "old maps".to_owned()),
                ("url".to_owned(), "http://a.org/%41".to_owned()),
                ("x".to_owned(), String::new()),
            ]
        );
        assert_eq!(pairs(None).unwrap(), Pairs::new());
        for bad in ["q=%FF", "q=%zz", "q=%4"] {
            let e = pairs(Some(bad)).unwrap_err();
            assert_eq!(e.status(), 400, "{bad}");
            assert_eq!(e.to_string(), "the query string is not valid form encoding");
        }
    }
}

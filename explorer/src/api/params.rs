//! What the API's calls read from their query strings; each mistake is a 400 that says what is
//! wrong.

use crate::search::SearchParams;
use crate::web::{AppError, FromPairs, Pairs};

/// Words a word cloud has by default, and at most.
const TERMS: usize = 50;
const MAX_TERMS: usize = 200;

impl FromPairs for SearchParams {
    fn from_pairs(pairs: Pairs) -> Result<Self, AppError> {
        SearchParams::parse(&pairs).map_err(AppError::BadRequest)
    }
}

/// `/api/v1/terms`: a search, and `size`, the number of words.
pub(super) struct TermsQuery {
    pub(super) params: SearchParams,
    pub(super) size: usize,
}

impl FromPairs for TermsQuery {
    fn from_pairs(mut pairs: Pairs) -> Result<Self, AppError> {
        let mut size = TERMS;
        if let Some(i) = pairs.iter().position(|(k, _)| k == "size") {
            let (_, v) = pairs.remove(i);
            size = v
                .parse()
                .ok()
                .filter(|n| (1..=MAX_TERMS).contains(n))
                .ok_or_else(|| {
                    AppError::BadRequest(format!(
                        "size={v:?} is not a whole number from 1 to {MAX_TERMS}"
                    ))
                })?;
        }
        Ok(TermsQuery {
            params: SearchParams::from_pairs(pairs)?,
            size,
        })
    }
}

/// `/api/v1/captures?url=URL`: the URL, the only parameter.
pub(super) struct UrlQuery(pub(super) String);

impl FromPairs for UrlQuery {
    fn from_pairs(pairs: Pairs) -> Result<Self, AppError> {
        match pairs.as_slice() {
            [(k, v)] if k == "url" && !v.is_empty() => Ok(UrlQuery(v.clone())),
            _ => Err(AppError::BadRequest(
                "give exactly one parameter, url=URL".to_owned(),
            )),
        }
    }
}

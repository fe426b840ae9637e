//! Resumption tokens on the wire (OAI-PMH §3.5): decoding one a harvester sent back, writing the
//! element that continues or closes a list.

use modoai_protocol::{Datestamp, ErrorCode, OaiError, Verb};

use super::token::Token;
use super::Repository;
use crate::xml::Xml;

pub(super) fn decode(repo: &Repository, token: &str, verb: Verb) -> Result<Token, OaiError> {
    repo.tokens
        .decode(token, verb, Datestamp::now())
        .map_err(|e| OaiError::new(ErrorCode::BadResumptionToken, e.to_string()))
}

/// The resumptionToken element (§3.5): a token while the list goes on, an empty element on the
/// last page of a list that had several, nothing for a list that fit one page.
pub(super) fn write_token(
    repo: &Repository,
    x: &mut Xml,
    resumed: bool,
    cursor: u64,
    n: usize,
    size: u64,
    next: Option<&Token>,
) {
    let complete = size
        .max(cursor + n as u64 + u64::from(next.is_some()))
        .to_string();
    let cursor = cursor.to_string();
    match next {
        Some(t) => {
            let expires = repo.tokens.expires(t.issued).to_string();
            let attrs = [
                ("expirationDate", expires.as_str()),
                ("completeListSize", &complete),
                ("cursor", &cursor),
            ];
            x.leaf("resumptionToken", &attrs, &repo.tokens.encode(t));
        }
        None if resumed => x.empty(
            "resumptionToken",
            &[("completeListSize", &complete), ("cursor", &cursor)],
        ),
        None => {}
    }
}

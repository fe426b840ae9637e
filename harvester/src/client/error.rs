//! [`FetchError`]: why a [`Client::get`](super::Client::get) or a body read failed.

use std::error::Error as StdError;
use std::io;
use std::time::Duration;

use http::StatusCode;

/// A failed fetch. Each message names the URL and, for failures that were retried, how many
/// attempts were made; the cause of a network or body failure is its [`source`](StdError::source).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL does not parse or is not `http`/`https`.
    #[error("bad URL {url:?}: {reason}")]
    BadUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The server answered with a status that is not success: a 4xx other than 429 at once, or a
    /// retryable status (429, 5xx) on the last attempt.
    #[error("HTTP {status} from {url} ({})", attempts_note(*.attempts))]
    Status {
        /// The URL that answered.
        url: String,
        /// The last status received.
        status: StatusCode,
        /// Requests made for this URL.
        attempts: u32,
    },
    /// Connecting, sending or receiving the response head failed on the last attempt.
    #[error("network error fetching {url} ({})", attempts_note(*.attempts))]
    Network {
        /// The URL requested.
        url: String,
        /// Requests made for this URL.
        attempts: u32,
        /// The last failure.
        #[source]
        source: Box<dyn StdError + Send + Sync>,
    },
    /// The first request to an endpoint could not connect (refused, no such host, TLS refused):
    /// most likely a wrong URL, so it is not retried ([`Client::get_first`](super::Client::get_first)).
    #[error("cannot connect to {authority}: {cause}; is the URL right? ({url})")]
    Unreachable {
        /// The URL requested.
        url: String,
        /// Its host and port.
        authority: String,
        /// Why, in a few words (e.g. `connection refused`).
        cause: String,
    },
    /// No response head arrived within the header timeout on the last attempt.
    #[error("no response from {url} within {timeout:?} ({})", attempts_note(*.attempts))]
    Timeout {
        /// The URL requested.
        url: String,
        /// The header timeout.
        timeout: Duration,
        /// Requests made for this URL.
        attempts: u32,
    },
    /// More redirects than the limit.
    #[error("more than {limit} redirects, the last one to {url}")]
    TooManyRedirects {
        /// The last redirect target.
        url: String,
        /// The limit.
        limit: u32,
    },
    /// A redirect whose `Location` is missing or not an `http`/`https` URL.
    #[error("redirect from {url} to an unusable location {location:?}")]
    BadRedirect {
        /// The URL that redirected.
        url: String,
        /// The `Location` header, empty when missing.
        location: String,
    },
    /// A body collected with [`Response::bytes`](super::Response::bytes) exceeds its limit.
    #[error("body of {url} is larger than {limit} bytes")]
    BodyTooLarge {
        /// The URL of the body.
        url: String,
        /// The limit.
        limit: usize,
    },
    /// Reading the body failed: the connection broke (kind `UnexpectedEof` when the body is
    /// shorter than announced) or stalled (kind `TimedOut`).
    #[error("reading the body of {url} failed")]
    Body {
        /// The URL of the body.
        url: String,
        /// The read error.
        #[source]
        source: io::Error,
    },
}

fn attempts_note(attempts: u32) -> String {
    match attempts {
        1 => "1 attempt".to_owned(),
        n => format!("{n} attempts"),
    }
}

/// Why connecting failed, in a few lower-case words: `connection refused` rather than
/// `Connection refused (os error 111)`; the innermost cause otherwise (a DNS or TLS failure).
pub(super) fn connect_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut innermost = error;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    if let Some(io) = innermost.downcast_ref::<std::io::Error>() {
        match io.kind() {
            std::io::ErrorKind::ConnectionRefused => return "connection refused".into(),
            std::io::ErrorKind::TimedOut => return "connecting timed out".into(),
            _ => {}
        }
    }
    let text = innermost.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => "connection failed".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_causes_are_a_few_lower_case_words() {
        let refused = io::Error::from(io::ErrorKind::ConnectionRefused);
        assert_eq!(connect_cause(&refused), "connection refused");
        let dns = io::Error::other("Name or service not known (os error -2)");
        assert_eq!(connect_cause(&dns), "name or service not known");
    }
}

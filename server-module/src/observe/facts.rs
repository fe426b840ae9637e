//! [`OaiFacts`]: what the OAI-PMH route made of a request, as a response extension.

use modoai_protocol::{ErrorCode, Verb};

/// What the OAI-PMH route made of one request, attached to every response it writes as a
/// response extension, so a logging or metrics layer around [`crate::OaiPmhLayer`] (tower-http's
/// `TraceLayer`, for one) can read it:
///
/// ```
/// use modoai::observe::OaiFacts;
///
/// fn describe<B>(res: &http::Response<B>) -> String {
///     match res.extensions().get::<OaiFacts>() {
///         Some(f) => format!("verb={:?} prefix={:?}", f.verb, f.metadata_prefix),
///         None => "not OAI-PMH".to_owned(),
///     }
/// }
/// # assert_eq!(describe(&http::Response::new(())), "not OAI-PMH");
/// ```
///
/// Responses of the site (every other path) do not carry it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OaiFacts {
    /// The verb, when the request named a known one.
    pub verb: Option<Verb>,
    /// The metadataPrefix the request named, or the one of its resumption token.
    pub metadata_prefix: Option<String>,
    /// The OAI-PMH error codes of the response (HTTP 200 with `<error>` elements); empty when
    /// it answered the request.
    pub errors: Vec<ErrorCode>,
    /// Who access control identified: `user:NAME` (`[access.users]`, HTTP Basic) or `key:ID`
    /// (`[access.keys]`, HTTP Bearer).
    pub user: Option<String>,
    /// Why the request was refused with an HTTP error before it was answered, if it was.
    pub refusal: Option<Refusal>,
}

/// Why the OAI-PMH route refused a request with an HTTP status instead of answering it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Refusal {
    /// 503: the site index is still being built.
    Indexing,
    /// 503: the client's rate limit (`[flow]`) is used up.
    RateLimit,
    /// 503: the bound on concurrent oai_didl/oai_crate responses (`[flow]`) is reached.
    EnhancedBusy,
    /// 503: all password checks are busy.
    VerifyingBusy,
    /// 401: the format needs credentials the request did not prove.
    Unauthorized,
    /// 403: this client may not receive the format.
    Forbidden,
}

impl Refusal {
    /// The refusal as a snake_case word, as logs and metric labels show it.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Indexing => "indexing",
            Refusal::RateLimit => "rate_limit",
            Refusal::EnhancedBusy => "enhanced_busy",
            Refusal::VerifyingBusy => "verifying_busy",
            Refusal::Unauthorized => "unauthorized",
            Refusal::Forbidden => "forbidden",
        }
    }

    /// True for the refusals of flow control (503), false for those of access control (401/403).
    pub fn is_flow_control(self) -> bool {
        !matches!(self, Refusal::Unauthorized | Refusal::Forbidden)
    }
}

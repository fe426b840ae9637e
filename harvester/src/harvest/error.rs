//! Why a harvest stopped: [`HarvestError`].

use modoai_archive::archive::ArchiveError;
use modoai_protocol::OaiError;

use crate::client::FetchError;
use crate::parse::ParseError;

/// Why a harvest stopped before the end of its list.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HarvestError {
    /// The HTTP client gave up (after its retries).
    #[error("{0}")]
    Fetch(Box<FetchError>),
    /// A page kept arriving broken.
    #[error("page {url} still broken after {attempts} attempts: {error}")]
    BrokenPage {
        /// The request.
        url: String,
        /// How many times it was fetched.
        attempts: u32,
        /// The last parse error.
        error: ParseError,
    },
    /// The endpoint answered with OAI-PMH errors.
    #[error("{url}: the endpoint answered {}", describe(errors))]
    Oai {
        /// The request.
        url: String,
        /// The errors.
        errors: Vec<OaiError>,
    },
    /// The endpoint sent a resumption token it had sent before: following it would loop.
    #[error(
        "{url}: the endpoint repeated resumption token {token:?}; stopping instead of looping"
    )]
    RepeatedToken {
        /// The request whose answer repeated the token.
        url: String,
        /// The token.
        token: String,
    },
    /// `badResumptionToken` kept coming back after starting over.
    #[error("{url}: badResumptionToken again after {restarts} fresh starts")]
    TooManyRestarts {
        /// The request.
        url: String,
        /// Restarts made.
        restarts: u32,
    },
    /// The archive could not be written.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// A date argument is not an OAI-PMH datestamp.
    #[error("{0:?} is not a date of the form YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ")]
    BadDate(String),
    /// The endpoint refused the list's first request (`badArgument`, `cannotDisseminateFormat`):
    /// a mistake in what was asked, not a harvest to continue.
    #[error(
        "{url}: the endpoint refused the request: {}; check --metadata-prefix, --set, --from \
         and --until (`modoai-harvester inspect endpoint` shows its formats and sets)",
        describe(errors)
    )]
    Refused {
        /// The request.
        url: String,
        /// The errors.
        errors: Vec<OaiError>,
    },
    /// The set asked for is not one the endpoint lists, and it has no records in it.
    #[error(
        "set {set:?} is not one of the endpoint's sets ({}), and the endpoint answered {url} \
         with {}; check the set's spelling",
        known_sets(sets),
        describe(errors)
    )]
    UnknownSet {
        /// The set asked for.
        set: String,
        /// The request answered `noRecordsMatch`.
        url: String,
        /// The endpoint's answer.
        errors: Vec<OaiError>,
        /// The set specs it lists.
        sets: Vec<String>,
    },
    /// No format was named and the archive holds several of the endpoint: which one to continue
    /// is the user's choice.
    #[error(
        "the archive holds harvests of {endpoint} in {}: name the one to harvest with \
         --metadata-prefix (e.g. --metadata-prefix {})",
        held.join(" and "),
        held.first().map_or("oai_dc", String::as_str)
    )]
    WhichPrefix {
        /// The endpoint.
        endpoint: String,
        /// The formats the archive holds of it.
        held: Vec<String>,
    },
    /// Interrupted (SIGINT/SIGTERM, or its cancellation token) at a safe point.
    #[error("interrupted")]
    Interrupted,
}

impl HarvestError {
    /// A mistake in what was asked (a date, a set, a format or argument the endpoint refused):
    /// nothing was harvested, and the list's state is left as it was.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Self::BadDate(_)
                | Self::Refused { .. }
                | Self::UnknownSet { .. }
                | Self::WhichPrefix { .. }
        )
    }
}

fn known_sets(sets: &[String]) -> String {
    const SHOWN: usize = 10;
    match sets.len() {
        0 => "it has none".into(),
        n if n <= SHOWN => sets.join(", "),
        n => format!("{}, and {} more", sets[..SHOWN].join(", "), n - SHOWN),
    }
}

fn describe(errors: &[OaiError]) -> String {
    if errors.is_empty() {
        return "no usable answer".into();
    }
    errors
        .iter()
        .map(|e| format!("{}: {}", e.code.as_str(), e.message))
        .collect::<Vec<_>>()
        .join("; ")
}

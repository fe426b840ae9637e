//! The facets: which fields results are counted and filtered by.

use std::fmt;
use std::str::FromStr;

/// A field results can be counted and filtered by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Facet {
    /// Capture year, `YYYY`.
    Year,
    /// Capture month, `YYYY-MM`.
    Month,
    /// Capture day, `YYYY-MM-DD`.
    Day,
    /// Host of the URL.
    Host,
    /// MIME type.
    Mime,
    /// OAI set of the item (`mime:image:jpeg`).
    Set,
    /// PRONOM PUID (Siegfried, or FIDO where Siegfried did not run).
    Puid,
    /// JHOVE verdict: `valid`, `well-formed`, `not-well-formed`, `unknown`.
    Jhove,
    /// Language of the text (ISO 639-3).
    Lang,
    /// OAI-PMH endpoint harvested.
    Endpoint,
    /// Harvest name.
    Harvest,
    /// Archive name.
    Archive,
    /// Camera (EXIF).
    Camera,
    /// `resource` or `revisit`.
    Kind,
    /// Payload SHA-1 (Base32).
    Sha1,
    /// HTTP status class of a foreign capture: `2xx`, `3xx`, `4xx`, `5xx` (none for a
    /// `resource`).
    Status,
    /// What is wrong with a capture: `digest-mismatch`, `unresolved-revisit`.
    Flag,
}

/// Every facet, in the order answers list them.
pub const ALL: [Facet; 17] = [
    Facet::Year,
    Facet::Month,
    Facet::Day,
    Facet::Host,
    Facet::Mime,
    Facet::Set,
    Facet::Puid,
    Facet::Jhove,
    Facet::Lang,
    Facet::Endpoint,
    Facet::Harvest,
    Facet::Archive,
    Facet::Camera,
    Facet::Kind,
    Facet::Sha1,
    Facet::Status,
    Facet::Flag,
];

/// The facets counted when a search names none.
pub const DEFAULT: [Facet; 9] = [
    Facet::Year,
    Facet::Host,
    Facet::Mime,
    Facet::Puid,
    Facet::Jhove,
    Facet::Lang,
    Facet::Endpoint,
    Facet::Set,
    Facet::Archive,
];

impl Facet {
    /// Its name in the API and its field in the index.
    pub fn name(self) -> &'static str {
        match self {
            Facet::Year => "year",
            Facet::Month => "month",
            Facet::Day => "day",
            Facet::Host => "host",
            Facet::Mime => "mime",
            Facet::Set => "set",
            Facet::Puid => "puid",
            Facet::Jhove => "jhove",
            Facet::Lang => "lang",
            Facet::Endpoint => "endpoint",
            Facet::Harvest => "harvest",
            Facet::Archive => "archive",
            Facet::Camera => "camera",
            Facet::Kind => "kind",
            Facet::Sha1 => "sha1",
            Facet::Status => "status",
            Facet::Flag => "flag",
        }
    }

    /// Whether its values are periods, listed in time order rather than by count.
    pub fn is_calendar(self) -> bool {
        matches!(self, Facet::Year | Facet::Month | Facet::Day)
    }
}

impl fmt::Display for Facet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Facet {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<&str> = ALL.iter().map(|f| f.name()).collect();
            format!("{s:?} is not a facet; use one of {}", names.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in ALL {
            assert_eq!(f.name().parse::<Facet>(), Ok(f));
        }
        assert!("colour"
            .parse::<Facet>()
            .unwrap_err()
            .contains("year, month"));
    }
}

//! The six OAI-PMH verbs (§4).

use std::fmt;
use std::str::FromStr;

/// One of the six OAI-PMH requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verb {
    /// §4.2: information about the repository.
    Identify,
    /// §4.4: the metadata formats of the repository or of one item.
    ListMetadataFormats,
    /// §4.6: the set structure.
    ListSets,
    /// §4.3: headers only.
    ListIdentifiers,
    /// §4.5: whole records.
    ListRecords,
    /// §4.1: one record.
    GetRecord,
}

impl Verb {
    /// Every verb, in the order of the specification's table of contents.
    pub const ALL: [Verb; 6] = [
        Verb::Identify,
        Verb::ListMetadataFormats,
        Verb::ListSets,
        Verb::ListIdentifiers,
        Verb::ListRecords,
        Verb::GetRecord,
    ];

    /// The verb as it appears in a request and as the response element name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Identify => "Identify",
            Verb::ListMetadataFormats => "ListMetadataFormats",
            Verb::ListSets => "ListSets",
            Verb::ListIdentifiers => "ListIdentifiers",
            Verb::ListRecords => "ListRecords",
            Verb::GetRecord => "GetRecord",
        }
    }

    /// The arguments this verb accepts besides `verb` itself (§4, table of arguments).
    pub fn allowed_args(self) -> &'static [&'static str] {
        match self {
            Verb::Identify => &[],
            Verb::ListMetadataFormats => &["identifier"],
            Verb::ListSets => &["resumptionToken"],
            Verb::ListIdentifiers | Verb::ListRecords => {
                &["metadataPrefix", "from", "until", "set", "resumptionToken"]
            }
            Verb::GetRecord => &["identifier", "metadataPrefix"],
        }
    }
}

impl fmt::Display for Verb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The value of `verb` is not one of the six verbs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVerb;

impl fmt::Display for UnknownVerb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not an OAI-PMH verb")
    }
}

impl std::error::Error for UnknownVerb {}

impl FromStr for Verb {
    type Err = UnknownVerb;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Verb::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or(UnknownVerb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_verb() {
        for verb in Verb::ALL {
            assert_eq!(verb.as_str().parse::<Verb>(), Ok(verb));
        }
        assert!(
            "identify".parse::<Verb>().is_err(),
            "verbs are case-sensitive"
        );
    }
}

//! The eight OAI-PMH error codes (§3.6).

use std::fmt;
use std::str::FromStr;

/// An OAI-PMH error condition. Every one is sent with HTTP 200 inside an `<error>` element.
//
// Deliberately not `#[non_exhaustive]`: these are the eight codes of OAI-PMH 2.0 (§3.6), a closed
// set fixed by the specification and its XSD, so callers may match on them exhaustively.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// Illegal, missing, repeated or unknown arguments, or illegal values.
    BadArgument,
    /// The resumptionToken is invalid, forged or expired.
    BadResumptionToken,
    /// `verb` is missing, repeated or not a verb.
    BadVerb,
    /// The metadata format is not supported by the repository or the item.
    CannotDisseminateFormat,
    /// The identifier is unknown or illegal in this repository.
    IdDoesNotExist,
    /// No metadata formats are available for the item.
    NoMetadataFormats,
    /// The combination of from, until, set and metadataPrefix selects nothing.
    NoRecordsMatch,
    /// The repository does not support sets.
    NoSetHierarchy,
}

impl ErrorCode {
    /// Every code, in the order of the XSD enumeration.
    pub const ALL: [ErrorCode; 8] = [
        ErrorCode::CannotDisseminateFormat,
        ErrorCode::IdDoesNotExist,
        ErrorCode::BadArgument,
        ErrorCode::BadVerb,
        ErrorCode::NoMetadataFormats,
        ErrorCode::NoRecordsMatch,
        ErrorCode::BadResumptionToken,
        ErrorCode::NoSetHierarchy,
    ];

    /// The value of the `code` attribute.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadArgument => "badArgument",
            ErrorCode::BadResumptionToken => "badResumptionToken",
            ErrorCode::BadVerb => "badVerb",
            ErrorCode::CannotDisseminateFormat => "cannotDisseminateFormat",
            ErrorCode::IdDoesNotExist => "idDoesNotExist",
            ErrorCode::NoMetadataFormats => "noMetadataFormats",
            ErrorCode::NoRecordsMatch => "noRecordsMatch",
            ErrorCode::NoSetHierarchy => "noSetHierarchy",
        }
    }

    /// Whether the `request` element of a response carrying this error must omit the arguments (§3.2).
    pub fn hides_request_arguments(self) -> bool {
        matches!(self, ErrorCode::BadVerb | ErrorCode::BadArgument)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ErrorCode {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ErrorCode::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or(())
    }
}

/// An error code with its human-readable text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OaiError {
    /// The code.
    pub code: ErrorCode,
    /// Text for people; the official validator warns when it is empty.
    pub message: String,
}

impl OaiError {
    /// An error with the given code and text.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        OaiError {
            code,
            message: message.into(),
        }
    }

    /// `badArgument` with the given text.
    pub fn bad_argument(message: impl Into<String>) -> Self {
        OaiError::new(ErrorCode::BadArgument, message)
    }
}

impl fmt::Display for OaiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for OaiError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for code in ErrorCode::ALL {
            assert_eq!(code.as_str().parse::<ErrorCode>(), Ok(code));
        }
    }
}

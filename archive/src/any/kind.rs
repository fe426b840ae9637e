//! What a record is: its `WARC-Type` (WARC 1.1 §5–§6) and, for a revisit, its profile (§6.7).

use std::fmt;

use serde::{Deserialize, Serialize};

/// A record's type. ARC records are [`RecordKind::Response`] (their `filedesc://` header record
/// is [`RecordKind::Warcinfo`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordKind {
    /// Describes the records that follow.
    Warcinfo,
    /// A full protocol response (HTTP status, headers and body).
    Response,
    /// An object without protocol information: payload = block.
    Resource,
    /// A full protocol request.
    Request,
    /// Describes another record.
    Metadata,
    /// An abbreviated re-capture, by its profile.
    Revisit(RevisitProfile),
    /// A migrated version of another record's content.
    Conversion,
    /// A later segment of a segmented record.
    Continuation,
    /// A type this reader does not know (WARC 1.1 §5: readers skip what they do not know).
    Other(String),
}

/// A revisit's `WARC-Profile`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RevisitProfile {
    /// The payload is that of an earlier capture with the same `WARC-Payload-Digest`
    /// (`…/warc/1.0/revisit/identical-payload-digest`, `…/1.1/…`, and the 0.18 draft's URI).
    IdenticalPayloadDigest,
    /// The server answered "not modified" (`…/revisit/server-not-modified`).
    ServerNotModified,
    /// Another profile, or none: WARC 1.1 §6.7 says not to interpret such a revisit.
    Other(String),
}

impl RecordKind {
    /// The kind that `WARC-Type: value` and `WARC-Profile: profile` name.
    pub fn of(value: &str, profile: Option<&str>) -> RecordKind {
        match value.to_ascii_lowercase().as_str() {
            "warcinfo" => RecordKind::Warcinfo,
            "response" => RecordKind::Response,
            "resource" => RecordKind::Resource,
            "request" => RecordKind::Request,
            "metadata" => RecordKind::Metadata,
            "revisit" => RecordKind::Revisit(RevisitProfile::of(profile.unwrap_or_default())),
            "conversion" => RecordKind::Conversion,
            "continuation" => RecordKind::Continuation,
            _ => RecordKind::Other(value.to_owned()),
        }
    }

    /// The `WARC-Type` value.
    pub fn as_str(&self) -> &str {
        match self {
            RecordKind::Warcinfo => "warcinfo",
            RecordKind::Response => "response",
            RecordKind::Resource => "resource",
            RecordKind::Request => "request",
            RecordKind::Metadata => "metadata",
            RecordKind::Revisit(_) => "revisit",
            RecordKind::Conversion => "conversion",
            RecordKind::Continuation => "continuation",
            RecordKind::Other(name) => name,
        }
    }

    /// Whether the record is a capture of its target: a response, a resource or a revisit.
    pub fn is_capture(&self) -> bool {
        matches!(
            self,
            RecordKind::Response | RecordKind::Resource | RecordKind::Revisit(_)
        )
    }
}

impl fmt::Display for RecordKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl RevisitProfile {
    /// The profile a `WARC-Profile` URI names, whatever WARC version its path says.
    pub fn of(uri: &str) -> RevisitProfile {
        let uri = uri.trim().trim_start_matches('<').trim_end_matches('>');
        if uri.ends_with("/identical-payload-digest") {
            RevisitProfile::IdenticalPayloadDigest
        } else if uri.ends_with("/server-not-modified") {
            RevisitProfile::ServerNotModified
        } else {
            RevisitProfile::Other(uri.to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_profiles() {
        let revisit = |p| RecordKind::of("revisit", Some(p));
        for uri in [
            "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest",
            "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
            "http://netpreserve.org/warc/0.18/revisit/identical-payload-digest",
        ] {
            let want = RecordKind::Revisit(RevisitProfile::IdenticalPayloadDigest);
            assert_eq!(revisit(uri), want);
        }
        assert_eq!(
            revisit("http://netpreserve.org/warc/1.1/revisit/server-not-modified"),
            RecordKind::Revisit(RevisitProfile::ServerNotModified)
        );
        assert_eq!(RecordKind::of("Response", None), RecordKind::Response);
        assert_eq!(RecordKind::of("odd", None).as_str(), "odd");
        assert!(!RecordKind::Request.is_capture());
    }
}

//! Fixity checks of a payload against what its record announced.

use std::fmt;

use modoai_archive::facts::Facts;

/// What a fixity check compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// The MD5 the CRATE's `md5` plugin reported against the MD5 of the bytes received.
    Md5,
    /// The HTTP `Content-Length` the CRATE recorded against the bytes received.
    Length,
}

impl Check {
    fn name(self) -> &'static str {
        match self {
            Check::Md5 => "md5",
            Check::Length => "length",
        }
    }

    /// How the actual value was obtained.
    fn measured(self) -> &'static str {
        match self {
            Check::Md5 => "computed",
            Check::Length => "received",
        }
    }
}

/// The outcome of one fixity check. Its text (`md5 ok …`, `MISMATCH length expected … received
/// …`) is the `fixity` field of the payload's metadata record and, for a mismatch, a line of the
/// ledger entry's `fixity_errors`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fixity {
    /// The value announced is the value found.
    Ok { check: Check, value: String },
    /// They differ.
    Mismatch {
        check: Check,
        expected: String,
        actual: String,
    },
}

impl Fixity {
    fn new(check: Check, expected: String, actual: String) -> Self {
        if expected == actual {
            Fixity::Ok {
                check,
                value: actual,
            }
        } else {
            Fixity::Mismatch {
                check,
                expected,
                actual,
            }
        }
    }

    pub(crate) fn is_mismatch(&self) -> bool {
        matches!(self, Fixity::Mismatch { .. })
    }
}

impl fmt::Display for Fixity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fixity::Ok { check, value } => write!(f, "{} ok {value}", check.name()),
            Fixity::Mismatch {
                check,
                expected,
                actual,
            } => write!(
                f,
                "MISMATCH {} expected {expected} {} {actual}",
                check.name(),
                check.measured()
            ),
        }
    }
}

/// The fixity checks that apply to a payload of `len` bytes whose MD5 is `md5` (computed from
/// the bytes received):
/// the CRATE's `md5` plugin and the HTTP `Content-Length`, for a record's only payload.
pub(crate) fn checks(facts: &Facts, md5: Option<&str>, len: u64, only: bool) -> Vec<Fixity> {
    let mut out = Vec::new();
    if !only {
        return out;
    }
    if let (Some(expected), Some(actual)) = (facts.plugin_text("md5"), md5) {
        let expected = expected
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        out.push(Fixity::new(Check::Md5, expected, actual.to_owned()));
    }
    if let Some(announced) = facts
        .http_header("content-length")
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        out.push(Fixity::new(
            Check::Length,
            announced.to_string(),
            len.to_string(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_those_of_the_archive() {
        let ok = Fixity::new(Check::Md5, "ab".into(), "ab".into());
        assert!(!ok.is_mismatch());
        assert_eq!(ok.to_string(), "md5 ok ab");
        let bad = Fixity::new(Check::Length, "3".into(), "2".into());
        assert!(bad.is_mismatch());
        assert_eq!(bad.to_string(), "MISMATCH length expected 3 received 2");
        let bad = Fixity::new(Check::Md5, "ab".into(), "cd".into());
        assert_eq!(bad.to_string(), "MISMATCH md5 expected ab computed cd");
    }
}

//! PWID, the Persistent Web IDentifier (IANA URN namespace `pwid`, draft-pwid-urn-specification):
//! which archive, what time, what coverage, which archived item.
//!
//! ```
//! use modoai_archive::pwid::{Coverage, Pwid};
//!
//! let p: Pwid = "urn:pwid:archive.org:2016-01-22T11:20:29Z:page:http://www.dr.dk".parse()?;
//! assert_eq!((p.archive_id.as_str(), p.coverage, p.item.as_str()), ("archive.org", Coverage::Page, "http://www.dr.dk"));
//! // The historical `pwid:` form is read too; the URN form is always written.
//! let old: Pwid = "pwid:archive.org:2016-01-22_11.20.29Z:page:http://www.dr.dk".parse()?;
//! assert_eq!(old, p);
//! assert_eq!(p.timestamp14(), "20160122112029");
//! # Ok::<(), modoai_archive::pwid::PwidError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use time::macros::format_description;
use time::{OffsetDateTime, PrimitiveDateTime};

/// What a PWID covers (draft §… "coverage").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coverage {
    /// One archived element: a file, an image, an HTML text.
    Part,
    /// A page with everything it embeds.
    Page,
    /// A part of a domain.
    Subsite,
    /// A whole site.
    Site,
    /// A collection or corpus definition.
    Collection,
    /// A recording of a browsing session.
    Recording,
    /// An image of web material.
    Snapshot,
    /// Anything else.
    Other,
}

impl Coverage {
    const ALL: [Coverage; 8] = [
        Coverage::Part,
        Coverage::Page,
        Coverage::Subsite,
        Coverage::Site,
        Coverage::Collection,
        Coverage::Recording,
        Coverage::Snapshot,
        Coverage::Other,
    ];

    /// The value as written in a PWID.
    pub fn as_str(self) -> &'static str {
        match self {
            Coverage::Part => "part",
            Coverage::Page => "page",
            Coverage::Subsite => "subsite",
            Coverage::Site => "site",
            Coverage::Collection => "collection",
            Coverage::Recording => "recording",
            Coverage::Snapshot => "snapshot",
            Coverage::Other => "other",
        }
    }
}

/// A persistent web identifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pwid {
    /// The archive (`1*unreserved`, in practice its domain).
    pub archive_id: String,
    /// The archival time, UTC, whole seconds.
    pub archived_at: OffsetDateTime,
    /// What is identified.
    pub coverage: Coverage,
    /// The archived URI as is (it may contain `:`), or an identifier.
    pub item: String,
}

/// Why a string is not a PWID, or an archive id not usable in one.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PwidError {
    /// Neither `urn:pwid:` nor `pwid:`.
    #[error("a PWID starts with \"urn:pwid:\" (or the historical \"pwid:\")")]
    Prefix,
    /// The archive id is empty or has characters outside RFC 3986 `unreserved`.
    #[error("archive id {0:?} must be one or more of A-Z a-z 0-9 - . _ ~")]
    ArchiveId(String),
    /// The archival time is not `YYYY-MM-DDThh:mm:ssZ` (or `YYYY-MM-DD_hh.mm.ssZ` in the old form).
    #[error("archival time {0:?} is not YYYY-MM-DDThh:mm:ssZ")]
    Time(String),
    /// Not one of the eight coverage values.
    #[error("coverage {0:?} is not one of part, page, subsite, site, collection, recording, snapshot, other")]
    Coverage(String),
    /// Nothing after the coverage.
    #[error("the archived item is missing")]
    Item,
}

impl Pwid {
    /// A `part` PWID: one archived element at its capture time.
    pub fn part(
        archive_id: &str,
        archived_at: OffsetDateTime,
        item: &str,
    ) -> Result<Pwid, PwidError> {
        check_archive_id(archive_id)?;
        Ok(Pwid {
            archive_id: archive_id.to_owned(),
            archived_at: archived_at.replace_nanosecond(0).unwrap_or(archived_at),
            coverage: Coverage::Part,
            item: item.to_owned(),
        })
    }

    /// The archival time as a 14-digit WARC/CDXJ timestamp.
    pub fn timestamp14(&self) -> String {
        let t = self.archived_at.to_offset(time::UtcOffset::UTC);
        t.format(format_description!(
            "[year][month][day][hour][minute][second]"
        ))
        .unwrap_or_default()
    }
}

/// Checks an archive id: `1*unreserved` (RFC 3986: `A-Z a-z 0-9 - . _ ~`).
pub fn check_archive_id(id: &str) -> Result<(), PwidError> {
    let unreserved = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
    if id.is_empty() || !id.bytes().all(unreserved) {
        return Err(PwidError::ArchiveId(id.to_owned()));
    }
    Ok(())
}

impl fmt::Display for Pwid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.archived_at.to_offset(time::UtcOffset::UTC);
        let time = t
            .format(format_description!(
                "[year]-[month]-[day]T[hour]:[minute]:[second]Z"
            ))
            .map_err(|_| fmt::Error)?;
        write!(
            f,
            "urn:pwid:{}:{time}:{}:{}",
            self.archive_id,
            self.coverage.as_str(),
            self.item
        )
    }
}

impl FromStr for Pwid {
    type Err = PwidError;

    /// Splits positionally (the time holds two colons in the URN form): prefix, archive id up to
    /// the next `:`, the time, the coverage up to the next `:`, and the rest as the item.
    fn from_str(s: &str) -> Result<Pwid, PwidError> {
        let (rest, historical) = if let Some(r) = s.strip_prefix("urn:pwid:") {
            (r, false)
        } else if let Some(r) = s.strip_prefix("pwid:") {
            (r, true)
        } else {
            return Err(PwidError::Prefix);
        };
        let (archive_id, rest) = rest.split_once(':').ok_or(PwidError::Item)?;
        check_archive_id(archive_id)?;
        // URN form: `YYYY-MM-DDThh:mm:ssZ` spans three `:` fields; old form: one field.
        let fields = if historical { 1 } else { 3 };
        let mut end = 0;
        for _ in 0..fields {
            let next = rest[end..].find(':').ok_or(PwidError::Item)?;
            end += next + 1;
        }
        let time_text = &rest[..end - 1];
        let rest = &rest[end..];
        let archived_at = parse_time(time_text, historical)?;
        let (coverage_text, item) = rest.split_once(':').ok_or(PwidError::Item)?;
        let coverage = Coverage::ALL
            .into_iter()
            .find(|c| c.as_str() == coverage_text)
            .ok_or_else(|| PwidError::Coverage(coverage_text.to_owned()))?;
        if item.is_empty() {
            return Err(PwidError::Item);
        }
        Ok(Pwid {
            archive_id: archive_id.to_owned(),
            archived_at,
            coverage,
            item: item.to_owned(),
        })
    }
}

fn parse_time(text: &str, historical: bool) -> Result<OffsetDateTime, PwidError> {
    let bad = || PwidError::Time(text.to_owned());
    let parsed = if historical {
        PrimitiveDateTime::parse(
            text,
            format_description!("[year]-[month]-[day]_[hour].[minute].[second]Z"),
        )
    } else {
        PrimitiveDateTime::parse(
            text,
            format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z"),
        )
    };
    Ok(parsed.map_err(|_| bad())?.assume_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_round_trip() {
        for s in [
            "urn:pwid:archive.org:2016-01-22T11:20:29Z:page:http://www.dr.dk",
            "urn:pwid:webarchiv.onb.ac.at:2013-12-03T17:03:03Z:page:http://m.onb.ac.at/prunksaal.htm",
            "urn:pwid:archive.org:2022-11-27T18:33:21Z:page:https://www.iana.org/assignments/urn-formal/pwid",
            "urn:pwid:netarkivet.dk:2020-01-01T00:00:00Z:part:http://h:8080/a:b?c=d:e",
        ] {
            let p: Pwid = s.parse().unwrap();
            assert_eq!(p.to_string(), s);
        }
        let p: Pwid = "urn:pwid:a.b:2020-01-01T00:00:00Z:part:http://h:8080/x"
            .parse()
            .unwrap();
        assert_eq!(p.item, "http://h:8080/x");
        assert_eq!(p.timestamp14(), "20200101000000");
    }

    #[test]
    fn malformed() {
        let cases: [(&str, PwidError); 8] = [
            ("http://x", PwidError::Prefix),
            (
                "urn:pwid::2016-01-22T11:20:29Z:page:x",
                PwidError::ArchiveId(String::new()),
            ),
            (
                "urn:pwid:a/b:2016-01-22T11:20:29Z:page:x",
                PwidError::ArchiveId("a/b".into()),
            ),
            (
                "urn:pwid:a:2016-01-22T11:20Z:page:x",
                PwidError::Time("2016-01-22T11:20Z:page".into()),
            ),
            (
                "urn:pwid:a:2016-13-22T11:20:29Z:page:x",
                PwidError::Time("2016-13-22T11:20:29Z".into()),
            ),
            (
                "urn:pwid:a:2016-01-22T11:20:29Z:book:x",
                PwidError::Coverage("book".into()),
            ),
            ("urn:pwid:a:2016-01-22T11:20:29Z:page:", PwidError::Item),
            ("urn:pwid:a:2016-01-22T11:20:29Z:page", PwidError::Item),
        ];
        for (s, want) in cases {
            assert_eq!(s.parse::<Pwid>(), Err(want), "{s}");
        }
        assert!("pwid:a:2016-01-22T11:20:29Z:page:x"
            .parse::<Pwid>()
            .is_err());
    }
}

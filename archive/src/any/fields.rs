//! The header fields of a record, in order, and the ones the explorer uses typed (WARC 1.1 §5).

use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{OffsetDateTime, PrimitiveDateTime};

use super::digest::Digest;

/// A record's header fields as written (names as spelled, order and repeats kept), with the
/// ones the explorer needs typed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// Every field, in order.
    pub all: Vec<(String, String)>,
    /// `WARC-Target-URI` (angle brackets of 1.0 files removed); an ARC record's URL.
    pub target_uri: Option<String>,
    /// `WARC-Date`, or an ARC record's archive date.
    pub date: Option<OffsetDateTime>,
    /// `WARC-Record-ID`, as written (`<urn:uuid:…>`).
    pub record_id: Option<String>,
    /// `Content-Type` of the block.
    pub content_type: Option<String>,
    /// `WARC-Block-Digest`.
    pub block_digest: Option<Digest>,
    /// `WARC-Payload-Digest`.
    pub payload_digest: Option<Digest>,
    /// `WARC-Refers-To`.
    pub refers_to: Option<String>,
    /// `WARC-Refers-To-Target-URI` (a revisit's original URL).
    pub refers_to_target_uri: Option<String>,
    /// `WARC-Refers-To-Date` (a revisit's original capture time).
    pub refers_to_date: Option<OffsetDateTime>,
    /// Every `WARC-Concurrent-To` (the only field that may repeat).
    pub concurrent_to: Vec<String>,
    /// `WARC-Truncated` (`length`, `time`, `disconnect`, `unspecified`).
    pub truncated: Option<String>,
    /// `WARC-Warcinfo-ID`.
    pub warcinfo_id: Option<String>,
    /// `WARC-IP-Address`, or an ARC record's IP address.
    pub ip_address: Option<String>,
    /// `WARC-Profile`.
    pub profile: Option<String>,
    /// `WARC-Filename` (of a warcinfo record).
    pub filename: Option<String>,
}

impl Fields {
    /// Types the fields of a WARC head.
    pub(crate) fn of(all: Vec<(String, String)>) -> Fields {
        let mut f = Fields::default();
        for (name, value) in &all {
            let value = value.as_str();
            match name.to_ascii_lowercase().as_str() {
                "warc-target-uri" => f.target_uri = Some(bare(value)),
                "warc-date" => f.date = parse_date(value),
                "warc-record-id" => f.record_id = Some(value.to_owned()),
                "content-type" => f.content_type = Some(value.to_owned()),
                "warc-block-digest" => f.block_digest = Some(Digest::parse(value)),
                "warc-payload-digest" => f.payload_digest = Some(Digest::parse(value)),
                "warc-refers-to" => f.refers_to = Some(value.to_owned()),
                "warc-refers-to-target-uri" => f.refers_to_target_uri = Some(bare(value)),
                "warc-refers-to-date" => f.refers_to_date = parse_date(value),
                "warc-concurrent-to" => f.concurrent_to.push(value.to_owned()),
                "warc-truncated" => f.truncated = Some(value.to_owned()),
                "warc-warcinfo-id" => f.warcinfo_id = Some(value.to_owned()),
                "warc-ip-address" => f.ip_address = Some(value.to_owned()),
                "warc-profile" => f.profile = Some(bare(value)),
                "warc-filename" => f.filename = Some(value.to_owned()),
                _ => {}
            }
        }
        f.all = all;
        f
    }

    /// The first field named `name` (ASCII case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.all
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A URI without the angle brackets WARC 1.0 files put around it.
fn bare(value: &str) -> String {
    value
        .strip_prefix('<')
        .and_then(|v| v.strip_suffix('>'))
        .unwrap_or(value)
        .to_owned()
}

/// A `WARC-Date` (W3C-DTF, 1.1 allows fractions of a second), or 14 digits (ARC, CDX).
pub fn parse_date(value: &str) -> Option<OffsetDateTime> {
    if let Ok(date) = OffsetDateTime::parse(value, &Rfc3339) {
        return Some(date);
    }
    let digits = value.get(..14)?;
    PrimitiveDateTime::parse(
        digits,
        format_description!("[year][month][day][hour][minute][second]"),
    )
    .ok()
    .map(PrimitiveDateTime::assume_utc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_fields() {
        let all = vec![
            ("WARC-Target-URI".to_owned(), "<http://a/>".to_owned()),
            (
                "WARC-Date".to_owned(),
                "2014-01-03T03:03:21.123456Z".to_owned(),
            ),
            ("WARC-Concurrent-To".to_owned(), "<urn:a>".to_owned()),
            ("warc-concurrent-to".to_owned(), "<urn:b>".to_owned()),
        ];
        let f = Fields::of(all);
        assert_eq!(f.target_uri.as_deref(), Some("http://a/"));
        assert_eq!(f.date.unwrap().unix_timestamp(), 1_388_718_201);
        assert_eq!(f.concurrent_to.len(), 2);
        assert_eq!(f.get("WARC-DATE"), Some("2014-01-03T03:03:21.123456Z"));
        assert_eq!(
            parse_date("20140216050221").unwrap().unix_timestamp(),
            1_392_526_941
        );
        assert!(parse_date("2014").is_none());
    }
}

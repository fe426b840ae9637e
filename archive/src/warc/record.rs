//! WARC 1.1 record headers (§4–§6): field validation, `application/warc-fields` blocks and the
//! references the writer hands back.

use std::{fmt, io};

use serde::{Deserialize, Serialize};
use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};

/// The URI of the WARC 1.1 identical-payload-digest revisit profile (§6.7.2).
pub const IDENTICAL_PAYLOAD_DIGEST: &str =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";

/// The record types this writer emits (§6). Serialised as the `WARC-Type` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordType {
    /// Describes the records that follow; first in every file.
    Warcinfo,
    /// A harvested object without protocol information; payload = block.
    Resource,
    /// Describes another record (linked with `WARC-Refers-To`).
    Metadata,
    /// An abbreviated re-capture of an identical payload.
    Revisit,
}

impl RecordType {
    /// The `WARC-Type` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Warcinfo => "warcinfo",
            Self::Resource => "resource",
            Self::Metadata => "metadata",
            Self::Revisit => "revisit",
        }
    }
}

impl fmt::Display for RecordType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Compares with a `WARC-Type` value, as `http::Method` compares with `&str`.
impl PartialEq<&str> for RecordType {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Where a record landed, as the CDX(J) index needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordRef {
    /// The final file name (`….warc.gz`, without `.open`), as in `WARC-Filename`.
    pub file_name: String,
    /// Byte offset of the record's gzip member in the file.
    pub offset: u64,
    /// Compressed length of the member.
    pub length: u64,
    /// `WARC-Record-ID`, with its angle brackets.
    pub record_id: String,
    /// `WARC-Target-URI`, if the record has one.
    pub target_uri: Option<String>,
    /// `WARC-Date`.
    pub date: OffsetDateTime,
    /// `WARC-Payload-Digest` (`sha1:BASE32`); for records without payload, the block digest.
    pub payload_digest: String,
}

/// A new globally unique `WARC-Record-ID`: `<urn:uuid:…>` with a random (v4) UUID.
pub fn new_record_id() -> String {
    // Random bytes from the thread's CSPRNG (seeded once by the OS), not a system call each.
    let id = uuid::Builder::from_random_bytes(rand::random()).into_uuid();
    format!("<urn:uuid:{id}>")
}

/// `WARC-Date` form: UTC, whole seconds (`2016-09-19T17:20:24Z`).
pub fn warc_date(date: OffsetDateTime) -> String {
    let fmt = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z");
    date.to_offset(UtcOffset::UTC)
        .format(&fmt)
        .expect("a 4-digit year formats")
}

/// RFC 9110 `token` characters, the WARC field-name grammar (§4).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Checks one field: the name is a token and the value has no CR, LF or other control
/// character (folded lines are forbidden by the community recommendations).
pub fn validate_field(name: &str, value: &str) -> io::Result<()> {
    if !is_token(name) {
        return Err(invalid(format!("invalid WARC field name {name:?}")));
    }
    if has_control(value) {
        return Err(invalid(format!("control character in WARC field {name}")));
    }
    Ok(())
}

/// Whether `value` has a control character other than TAB (C0, DEL or C1), checked on its bytes:
/// C1 characters are U+0080–U+009F, `C2 80`–`C2 9F` in UTF-8.
fn has_control(value: &str) -> bool {
    let b = value.as_bytes();
    // Most values have no byte below 0x20, no DEL and no 0xC2: one pass the compiler vectorises.
    let suspect = b.iter().fold(false, |seen, &x| {
        seen | (x < 0x20) | (x == 0x7f) | (x == 0xC2)
    });
    suspect
        && (b.iter().any(|&x| (x < 0x20 && x != b'\t') || x == 0x7f)
            || b.windows(2)
                .any(|w| w[0] == 0xC2 && (0x80..=0x9F).contains(&w[1])))
}

/// Fields the writer sets itself; callers may not pass them as extra headers.
const RESERVED: &[&str] = &[
    "WARC-Type",
    "WARC-Record-ID",
    "WARC-Date",
    "WARC-Target-URI",
    "Content-Type",
    "Content-Length",
    "WARC-Block-Digest",
    "WARC-Payload-Digest",
    "WARC-Warcinfo-ID",
    "WARC-Filename",
    "WARC-Profile",
    "WARC-Refers-To",
    "WARC-Refers-To-Target-URI",
    "WARC-Refers-To-Date",
];

pub(crate) fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// The header section of one record, built field by field.
#[derive(Debug)]
pub(crate) struct Head {
    bytes: Vec<u8>,
}

impl Head {
    pub(crate) fn new(kind: RecordType, record_id: &str, date: OffsetDateTime) -> Self {
        let mut head = Self {
            bytes: Vec::with_capacity(512),
        };
        head.bytes.extend_from_slice(b"WARC/1.1\r\n");
        head.push("WARC-Type", kind.as_str());
        head.push("WARC-Record-ID", record_id);
        head.push("WARC-Date", &warc_date(date));
        head
    }

    /// Appends a field the writer produced itself; still validated, since values such as
    /// target URIs come from callers.
    pub(crate) fn field(&mut self, name: &str, value: &str) -> io::Result<()> {
        validate_field(name, value)?;
        self.push(name, value);
        Ok(())
    }

    /// Appends caller-supplied fields, rejecting the ones the writer owns and repeats
    /// (only `WARC-Concurrent-To` may repeat, §5.7).
    pub(crate) fn extra(&mut self, fields: &[(&str, &str)]) -> io::Result<()> {
        for (i, (name, value)) in fields.iter().enumerate() {
            if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(name)) {
                return Err(invalid(format!("WARC field {name} is set by the writer")));
            }
            let repeated = fields[..i]
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case(name));
            if repeated && !name.eq_ignore_ascii_case("WARC-Concurrent-To") {
                return Err(invalid(format!("WARC field {name} repeated")));
            }
            self.field(name, value)?;
        }
        Ok(())
    }

    /// Ends the header with `Content-Length`, the block digest and the blank line.
    pub(crate) fn finish(mut self, length: u64, block_digest: &str) -> Vec<u8> {
        self.push("WARC-Block-Digest", block_digest);
        self.push("Content-Length", &length.to_string());
        self.bytes.extend_from_slice(b"\r\n");
        self.bytes
    }

    fn push(&mut self, name: &str, value: &str) {
        self.bytes.extend_from_slice(name.as_bytes());
        self.bytes.extend_from_slice(b": ");
        self.bytes.extend_from_slice(value.as_bytes());
        self.bytes.extend_from_slice(b"\r\n");
    }
}

/// An `application/warc-fields` block (§4, the warcinfo and metadata content type).
///
/// ```
/// use modoai_archive::warc::WarcFields;
///
/// let mut fields = WarcFields::new();
/// fields.field("via", "http://example.org/oai?verb=GetRecord")?;
/// assert_eq!(fields.as_bytes(), b"via: http://example.org/oai?verb=GetRecord\r\n");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarcFields {
    bytes: Vec<u8>,
}

impl WarcFields {
    /// An empty block.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `name: value` CRLF after validating both.
    pub fn field(&mut self, name: &str, value: &str) -> io::Result<&mut Self> {
        validate_field(name, value)?;
        self.bytes.extend_from_slice(name.as_bytes());
        self.bytes.extend_from_slice(b": ");
        self.bytes.extend_from_slice(value.as_bytes());
        self.bytes.extend_from_slice(b"\r\n");
        Ok(self)
    }

    /// The block bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn date_is_utc_seconds() {
        let d = datetime!(2016-09-19 19:20:24.75 +02:00);
        assert_eq!(warc_date(d), "2016-09-19T17:20:24Z");
    }

    #[test]
    fn record_ids_are_unique_urns() {
        let (a, b) = (new_record_id(), new_record_id());
        assert!(
            a.starts_with("<urn:uuid:") && a.ends_with('>') && a.len() == 47,
            "{a}"
        );
        assert_ne!(a, b);
        let id = uuid::Uuid::parse_str(&a[10..46]).unwrap();
        assert_eq!(id.get_version_num(), 4, "{a}");
    }

    #[test]
    fn field_validation() {
        assert!(validate_field("X-Custom", "ok\tvalue ü").is_ok());
        for bad in ["a\rb", "a\nb", "\u{0}", "x\u{7f}", "x\u{85}y", "\u{9f}"] {
            assert!(validate_field("X-Custom", bad).is_err(), "{bad:?}");
        }
        assert!(validate_field("X-Custom", "\u{a0}\u{100}\u{2028}é").is_ok());
        assert!(validate_field("Bad Name", "v").is_err());
        assert!(validate_field("", "v").is_err());
        assert!(validate_field("Bad:", "v").is_err());
        assert!(validate_field("X", "a\r\nWARC-Type: evil").is_err());
        assert!(validate_field("X", "a\nb").is_err());
    }

    #[test]
    fn extra_rejects_reserved_and_repeats() {
        let head = || Head::new(RecordType::Resource, "<urn:x>", OffsetDateTime::UNIX_EPOCH);
        assert!(head().extra(&[("content-length", "1")]).is_err());
        assert!(head().extra(&[("X-A", "1"), ("x-a", "2")]).is_err());
        let two = [
            ("WARC-Concurrent-To", "<urn:a>"),
            ("WARC-Concurrent-To", "<urn:b>"),
        ];
        assert!(head().extra(&two).is_ok());
    }

    #[test]
    fn head_layout() {
        let mut head = Head::new(RecordType::Metadata, "<urn:x>", OffsetDateTime::UNIX_EPOCH);
        head.field("Content-Type", "application/warc-fields")
            .unwrap();
        let bytes = head.finish(3, "sha1:AAAA");
        let want: &[u8] = b"WARC/1.1\r\nWARC-Type: metadata\r\nWARC-Record-ID: <urn:x>\r\n\
            WARC-Date: 1970-01-01T00:00:00Z\r\nContent-Type: application/warc-fields\r\n\
            WARC-Block-Digest: sha1:AAAA\r\nContent-Length: 3\r\n\r\n";
        assert_eq!(bytes, want);
    }
}

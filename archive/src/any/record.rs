//! A record as read in sequence: where it is, what it is, its typed header fields, the parsed
//! HTTP head, the first bytes of its block, and what its digests said.

use serde::{Deserialize, Serialize};

use super::body::{read_body, Body, BodyLimits};
use super::digest::DigestCheck;
use super::fields::Fields;
use super::http::HttpHead;
use super::kind::RecordKind;
use super::location::Location;
use super::warcinfo::Warcinfo;

/// The container format of a record.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// WARC, with the version of its first line (`1.0`, `1.1`).
    Warc(String),
    /// ARC v1.
    Arc,
}

/// Why a record's block is not whole.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Truncation {
    /// The producer says so in `WARC-Truncated` (`length`, `time`, `disconnect`,
    /// `unspecified`): the record is valid, its payload cut.
    Declared(String),
    /// The file, or the record's gzip member, ends (or is damaged) before `Content-Length`
    /// bytes of block.
    Cut,
}

/// One record, as [`Records`](super::Records) found it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Record {
    /// Where it is: what [`open`](super::open) reads again.
    pub location: Location,
    /// WARC (and its version) or ARC.
    pub format: Format,
    /// Its type (and a revisit's profile).
    pub kind: RecordKind,
    /// Its header fields, the usual ones typed (an ARC record's URL, date, IP and type too).
    pub fields: Fields,
    /// `Content-Length`: the block's length as declared.
    pub block_len: u64,
    /// The first bytes of the block, up to [`ReadOptions::keep`](super::ReadOptions::keep)
    /// (and at least the whole HTTP head); all of it when [`Record::is_whole`].
    pub block: Vec<u8>,
    /// The HTTP response's status line and headers, for `response` and `revisit` records (and
    /// ARC records) that hold one.
    pub http: Option<HttpHead>,
    /// The check of `WARC-Block-Digest` over the block.
    pub block_digest: DigestCheck,
    /// The check of `WARC-Payload-Digest` over the payload (as stored, or without chunked
    /// transfer-coding).
    pub payload_digest: DigestCheck,
    /// The SHA-1 of the payload as stored (`sha1:BASE32`), computed while reading; `None` for
    /// records without a payload (warcinfo, metadata, revisit) or cut short.
    pub payload_sha1: Option<String>,
    /// Why the block is not whole, if it is not.
    pub truncated: Option<Truncation>,
    /// A warcinfo record's fields.
    pub warcinfo: Option<Warcinfo>,
    /// Whether the block was followed by the CRLF CRLF that ends a WARC record (WARC 1.1 §4);
    /// always true for ARC records.
    pub trailer: bool,
}

impl Record {
    /// Whether [`Record::block`] holds the whole block.
    pub fn is_whole(&self) -> bool {
        self.block.len() as u64 == self.block_len && self.truncated != Some(Truncation::Cut)
    }

    /// Where the payload starts in the block: after the HTTP head, or 0.
    pub fn payload_offset(&self) -> u64 {
        self.http.as_ref().map_or(0, |h| h.body_offset)
    }

    /// The payload's bytes held in [`Record::block`] (as stored: transfer- and content-coded).
    pub fn payload(&self) -> &[u8] {
        let at = (self.payload_offset() as usize).min(self.block.len());
        &self.block[at..]
    }

    /// The payload's length as declared.
    pub fn payload_len(&self) -> u64 {
        self.block_len.saturating_sub(self.payload_offset())
    }

    /// The MIME type of what was captured, as CDXJ indexes give it: the HTTP `Content-Type`
    /// for responses, `warc/revisit` for revisits, the record's `Content-Type` otherwise; no
    /// parameters, lower case.
    pub fn mime(&self) -> Option<String> {
        if matches!(self.kind, RecordKind::Revisit(_)) {
            return Some("warc/revisit".to_owned());
        }
        if let Some(http) = &self.http {
            return http.mime();
        }
        let value = self.fields.content_type.as_deref()?;
        let mime = value.split(';').next().unwrap_or(value).trim();
        (!mime.is_empty()).then(|| mime.to_ascii_lowercase())
    }

    /// The body held in [`Record::block`] with transfer- and content-codings removed, for
    /// text extraction; the payload itself for records without an HTTP head. When the block
    /// is not whole, a prefix (for the whole body, [`open`](super::open) the record).
    pub fn body(&self, limits: &BodyLimits) -> Body {
        match &self.http {
            Some(head) => read_body(self.payload(), head, limits),
            None => Body {
                bytes: self.payload()[..self.payload().len().min(limits.max_size as usize)]
                    .to_vec(),
                error: None,
            },
        }
    }
}

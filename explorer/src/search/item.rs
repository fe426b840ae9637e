//! One capture as the index stores it: its fields ([`Item`]) and where its records are
//! ([`Stored`]).

use serde::Serialize;
use tantivy::schema::{Field, Value};
use tantivy::TantivyDocument;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use modoai_archive::any::Location;
use modoai_archive::facts::PluginFacts;

use crate::capture::{tool_facts, CaptureKind, JhoveStatus, RecordAt};
use crate::index::Fields;

/// A capture in results.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Item {
    /// Capture id.
    pub id: String,
    /// Captured URL.
    pub url: String,
    /// Title.
    pub title: String,
    /// Capture time, RFC 3339.
    pub time: String,
    /// Capture time, 14 digits (the memento's).
    pub timestamp: String,
    /// The file's OAI datestamp.
    pub datestamp: String,
    /// MIME type.
    pub mime: String,
    /// Payload bytes.
    pub size: u64,
    /// Payload SHA-1, Base32.
    pub sha1: String,
    /// Host.
    pub host: String,
    /// Archive name.
    pub archive: String,
    /// Harvest name.
    pub harvest: String,
    /// OAI-PMH endpoint.
    pub endpoint: String,
    /// OAI identifier.
    pub identifier: String,
    /// OAI sets.
    pub sets: Vec<String>,
    /// Resource or revisit.
    pub kind: CaptureKind,
    /// PWID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pwid: Option<String>,
    /// Language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// PRONOM PUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub puid: Option<String>,
    /// PRONOM format name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// JHOVE verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jhove: Option<JhoveStatus>,
    /// EXIF capture date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exif_date: Option<String>,
    /// Camera.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub camera: Option<String>,
    /// GPS position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gps: Option<String>,
    /// Where the findings came from (the CRATE, or the explorer with its tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Highlighted text around the matching words (`<b>…</b>`, the rest HTML-escaped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    /// The score (relevance sort only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Captures of the same bytes in scope (with `group=sha1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copies: Option<u64>,
    /// HTTP status class of a foreign capture (`2xx` … `5xx`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Where a redirect points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redirect: Option<String>,
    /// What is wrong with the capture (`digest-mismatch`, `unresolved-revisit`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

/// Where the capture's records are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    /// The payload record.
    pub record: RecordAt,
    /// The CRATE record (the item's metadata XML), if any.
    pub crate_at: Option<RecordAt>,
    /// Why text extraction failed.
    pub problem: Option<String>,
    /// The stored excerpt of the text.
    pub excerpt: String,
    /// A foreign capture's record, as the reader located it.
    pub location: Option<Location>,
    /// Where a foreign capture's payload is (its record, or a revisit's original).
    pub payload_at: Option<Location>,
    /// The explorer's own tool results (`index --tools`) for a capture without a CRATE.
    pub tools: Vec<PluginFacts>,
}

fn text(doc: &TantivyDocument, f: Field) -> Option<String> {
    doc.get_first(f).and_then(|v| v.as_str()).map(str::to_owned)
}

/// A stored location (JSON of the reader's `Location`).
fn located(doc: &TantivyDocument, f: Field) -> Option<Location> {
    serde_json::from_str(&text(doc, f)?).ok()
}

fn num(doc: &TantivyDocument, f: Field) -> u64 {
    doc.get_first(f)
        .and_then(|v| v.as_u64())
        .unwrap_or_default()
}

impl Item {
    /// The item of a stored document.
    pub fn of(doc: &TantivyDocument, f: &Fields) -> Item {
        let s = |field| text(doc, field).unwrap_or_default();
        let time = doc
            .get_first(f.time)
            .and_then(|v| v.as_datetime())
            .and_then(|d| OffsetDateTime::from_unix_timestamp(d.into_timestamp_secs()).ok())
            .unwrap_or(OffsetDateTime::UNIX_EPOCH);
        Item {
            id: s(f.id),
            url: s(f.url),
            title: s(f.title),
            time: time.format(&Rfc3339).unwrap_or_default(),
            timestamp: modoai_archive::archive::timestamp14(time),
            datestamp: s(f.datestamp),
            mime: s(f.mime),
            size: num(doc, f.size),
            sha1: s(f.sha1),
            host: s(f.host),
            archive: s(f.archive),
            harvest: s(f.harvest),
            endpoint: s(f.endpoint),
            identifier: s(f.identifier),
            sets: doc
                .get_all(f.set)
                .filter_map(|v| v.as_str())
                .map(str::to_owned)
                .collect(),
            kind: text(doc, f.kind)
                .and_then(|k| k.parse().ok())
                .unwrap_or_default(),
            pwid: text(doc, f.pwid),
            lang: text(doc, f.lang),
            puid: text(doc, f.puid),
            format: text(doc, f.format),
            jhove: text(doc, f.jhove).and_then(|j| j.parse().ok()),
            exif_date: text(doc, f.exif_date),
            camera: text(doc, f.camera),
            gps: text(doc, f.gps),
            source: text(doc, f.source),
            snippet: None,
            score: None,
            copies: None,
            status: text(doc, f.status),
            redirect: text(doc, f.redirect),
            flags: doc
                .get_all(f.flag)
                .filter_map(|v| v.as_str())
                .map(str::to_owned)
                .collect(),
        }
    }
}

impl Stored {
    /// The explorer's own tool results as a CRATE's facts read back (its plugins alone).
    pub fn tool_facts(&self) -> modoai_archive::facts::Facts {
        modoai_archive::facts::Facts {
            plugins: self.tools.clone(),
            ..Default::default()
        }
    }

    /// The record locations of a stored document.
    pub fn of(doc: &TantivyDocument, f: &Fields) -> Stored {
        Stored {
            record: RecordAt {
                file: text(doc, f.file).unwrap_or_default(),
                offset: num(doc, f.offset),
                length: num(doc, f.length),
            },
            crate_at: text(doc, f.crate_at).and_then(|at| at.parse().ok()),
            problem: text(doc, f.problem),
            excerpt: text(doc, f.excerpt).unwrap_or_default(),
            location: located(doc, f.location),
            payload_at: located(doc, f.payload_at),
            tools: text(doc, f.tools)
                .map(|json| tool_facts::decode(&json))
                .unwrap_or_default(),
        }
    }
}

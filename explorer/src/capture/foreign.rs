//! Captures of foreign inputs (WARC, ARC and WACZ files of any crawler): which records are
//! captures, and what each one adds to its plan (where its payload is, its HTTP status, where a
//! redirect points, whether its digest matched). What is read and skipped is in
//! `docs/explorer.md`.

use modoai_archive::any::{Location, Record, RecordKind, RevisitProfile};
use modoai_archive::pwid::Pwid;
use modoai_archive::surt::surt;

use super::plan::host_and_path;
use super::{CaptureKind, Planned, RecordAt};

/// What a capture of a foreign input adds to its plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Foreign {
    /// Where its record is.
    pub location: Location,
    /// Where its payload is: the record itself, or a revisit's original; `None` for a revisit
    /// whose original is nowhere to be found.
    pub payload: Option<Location>,
    /// The archived HTTP status (none for a `resource`).
    pub status: Option<u16>,
    /// Where a redirect (3xx with `Location`) points.
    pub redirect: Option<String>,
    /// Whether the record's `WARC-Payload-Digest` did not match its payload.
    pub digest_mismatch: bool,
    /// `WARC-Record-ID`.
    pub record_id: Option<String>,
    /// A CRATE `metadata` record tied to it (`WARC-Concurrent-To` or `WARC-Refers-To` naming
    /// its record id): where its findings come from.
    pub metadata: Option<Location>,
}

impl Foreign {
    /// Whether it is a revisit whose original was not found.
    pub fn is_unresolved(&self) -> bool {
        self.payload.is_none()
    }
}

/// How a revisit names its original.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RevisitOf {
    /// `WARC-Refers-To` (a record id).
    pub record_id: Option<String>,
    /// `WARC-Refers-To-Target-URI` and `-Date`, else the revisit's own URL (and no time).
    pub url: String,
    /// `WARC-Refers-To-Date`, as Unix seconds.
    pub time: Option<i64>,
    /// The payload digest, `sha1:BASE32` (any URL has it: URL-agnostic revisits).
    pub sha1: Option<String>,
    /// Server-not-modified: the previous capture of the URL.
    pub not_modified: bool,
}

/// The capture a record is, without its payload's whereabouts for a revisit (see
/// [`revisit_of`]) and its CRATE (a `metadata` record the index build ties to it); `None` for
/// records that are no captures (`request`, `warcinfo`, `metadata`, `conversion`, …) and
/// captures without URL or date.
pub fn plan_record(record: &Record, collection: &str, harvest: &str) -> Option<Planned> {
    let kind = match record.kind {
        RecordKind::Response => CaptureKind::Response,
        RecordKind::Resource => CaptureKind::Resource,
        RecordKind::Revisit(_) => CaptureKind::Revisit,
        _ => return None,
    };
    let url = record.fields.target_uri.clone()?;
    let time = record.fields.date?;
    let (host, path) = host_and_path(&url);
    let location = record.location.clone();
    let sha1 = match kind {
        CaptureKind::Revisit => {
            (record.fields.payload_digest.as_ref()).and_then(|d| d.sha1_base32())
        }
        _ => record.payload_sha1.clone(),
    }
    .unwrap_or_default();
    let http = record.http.as_ref();
    let foreign = Foreign {
        payload: (kind != CaptureKind::Revisit).then(|| location.clone()),
        status: http.map(|h| h.status),
        redirect: http.and_then(|h| h.location()).map(str::to_owned),
        digest_mismatch: record.payload_digest.is_failed(),
        record_id: record.fields.record_id.clone(),
        metadata: None,
        location,
    };
    Some(Planned {
        id: super::capture_id(
            &foreign.location.source.to_string(),
            foreign.location.offset + skip(&foreign.location),
        ),
        archive: collection.to_owned(),
        surt: surt(&url).unwrap_or_else(|_| url.clone()),
        host,
        path,
        time,
        datestamp: String::new(),
        mime: record.mime().unwrap_or_default(),
        sets: Vec::new(),
        sha1: sha1.strip_prefix("sha1:").unwrap_or(&sha1).to_owned(),
        endpoint: String::new(),
        identifier: foreign.record_id.clone().unwrap_or_default(),
        harvest: harvest.to_owned(),
        // A derived name that is no PWID archive id (a folder with spaces) gives no PWID.
        pwid: Pwid::part(collection, time, &url)
            .ok()
            .map(|p| p.to_string()),
        kind,
        record: RecordAt {
            file: foreign.location.source.name(),
            offset: foreign.location.offset,
            length: foreign.location.length,
        },
        crate_record: None,
        url,
        foreign: Some(foreign),
    })
}

/// Where a record starts inside a gzip stream (0 otherwise): two records of one stream share
/// their offset.
fn skip(location: &Location) -> u64 {
    match location.framing {
        modoai_archive::any::Framing::GzipStream { skip } => skip,
        _ => 0,
    }
}

/// How the revisit `record` names its original; `None` for other records.
pub fn revisit_of(record: &Record) -> Option<RevisitOf> {
    let RecordKind::Revisit(profile) = &record.kind else {
        return None;
    };
    let f = &record.fields;
    Some(RevisitOf {
        record_id: f.refers_to.clone(),
        url: f
            .refers_to_target_uri
            .clone()
            .or_else(|| f.target_uri.clone())
            .unwrap_or_default(),
        time: f.refers_to_date.map(|d| d.unix_timestamp()),
        sha1: f.payload_digest.as_ref().and_then(|d| d.sha1_base32()),
        not_modified: *profile == RevisitProfile::ServerNotModified,
    })
}

//! Listing the captures of ledger entries, without reading any payload.

use std::collections::HashMap;
use std::io::Read;

use modoai_archive::archive::{parts_of, Entry, Reader};
use modoai_archive::surt::surt;
use modoai_archive::warc::{read_record, RecordType};
use sha1::{Digest, Sha1};
use time::macros::format_description;
use time::{OffsetDateTime, PrimitiveDateTime};

use super::{CaptureKind, Foreign, RecordAt};

/// A capture as the ledger describes it.
#[derive(Clone, Debug)]
pub struct Planned {
    /// Its id: stable, unique across archives ([`capture_id`]).
    pub id: String,
    /// The archive's name (its folder's name).
    pub archive: String,
    /// The captured URL (`WARC-Target-URI`).
    pub url: String,
    /// Its SURT key, as the CDXJ index has it.
    pub surt: String,
    /// Its host, lower case (empty for a URI without one).
    pub host: String,
    /// Its path.
    pub path: String,
    /// The capture time (`WARC-Date`).
    pub time: OffsetDateTime,
    /// The OAI datestamp of the file (its modification time at the endpoint).
    pub datestamp: String,
    /// The record's MIME type (`warc/revisit` for a revisit until the payload is read).
    pub mime: String,
    /// The OAI setSpecs of the item (`mime:image:jpeg`, …).
    pub sets: Vec<String>,
    /// The payload's SHA-1, Base32 (`WARC-Payload-Digest` without `sha1:`).
    pub sha1: String,
    /// The OAI-PMH endpoint harvested.
    pub endpoint: String,
    /// The OAI identifier of the item.
    pub identifier: String,
    /// The harvest's name (warcinfo `isPartOf`).
    pub harvest: String,
    /// The capture's PWID (`part` coverage), for OAI items.
    pub pwid: Option<String>,
    /// Resource or revisit.
    pub kind: CaptureKind,
    /// The payload record.
    pub record: RecordAt,
    /// The item's metadata XML record (the CRATE or DIDL without Base64), if there is one.
    pub crate_record: Option<RecordAt>,
    /// For a capture of a foreign input: where its record and payload are, its HTTP status.
    pub foreign: Option<Foreign>,
}

/// A capture id: the first 16 hex digits of the SHA-1 of `file:offset`. WARC file names are
/// unique (they carry their creation time to the millisecond, a serial and the host), so the
/// id is stable and tells captures of different archives apart.
pub fn capture_id(file: &str, offset: u64) -> String {
    let digest = Sha1::digest(format!("{file}:{offset}").as_bytes());
    hex::encode(&digest[..8])
}

/// Lists captures of one archive's ledger entries; remembers each WARC file's harvest name.
#[derive(Debug)]
pub struct Planner<'a> {
    reader: &'a Reader,
    archive: String,
    harvests: HashMap<String, String>,
}

impl<'a> Planner<'a> {
    /// A planner for `reader`'s archive, named `archive`.
    pub fn new(reader: &'a Reader, archive: &str) -> Self {
        Planner {
            reader,
            archive: archive.to_owned(),
            harvests: HashMap::new(),
        }
    }

    /// The captures of one entry: its `resource` and `revisit` records that hold a file (a
    /// deleted item has none).
    pub fn plan(&mut self, entry: &Entry) -> Vec<Planned> {
        let archive_id = self.reader.archive_id().unwrap_or_default().to_owned();
        let parts = parts_of(entry, &archive_id);
        let crate_record = entry
            .records
            .iter()
            .find(|r| r.kind == RecordType::Metadata && r.mime == "application/xml")
            .map(RecordAt::of);
        let mut out = Vec::new();
        for r in &entry.records {
            let kind = match r.kind {
                RecordType::Resource => CaptureKind::Resource,
                RecordType::Revisit => CaptureKind::Revisit,
                _ => continue,
            };
            let Some(time) = parse14(&r.date) else {
                continue;
            };
            let pwid = parts
                .iter()
                .find(|p| p.record.id == r.id)
                .map(|p| p.pwid.to_string());
            let (host, path) = host_and_path(&r.uri);
            out.push(Planned {
                id: capture_id(&r.file, r.offset),
                archive: self.archive.clone(),
                url: r.uri.clone(),
                surt: surt(&r.uri).unwrap_or_else(|_| r.uri.clone()),
                host,
                path,
                time,
                datestamp: entry.datestamp.clone(),
                mime: r.mime.clone(),
                sets: entry.sets.clone(),
                sha1: r
                    .digest
                    .strip_prefix("sha1:")
                    .unwrap_or(&r.digest)
                    .to_owned(),
                endpoint: entry.endpoint.clone(),
                identifier: entry.identifier.clone(),
                harvest: self.harvest(&r.file),
                pwid,
                kind,
                record: RecordAt::of(r),
                crate_record: crate_record.clone(),
                foreign: None,
            });
        }
        out
    }

    /// The harvest name of a WARC file: `isPartOf` of its warcinfo record (the first record).
    fn harvest(&mut self, file: &str) -> String {
        if let Some(name) = self.harvests.get(file) {
            return name.clone();
        }
        let name = self.read_harvest(file).unwrap_or_default();
        self.harvests.insert(file.to_owned(), name.clone());
        name
    }

    fn read_harvest(&self, file: &str) -> Option<String> {
        let found = self.reader.warc_file(file).ok()??;
        let mut record = read_record(&found.path, 0).ok()?;
        if record.header("WARC-Type") != Some("warcinfo") {
            return None;
        }
        let mut fields = String::new();
        record
            .block
            .by_ref()
            .take(64 * 1024)
            .read_to_string(&mut fields)
            .ok()?;
        fields
            .lines()
            .find_map(|l| l.strip_prefix("isPartOf:"))
            .map(|v| v.trim().to_owned())
    }
}

/// The host (lower case) and path of a URL; for a URI that is no URL, no host and the URI.
pub(crate) fn host_and_path(uri: &str) -> (String, String) {
    match url::Url::parse(uri) {
        Ok(u) if u.has_host() => (
            u.host_str().unwrap_or_default().to_ascii_lowercase(),
            u.path().to_owned(),
        ),
        _ => (String::new(), uri.to_owned()),
    }
}

/// A 14-digit timestamp as a UTC time.
pub(crate) fn parse14(digits: &str) -> Option<OffsetDateTime> {
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
    fn ids_are_stable_and_short() {
        let a = capture_id("m-20240101000000000-00000-h.warc.gz", 1234);
        assert_eq!(a.len(), 16);
        assert_eq!(a, capture_id("m-20240101000000000-00000-h.warc.gz", 1234));
        assert_ne!(a, capture_id("m-20240101000000000-00000-h.warc.gz", 1235));
    }

    #[test]
    fn hosts_and_paths() {
        assert_eq!(
            host_and_path("http://Example.ORG:8080/a/b.pdf?x=1"),
            ("example.org".into(), "/a/b.pdf".into())
        );
        assert_eq!(
            host_and_path("urn:oai:x:1"),
            (String::new(), "urn:oai:x:1".into())
        );
        assert_eq!(
            parse14("20240501120000").unwrap().unix_timestamp(),
            1_714_564_800
        );
        assert!(parse14("2024").is_none());
    }
}

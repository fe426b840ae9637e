//! Deletions as history: which file a deletion removed, and when.
//!
//! A deleted record carries no file, only its identifier and the datestamp of the deletion, so
//! its file's URL comes from the item's last capture before it, in ledger order. The same
//! deletion harvested again (a full re-harvest lists it again) is one event, not two; a file
//! that comes back after a deletion is a new capture, and a later deletion of it a new event.

use std::collections::HashMap;

use md5::{Digest, Md5};

use super::Entry;
use crate::warc::RecordType;

/// An item of one list (endpoint, metadata format, identifier), as the MD5 of the three: 16 bytes
/// instead of three strings, for an archive's every item. Two items would share a key only by an
/// MD5 collision of such names, which no harvested list produces by chance.
type Key = [u8; 16];

/// A deletion, as the harvest that saw it recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deletion {
    /// The endpoint's base URL.
    pub endpoint: String,
    /// The metadata format.
    pub prefix: String,
    /// The OAI identifier.
    pub identifier: String,
    /// The deletion's datestamp, as the endpoint sent it.
    pub datestamp: String,
    /// When the deletion was harvested (14 digits, the `WARC-Date` of its record).
    pub harvested: String,
    /// The URLs of the files the item held at its last capture before the deletion (empty when
    /// the archive never captured it).
    pub urls: Vec<String>,
    /// Where that capture is: the ledger position ([`super::Entries::position`]) after its
    /// entry.
    pub last_capture: Option<u64>,
}

/// The last known state of one item (40 bytes, and its URLs).
#[derive(Debug, Default)]
struct Last {
    /// Ledger position after its last capture, and that capture's file URLs, one per line (a
    /// URL has no line break).
    capture: Option<(u64, Box<str>)>,
    /// The datestamp of a deletion seen after that capture.
    deleted: Option<Box<str>>,
}

/// Follows the ledger entry by entry and tells each new deletion (memory: one small record per
/// item of the archive, about 150 bytes with its file's URL: 150 MB for a million items).
#[derive(Debug, Default)]
pub struct Timeline {
    last: HashMap<Key, Last>,
}

impl Timeline {
    /// An empty timeline.
    pub fn new() -> Self {
        Timeline::default()
    }

    /// Sees the next complete entry, whose ledger position ([`super::Entries::position`]) after
    /// it is `at`; returns the deletion it records, unless it repeats the one seen last for the
    /// item.
    pub fn see(&mut self, at: u64, entry: &Entry) -> Option<Deletion> {
        if !entry.kind.is_item() {
            return None;
        }
        let last = self.last.entry(key_of(entry)).or_default();
        if !entry.deleted {
            *last = Last {
                capture: Some((at, file_urls(entry))),
                deleted: None,
            };
            return None;
        }
        if last.deleted.as_deref() == Some(entry.datestamp.as_str()) {
            return None;
        }
        last.deleted = Some(entry.datestamp.as_str().into());
        let (last_capture, urls) = match &last.capture {
            Some((pos, urls)) => (Some(*pos), urls.lines().map(str::to_owned).collect()),
            None => (None, Vec::new()),
        };
        Some(Deletion {
            endpoint: entry.endpoint.clone(),
            prefix: entry.prefix.clone(),
            identifier: entry.identifier.clone(),
            datestamp: entry.datestamp.clone(),
            harvested: entry
                .records
                .first()
                .map(|r| r.date.clone())
                .unwrap_or_default(),
            urls,
            last_capture,
        })
    }
}

/// The key of `entry`'s item.
fn key_of(entry: &Entry) -> Key {
    names_key(&[
        entry.endpoint.as_bytes(),
        entry.prefix.as_bytes(),
        entry.identifier.as_bytes(),
    ])
}

/// The MD5 of `parts`, each prefixed with its length: a 16-byte key for a tuple of names, kept
/// instead of the names, where names that run together alike (`ab`+`c`, `a`+`bc`) stay apart.
///
/// ```
/// use modoai_archive::archive::names_key;
/// assert_ne!(names_key(&[b"ab", b"c"]), names_key(&[b"a", b"bc"]));
/// ```
pub fn names_key(parts: &[&[u8]]) -> [u8; 16] {
    let mut md5 = Md5::new();
    for part in parts {
        md5.update((part.len() as u64).to_le_bytes());
        md5.update(part);
    }
    md5.finalize().into()
}

/// The URLs of an item's files (its `resource` and `revisit` records), one per line.
fn file_urls(entry: &Entry) -> Box<str> {
    let mut urls = String::new();
    for r in &entry.records {
        if matches!(r.kind, RecordType::Resource | RecordType::Revisit) {
            if !urls.is_empty() {
                urls.push('\n');
            }
            urls.push_str(&r.uri);
        }
    }
    urls.into_boxed_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::{EntryKind, Written};

    fn entry(datestamp: &str, deleted: bool) -> Entry {
        let record = |kind, uri: &str| Written {
            kind,
            file: "a.warc.gz".into(),
            offset: 0,
            length: 1,
            id: "<urn:uuid:x>".into(),
            uri: uri.into(),
            mime: "text/plain".into(),
            digest: "sha1:X".into(),
            date: "20260101000000".into(),
            indexed: true,
        };
        let records = match deleted {
            true => vec![record(RecordType::Metadata, "http://s/oai?verb=GetRecord")],
            false => vec![
                record(RecordType::Resource, "http://s/a.txt"),
                record(RecordType::Metadata, "http://s/oai?verb=GetRecord"),
            ],
        };
        Entry {
            endpoint: "http://s/oai".into(),
            prefix: "oai_dc".into(),
            identifier: "http://s/a.txt".into(),
            datestamp: datestamp.into(),
            deleted,
            sets: Vec::new(),
            harvested: "2026-01-01T00:00:00Z".into(),
            bytes: 0,
            fixity_errors: Vec::new(),
            records,
            kind: EntryKind::Item,
        }
    }

    #[test]
    fn a_deletion_names_the_last_capture_and_counts_once_until_the_file_comes_back() {
        let mut t = Timeline::new();
        assert_eq!(t.see(10, &entry("2026-01-01T00:00:00Z", false)), None);
        let d = t.see(20, &entry("2026-02-01T00:00:00Z", true)).unwrap();
        assert_eq!(
            (d.urls, d.last_capture),
            (vec!["http://s/a.txt".to_owned()], Some(10))
        );
        // Harvested again: the same deletion.
        assert_eq!(t.see(30, &entry("2026-02-01T00:00:00Z", true)), None);
        // Back, then deleted again: a new deletion of the new capture.
        assert_eq!(t.see(40, &entry("2026-03-01T00:00:00Z", false)), None);
        let d = t.see(50, &entry("2026-04-01T00:00:00Z", true)).unwrap();
        assert_eq!(
            (d.datestamp.as_str(), d.last_capture),
            ("2026-04-01T00:00:00Z", Some(40))
        );
    }

    #[test]
    fn items_whose_names_run_together_alike_are_told_apart() {
        let mut t = Timeline::new();
        let mut a = entry("2026-01-01T00:00:00Z", false);
        (a.prefix, a.identifier) = ("oai_dc".into(), "x".into());
        let mut b = a.clone();
        (b.prefix, b.identifier) = ("oai_d".into(), "cx".into());
        t.see(10, &a);
        let mut gone = b.clone();
        (gone.deleted, gone.records) = (true, Vec::new());
        let d = t.see(20, &gone).unwrap();
        assert_eq!(
            d.last_capture, None,
            "b was never captured: a is another item"
        );
        assert_eq!(t.see(30, &b), None);
        let d = t.see(40, &gone).unwrap();
        assert_eq!(
            (d.urls, d.last_capture),
            (vec!["http://s/a.txt".to_owned()], Some(30))
        );
    }

    #[test]
    fn an_item_deleted_before_any_capture_has_no_url() {
        let d = Timeline::new()
            .see(5, &entry("2026-02-01T00:00:00Z", true))
            .unwrap();
        assert_eq!((d.urls.len(), d.last_capture), (0, None));
    }
}

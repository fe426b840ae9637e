//! `metadata` records of a foreign collection tied to their captures: a record whose
//! `WARC-Concurrent-To` or `WARC-Refers-To` names a capture's `WARC-Record-ID` describes it
//! (WARC 1.1 §5.7, §5.8). A CRATE (the `oai_crate` XML modoai's harvester stores) gives the
//! capture its findings; any other (a crawler's outlinks, Heritrix's `via`/`hopsFromSeed`) is
//! kept in its file and counted, nothing more. The record may come before or after its capture.

use std::collections::HashMap;

use memchr::memmem;
use modoai_archive::any::{Location, Record, RecordKind};
use modoai_protocol::ns;

use crate::capture::Planned;

/// CRATEs held for a capture not read yet at most (memory stays bounded on a crawl whose
/// metadata names records of other files).
const HELD: usize = 100_000;

/// What the metadata records of a run came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MetadataCounts {
    /// CRATEs tied to their captures.
    pub crates: u64,
    /// Other metadata records (kept in their files, counted).
    pub other: u64,
    /// CRATEs whose capture was not found in what this run read.
    pub untied: u64,
}

/// Ties the metadata records of a run's files to their captures.
#[derive(Debug, Default)]
pub(super) struct Ties {
    /// CRATEs read before their capture, by the record id they name.
    held: HashMap<String, Location>,
    pub(super) counts: MetadataCounts,
}

impl Ties {
    /// Takes a `metadata` record: a CRATE naming a capture of `batch` (the captures read and
    /// not yet sent) is tied to it, one naming none is held for a capture read later. False
    /// for other records.
    pub(super) fn see(&mut self, record: &Record, batch: &mut [Planned]) -> bool {
        if record.kind != RecordKind::Metadata {
            return false;
        }
        if !is_crate(record) {
            self.counts.other += 1;
            return true;
        }
        let f = &record.fields;
        let named: Vec<&String> = f.refers_to.iter().chain(&f.concurrent_to).collect();
        let found = batch.iter_mut().rev().find_map(|p| {
            let foreign = p.foreign.as_mut()?;
            let id = foreign.record_id.as_ref()?;
            named.contains(&id).then_some(foreign)
        });
        match found {
            Some(foreign) => {
                foreign.metadata = Some(record.location.clone());
                self.counts.crates += 1;
            }
            None if self.held.len() < HELD => {
                for id in named {
                    self.held.insert(id.clone(), record.location.clone());
                }
                if f.refers_to.is_none() && f.concurrent_to.is_empty() {
                    self.counts.untied += 1;
                }
            }
            None => self.counts.untied += 1,
        }
        true
    }

    /// Ties a CRATE read before `planned` to it.
    pub(super) fn tie(&mut self, planned: &mut Planned) {
        let Some(foreign) = planned.foreign.as_mut() else {
            return;
        };
        let held = foreign
            .record_id
            .as_ref()
            .and_then(|id| self.held.remove(id));
        if let Some(at) = held {
            // The same record held under its other names.
            self.held.retain(|_, l| *l != at);
            foreign.metadata = Some(at);
            self.counts.crates += 1;
        }
    }

    /// The counts, the CRATEs still held counted as untied.
    pub(super) fn finish(mut self) -> MetadataCounts {
        let mut places: Vec<&Location> = self.held.values().collect();
        places.sort_by_key(|l| (l.source.to_string(), l.offset));
        places.dedup();
        self.counts.untied += places.len() as u64;
        self.counts
    }
}

/// Whether a metadata record holds a CRATE: XML in the CRATE's namespace.
fn is_crate(record: &Record) -> bool {
    memmem::find(&record.block, ns::CRATE.as_bytes()).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::plan_record;
    use modoai_archive::any::{Found, ReadOptions, Records, Source};

    /// A WARC 1.1 record of `kind` with `fields` and `block`.
    fn record(kind: &str, id: &str, fields: &str, block: &str) -> String {
        format!(
            "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: {id}\r\nWARC-Date: \
             2026-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.org/{kind}\r\n{fields}\
             Content-Length: {}\r\n\r\n{block}\r\n\r\n",
            block.len()
        )
    }

    fn response(id: &str) -> String {
        record(
            "response",
            id,
            "Content-Type: application/http; msgtype=response\r\n",
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello",
        )
    }

    #[test]
    fn crates_are_tied_before_or_after_their_capture_and_other_metadata_is_counted() {
        let crate_xml = format!("<crate:plugin xmlns:crate=\"{}\"/>", ns::CRATE);
        let warc = [
            response("<urn:a>"),
            record(
                "metadata",
                "<urn:m1>",
                "WARC-Refers-To: <urn:a>\r\n",
                &crate_xml,
            ),
            record(
                "metadata",
                "<urn:m2>",
                "WARC-Concurrent-To: <urn:a>\r\n",
                "outlink: x\r\n",
            ),
            record(
                "metadata",
                "<urn:m3>",
                "WARC-Concurrent-To: <urn:b>\r\n",
                &crate_xml,
            ),
            response("<urn:b>"),
            record(
                "metadata",
                "<urn:m4>",
                "WARC-Refers-To: <urn:nowhere>\r\n",
                &crate_xml,
            ),
        ]
        .concat();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("meta.warc");
        std::fs::write(&path, warc).unwrap();
        let records = Records::open(&Source::file(&path), ReadOptions::default()).unwrap();
        let (mut ties, mut batch) = (Ties::default(), Vec::new());
        let mut crates = Vec::new();
        for found in records {
            let Found::Record(record) = found else {
                panic!("every record reads")
            };
            if record.kind == RecordKind::Metadata && is_crate(&record) {
                crates.push(record.location.clone());
            }
            if ties.see(&record, &mut batch) {
                continue;
            }
            let mut planned = plan_record(&record, "c", "").unwrap();
            ties.tie(&mut planned);
            batch.push(planned);
        }
        let tied: Vec<_> = batch
            .iter()
            .map(|p| p.foreign.as_ref().unwrap().metadata.clone())
            .collect();
        assert_eq!(tied, [Some(crates[0].clone()), Some(crates[1].clone())]);
        let counts = ties.finish();
        assert_eq!(
            counts,
            MetadataCounts {
                crates: 2,
                other: 1,
                untied: 1
            }
        );
    }
}

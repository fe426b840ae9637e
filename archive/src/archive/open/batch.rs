//! Batches of items: committed in memory, then written together, the WARC records first and
//! the ledger lines after them in one `write`, so that a harvest spends two `write`s a batch
//! rather than two an item. A batch is in the archive whole or not at all.

use super::{at, Archive, ArchiveError};

/// What one item taught the archive: its key and the payload digests it is the first capture
/// of, when new; forgotten if its line is never written.
#[derive(Debug)]
pub(super) struct Learned {
    pub(super) key: Option<[u8; 20]>,
    pub(super) originals: Vec<u64>,
}

impl Archive {
    /// Opens a batch: the items committed from now on reach the files at
    /// [`end_batch`](Self::end_batch). They count as held at once ([`contains`](Self::contains),
    /// [`original`](Self::original)).
    pub fn begin_batch(&mut self) {
        self.batch = true;
    }

    /// Writes the batch's records and then their ledger lines, and closes it. If either write
    /// fails (a full disk), none of the batch's items stays in the archive: their lines are
    /// dropped and their records, past the ledger's last item, are cut back when the archive
    /// is next opened (as after a crash), so a later harvest takes them again.
    pub fn end_batch(&mut self) -> Result<(), ArchiveError> {
        self.batch = false;
        self.write_staged()
    }

    /// Closes the batch without writing it, after an error while storing one of its items:
    /// none of its items stays in the archive (as for [`end_batch`](Self::end_batch) failing).
    pub fn abandon_batch(&mut self) {
        self.batch = false;
        if !self.staged.is_empty() {
            self.forget_staged();
        }
    }

    /// Writes what was committed since the last write (nothing if nothing was).
    pub(super) fn write_staged(&mut self) -> Result<(), ArchiveError> {
        if self.staged.is_empty() {
            return Ok(());
        }
        let (warcs, ledger) = (self.layout.warcs(), self.layout.ledger());
        let records = match &mut self.writer {
            Some(w) => w.flush().map_err(at(&warcs)),
            None => Ok(()),
        };
        let written = records.and_then(|()| self.ledger.write_staged().map_err(at(&ledger)));
        if let Err(e) = written {
            self.forget_staged();
            return Err(e);
        }
        self.staged.clear();
        if self.state.archive_id.is_none() {
            // The item is in: a state that cannot be saved now (a full disk) is saved at the
            // next checkpoint, or its id restored from the ledger on opening.
            if let Err(e) = self.fix_archive_id() {
                tracing::warn!("{e}");
            }
        }
        Ok(())
    }

    /// Forgets the items committed since the last write: their lines, what they taught, and
    /// the WARC file holding their records (left `.open`, cut back to the ledger on opening).
    fn forget_staged(&mut self) {
        self.ledger.drop_staged();
        drop(self.writer.take());
        for learned in std::mem::take(&mut self.staged) {
            if let Some(key) = learned.key {
                self.seen.remove(&key);
            }
            for hash in learned.originals {
                self.originals.remove(&hash);
            }
        }
        // The index is brought up to date from the ledger, which has none of them.
        self.unindexed = None;
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use time::OffsetDateTime;

    use crate::archive::{written, Archive, ArchiveOptions, Entry, EntryKind};
    use crate::warc::{warc_date, RecordType};

    const ENDPOINT: &str = "http://e.example/oai";

    /// Stores one item whose payload is `body`, as a harvest does (records, then commit).
    fn store(archive: &mut Archive, id: &str, body: &[u8]) {
        let date = OffsetDateTime::now_utc();
        let uri = format!("http://e.example/{id}");
        let records = archive
            .write_group(Default::default, |w| {
                let r = w.write_resource(&uri, "text/plain", date, &[], body)?;
                Ok(vec![written(&r, RecordType::Resource, "text/plain", true)])
            })
            .unwrap();
        let entry = Entry {
            endpoint: ENDPOINT.into(),
            prefix: "oai_dc".into(),
            identifier: id.into(),
            datestamp: "2024-01-01".into(),
            deleted: false,
            sets: vec![],
            harvested: warc_date(date),
            bytes: body.len() as u64,
            fixity_errors: vec![],
            records,
            kind: EntryKind::Item,
        };
        archive.commit(&entry).unwrap();
    }

    fn holds(archive: &Archive, id: &str) -> bool {
        archive.contains(ENDPOINT, "oai_dc", id, "2024-01-01")
    }

    fn ledger_lines(archive: &Archive) -> usize {
        let text = fs::read_to_string(archive.layout().ledger()).unwrap();
        text.lines().count()
    }

    #[test]
    fn a_batch_is_held_at_once_and_written_at_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let mut archive = Archive::open(dir.path(), ArchiveOptions::default()).unwrap();
        archive.begin_batch();
        store(&mut archive, "a", b"same payload");
        store(&mut archive, "b", b"same payload");
        assert!(holds(&archive, "a") && holds(&archive, "b"));
        assert_eq!(ledger_lines(&archive), 0, "lines wait for the batch's end");
        // The first capture of a payload is found among the batch's own lines.
        let original = archive.original(&crate::warc::sha1_digest(b"same payload"));
        assert_eq!(
            original.unwrap().unwrap().target_uri.as_deref(),
            Some("http://e.example/a")
        );
        archive.end_batch().unwrap();
        assert_eq!(ledger_lines(&archive), 2);
        archive.close().unwrap();
        let archive = Archive::open(dir.path(), ArchiveOptions::default()).unwrap();
        assert!(holds(&archive, "a") && holds(&archive, "b"));
        assert!(archive.recovery().is_empty(), "{:?}", archive.recovery());
    }

    #[test]
    fn an_abandoned_batch_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let mut archive = Archive::open(dir.path(), ArchiveOptions::default()).unwrap();
        store(&mut archive, "before", b"kept");
        archive.begin_batch();
        store(&mut archive, "x", b"dropped");
        store(&mut archive, "y", b"kept");
        archive.abandon_batch();
        assert!(holds(&archive, "before"));
        assert!(!holds(&archive, "x") && !holds(&archive, "y"));
        assert!(archive
            .original(&crate::warc::sha1_digest(b"dropped"))
            .unwrap()
            .is_none());
        assert_eq!(ledger_lines(&archive), 1);
        // The archive goes on: the same items again, outside a batch this time.
        store(&mut archive, "x", b"dropped");
        archive.close().unwrap();
        // Opening cuts the abandoned records off the file they were written to.
        let archive = Archive::open(dir.path(), ArchiveOptions::default()).unwrap();
        let recovery = archive.recovery();
        assert!(
            recovery.files_closed == 1 && recovery.bytes_dropped > 0,
            "{recovery:?}"
        );
        assert!(holds(&archive, "before") && holds(&archive, "x") && !holds(&archive, "y"));
        assert_eq!(ledger_lines(&archive), 2);
        let index = fs::read_to_string(archive.layout().index()).unwrap();
        assert_eq!(index.lines().count(), 2, "{index}");
    }
}

//! A change of set definitions (a reload of `[[sets]]`, another folder setting, a store from
//! before sets were stored) applied to the records: every record whose sets change is moved out of
//! its old sets and into its new ones with a new datestamp, the moment the index stores it. Set
//! membership is part of a record's header, so this is a change of the record (OAI-PMH §2.7.1):
//! an incremental harvest of a set the file joined sees it. The change log (of the files
//! themselves, for ResourceSync) is not touched: the files did not change.
//!
//! The records are walked in chunks, each one atomic batch, so readers wait for one chunk at most.
//! The catalog's fingerprint is cleared by the first chunk and set by the last, so a pass cut
//! short by a crash is run again at the next start, whatever the definitions are then.

use std::ops::Bound;
use std::sync::{Arc, PoisonError};
use std::time::Instant;

use fjall::Readable;

use super::codec::Record;
use super::store::Index;
use crate::sets::Definitions;

/// Records read and moved per atomic batch.
const CHUNK: usize = 4096;

/// Moves the records whose sets `defs` change, on a blocking thread, and logs what it did.
pub(super) async fn apply(index: Arc<Index>, defs: Arc<Definitions>) {
    let started = Instant::now();
    match tokio::task::spawn_blocking(move || index.regroup(defs)).await {
        Ok(Ok(n)) if n > 0 => tracing::info!(
            records = n,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "sets changed: records moved to their new sets, with new datestamps"
        ),
        Ok(Ok(_)) => {}
        Ok(Err(err)) => {
            tracing::error!(error = %err, "cannot store the records' new sets; the next start tries again")
        }
        Err(err) => tracing::error!(error = %err, "moving records to their new sets stopped"),
    }
}

impl Index {
    /// Whether the stored records follow `defs` already.
    pub(crate) fn follows(&self, defs: &Definitions) -> bool {
        self.catalog().sets_fingerprint.as_deref() == Some(defs.fingerprint().as_str())
    }

    /// Makes `defs` the definitions records follow from now on, and moves every stored record
    /// whose sets they change. Returns how many records moved. Runs on a blocking thread, by the
    /// index's one writer.
    pub(crate) fn regroup(&self, defs: Arc<Definitions>) -> Result<usize, fjall::Error> {
        self.publish_definitions(defs.clone());
        if self.follows(&defs) {
            return Ok(0);
        }
        let fingerprint = defs.fingerprint();
        let mut after: Option<Vec<u8>> = None;
        let mut moved = 0;
        let mut first = true;
        loop {
            let chunk = self.records_after(after.as_deref(), CHUNK);
            let last = chunk.len() < CHUNK;
            after = chunk.last().map(|(p, _)| p.as_bytes().to_vec());
            let _exclusive = self
                .visibility
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            let mut b = self.batch();
            for (path, r) in chunk {
                let mime = b.catalog_mut().mime(r.mime);
                let sets = defs.membership(&path, &mime);
                if sets == r.sets {
                    continue;
                }
                b.unlink(&path, &r);
                let now = b.now;
                b.link(
                    &path,
                    &Record {
                        datestamp: now,
                        sets,
                        ..r
                    },
                );
                moved += 1;
            }
            if first {
                b.catalog_mut().sets_fingerprint = None;
                first = false;
            }
            if last {
                b.catalog_mut().sets_fingerprint = Some(fingerprint.clone());
            }
            let catalog = b.commit()?;
            self.publish(catalog);
            if last {
                return Ok(moved);
            }
        }
    }

    /// Up to `limit` records (deleted ones too) after the URL path `after`, in path order.
    fn records_after(&self, after: Option<&[u8]>, limit: usize) -> Vec<(String, Record)> {
        let lower = after.map_or(Bound::Unbounded, |a| Bound::Excluded(a.to_vec()));
        self.db
            .snapshot()
            .range(&self.ks.records, (lower, Bound::Unbounded))
            .filter_map(|g| g.into_inner().ok())
            .filter_map(|(k, v)| Some((String::from_utf8(k.to_vec()).ok()?, Record::decode(&v)?)))
            .take(limit)
            .collect()
    }
}

//! The change log's retention: changes older than the kept period are removed in the
//! background, and the catalog says from when the log is complete (`log_from`), so a change
//! list states where its history starts instead of looking complete. The records themselves
//! (deletions included) are not touched: a harvester that comes back after the kept period
//! still gets every current record and deletion from the OAI-PMH lists.

use std::ops::Bound;

use fjall::Readable;
use modoai_protocol::Datestamp;

use super::catalog;
use super::codec;
use super::store::Index;

/// Changes removed per atomic batch.
const CHUNK: usize = 10_000;

impl Index {
    /// The datestamp from which the change log holds every change: when the first index of the
    /// site was stored, or the end of the last period removed; for a store from before this
    /// was recorded, its oldest change. None for an index without a complete first index.
    pub(crate) fn changes_from(&self) -> Option<Datestamp> {
        let catalog = self.catalog();
        if !catalog.complete {
            return None;
        }
        if let Some(secs) = catalog.log_from {
            return Some(Datestamp::from_unix(secs));
        }
        let snap = self.db.snapshot();
        let oldest = snap
            .first_key_value(&self.ks.changes)
            .and_then(|kv| kv.key().ok())
            .map(|k| codec::ds_from(&k));
        Some(oldest.unwrap_or_else(Datestamp::now))
    }

    /// Removes every change dated before `before` and records that the log starts there.
    /// Returns how many were removed. Runs on a blocking thread, by the index's one writer.
    pub(crate) fn forget_changes_before(&self, before: Datestamp) -> Result<usize, fjall::Error> {
        if self.changes_from().is_none_or(|from| from >= before) {
            return Ok(0);
        }
        let mut removed = 0;
        loop {
            let keys = self.change_keys_before(before, CHUNK)?;
            let last = keys.len() < CHUNK;
            let mut batch = self.db.batch();
            removed += keys.len();
            for k in keys {
                batch.remove(&self.ks.changes, k);
            }
            let mut catalog = (*self.catalog()).clone();
            if last {
                catalog.log_from = Some(before.unix());
            }
            batch.insert(&self.ks.meta, catalog::KEY, catalog.encode());
            batch.commit()?;
            self.publish(catalog);
            if last {
                return Ok(removed);
            }
        }
    }

    /// Up to `limit` keys of changes dated before `before`, oldest first.
    fn change_keys_before(
        &self,
        before: Datestamp,
        limit: usize,
    ) -> Result<Vec<fjall::Slice>, fjall::Error> {
        let snap = self.db.snapshot();
        let upper = Bound::Excluded(codec::ds_bytes(before).to_vec());
        snap.range(&self.ks.changes, (Bound::Unbounded, upper))
            .take(limit)
            .map(|g| g.key())
            .collect()
    }
}

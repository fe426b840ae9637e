//! The first index of a site, loaded in bulk: `records` is written as the walk produces it (in
//! key order), `order`, `sets` and `members` are sorted externally and written at the end, each
//! as sorted tables (the store's ingestion), never a million single inserts; the counts of the
//! folder and named sets are kept in memory (one per set) and written last. The catalog, marked complete,
//! is written last: a first index cut short (a crash, a `kill -9`) is started again from nothing
//! at the next start.

use std::collections::BTreeMap;
use std::sync::Arc;

use modoai_protocol::Datestamp;

use super::catalog::{self, Catalog};
use super::codec::{self, Record};
use super::entry::Stamp;
use super::sort::Sorter;
use super::store::Index;

/// A file found by the first index, with the type it is served as.
pub(super) struct Found {
    pub(super) path: Arc<str>,
    pub(super) stamp: Stamp,
    pub(super) mtime: Datestamp,
    pub(super) mime: String,
}

/// Why the first index could not be stored.
#[derive(Debug, thiserror::Error)]
pub(super) enum BulkError {
    #[error("the store failed: {0}")]
    Store(#[from] fjall::Error),
    #[error("the sort of the index failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Stores `found` (in ascending path order) as the first index, with each file's mtime as its
/// datestamp, and publishes the catalog. Runs on a blocking thread.
pub(super) fn load(index: &Index, found: impl Iterator<Item = Found>) -> Result<(), BulkError> {
    let mut catalog = Catalog::default();
    let defs = index.definitions();
    let mut order = Sorter::new(index.folder())?;
    let mut sets = Sorter::new(index.folder())?;
    let mut members = Sorter::new(index.folder())?;
    let mut counts: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
    let mut records = index.ks.records.start_ingestion()?;
    let mut last: Option<Arc<str>> = None;
    for f in found {
        if last.as_deref().is_some_and(|l| l >= &*f.path) {
            tracing::warn!(path = %f.path, "the walk returned a path out of order; left for the next rescan");
            continue;
        }
        let id = catalog.intern(&f.mime);
        let rec = Record {
            datestamp: f.mtime,
            mime: id,
            stamp: f.stamp,
            deleted: false,
            sets: defs.membership(&f.path, &f.mime),
        };
        records.write(f.path.as_bytes(), rec.encode())?;
        order.push(&codec::order_key(f.mtime, &f.path))?;
        sets.push(&codec::set_key(id, f.mtime, &f.path))?;
        for set in rec.sets.keys(&f.path) {
            members.push(&codec::member_key(&set, f.mtime, &f.path))?;
            *counts.entry(set).or_default() += 1;
        }
        catalog.count(id, 1);
        catalog.live += 1;
        last = Some(f.path);
    }
    records.finish()?;
    // The orderings are merged and written at once, on two threads.
    std::thread::scope(|s| {
        let sets = s.spawn(|| {
            ingest(&index.ks.sets, sets)?;
            ingest(&index.ks.members, members)
        });
        let order = ingest(&index.ks.order, order);
        sets.join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))?;
        order
    })?;
    let mut ing = index.ks.set_counts.start_ingestion()?;
    for (set, n) in &counts {
        ing.write(set.as_slice(), n.to_be_bytes())?;
    }
    ing.finish()?;
    catalog.folder_sets = counts
        .keys()
        .filter(|k| k.first() == Some(&crate::sets::FOLDER_TAG))
        .count() as u64;
    catalog.sets_fingerprint = Some(defs.fingerprint());
    catalog.complete = true;
    // The change log starts now: every later version gets a datestamp from now on.
    catalog.log_from = Some(index.clock.now().unix());
    index.ks.meta.insert(catalog::KEY, catalog.encode())?;
    index.sync();
    index.publish(catalog);
    Ok(())
}

/// Writes the sorted keys of `sorter` into the empty keyspace `space`.
fn ingest(space: &fjall::Keyspace, sorter: Sorter) -> Result<(), BulkError> {
    let mut ing = space.start_ingestion()?;
    for key in sorter.finish()? {
        ing.write(key?, [])?;
    }
    ing.finish()?;
    Ok(())
}

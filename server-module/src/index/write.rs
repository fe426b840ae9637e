//! Changing the index: one atomic batch per call, with the repository's datestamp rule.
//!
//! **The datestamp rule.** A version found by the very first index of a site keeps its mtime as
//! its datestamp (`bulk.rs`). Every version seen after that (a new file, a changed size, mtime
//! or inode, a file back after a deletion, also one found by the reconciling scan after a
//! restart) gets the later of its mtime and the moment the index stores it; a deletion gets the
//! moment it is stored. So a file copied in with an old mtime (`cp -p`, `rsync -t`, `tar x`)
//! still appears to the next incremental harvest, and no datestamp ever lies before the response
//! date of a harvest that could not see it (see `Index::visibility`). "The moment" is the index's
//! clock (`clock.rs`), which never goes backwards, even when the wall clock is stepped back or
//! the server restarts; regrouping records into other sets (`regroup.rs`) dates them by the same
//! clock.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError};

use fjall::OwnedWriteBatch;
use modoai_protocol::Datestamp;

use super::catalog::{self, Catalog};
use super::clock;
use super::codec::{self, ChangeKind, Record};
use super::entry::Stamp;
use super::store::Index;
use crate::sets::{Definitions, SetKey};

/// One change to apply.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// The file at `path` is on disk in this version, served as `mime`.
    Put {
        path: Arc<str>,
        stamp: Stamp,
        mtime: Datestamp,
        mime: String,
    },
    /// The file at `path` is gone: a deletion record replaces its record (or, without deletion
    /// records, the record goes).
    Delete { path: Arc<str> },
    /// The site does not serve `path`: its record goes, with no deletion record.
    Forget { path: Arc<str> },
}

impl Op {
    fn path(&self) -> &Arc<str> {
        match self {
            Op::Put { path, .. } | Op::Delete { path } | Op::Forget { path } => path,
        }
    }
}

/// A batch under construction, with the catalog it will publish.
pub(super) struct Batch<'a> {
    index: &'a Index,
    batch: OwnedWriteBatch,
    catalog: Catalog,
    pub(super) now: Datestamp,
    /// The definitions the records stored follow.
    pub(super) defs: Arc<Definitions>,
    /// How many records each folder or named set gains (or loses) in this batch.
    counts: HashMap<SetKey, i64>,
}

impl Index {
    /// Applies `ops` (the last one per path counts) in one atomic batch; returns how many
    /// records changed. `tombstones`: whether a deletion leaves a deleted record.
    pub(crate) fn apply(&self, ops: Vec<Op>, tombstones: bool) -> Result<usize, fjall::Error> {
        let mut last: HashMap<Arc<str>, Op> = HashMap::with_capacity(ops.len());
        for op in ops {
            last.insert(op.path().clone(), op);
        }
        let mut work = Vec::with_capacity(last.len());
        for (path, op) in last {
            let old = self
                .ks
                .records
                .get(path.as_bytes())?
                .and_then(|b| Record::decode(&b));
            if self.changes_anything(&op, old.as_ref()) {
                work.push((op, old));
            }
        }
        if work.is_empty() {
            return Ok(0);
        }
        let _exclusive = self
            .visibility
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let mut b = self.batch();
        let n = work.len();
        for (op, old) in work {
            b.op(op, old, tombstones);
        }
        let catalog = b.commit()?;
        self.publish(catalog);
        Ok(n)
    }

    /// A new batch dated now; the caller holds `visibility` exclusively until it is committed.
    pub(super) fn batch(&self) -> Batch<'_> {
        Batch {
            index: self,
            batch: self.db.batch(),
            catalog: (*self.catalog()).clone(),
            now: self.clock.now(),
            defs: self.definitions(),
            counts: HashMap::new(),
        }
    }

    /// False for an op that would leave the record as it is.
    fn changes_anything(&self, op: &Op, old: Option<&Record>) -> bool {
        match (op, old) {
            (Op::Put { stamp, mime, .. }, Some(r)) => {
                r.deleted || r.stamp != *stamp || *self.catalog().mime(r.mime) != **mime
            }
            (Op::Put { .. }, None) => true,
            (Op::Delete { .. }, Some(r)) => !r.deleted,
            (Op::Forget { .. }, Some(_)) => true,
            (_, None) => false,
        }
    }
}

impl Batch<'_> {
    fn op(&mut self, op: Op, old: Option<Record>, tombstones: bool) {
        let was_live = old.as_ref().is_some_and(|r| !r.deleted);
        if let Some(r) = &old {
            self.unlink(op.path(), r);
        }
        match op {
            Op::Put {
                path,
                stamp,
                mtime,
                mime,
            } => {
                let kind = if was_live {
                    ChangeKind::Updated
                } else {
                    ChangeKind::Created
                };
                let id = self.catalog.intern(&mime);
                let rec = Record {
                    datestamp: mtime.max(self.now),
                    mime: id,
                    stamp,
                    deleted: false,
                    sets: self.defs.membership(&path, &mime),
                };
                self.link(&path, &rec);
                self.log(kind, rec.datestamp, &path);
            }
            Op::Delete { path } if tombstones => {
                let old = old.expect("a deletion applies to a live record");
                let zero = Stamp {
                    size: 0,
                    mtime_ns: 0,
                    inode: 0,
                };
                // The deletion stays in the sets the file was in, so their harvesters see it.
                let rec = Record {
                    datestamp: self.now,
                    mime: old.mime,
                    stamp: zero,
                    deleted: true,
                    sets: old.sets,
                };
                self.link(&path, &rec);
                self.log(ChangeKind::Deleted, self.now, &path);
            }
            Op::Delete { path } | Op::Forget { path } => {
                let ks = &self.index.ks;
                self.batch.remove(&ks.records, path.as_bytes());
                if was_live {
                    self.log(ChangeKind::Deleted, self.now, &path);
                }
            }
        }
    }

    /// Takes `r`, the record at `path`, out of the orderings and the counts.
    pub(super) fn unlink(&mut self, path: &str, r: &Record) {
        let ks = &self.index.ks;
        self.batch
            .remove(&ks.order, codec::order_key(r.datestamp, path));
        self.batch
            .remove(&ks.sets, codec::set_key(r.mime, r.datestamp, path));
        for set in r.sets.keys(path) {
            self.batch
                .remove(&ks.members, codec::member_key(&set, r.datestamp, path));
            *self.counts.entry(set).or_default() -= 1;
        }
        self.catalog.count(r.mime, -1);
        if r.deleted {
            self.catalog.deleted -= 1;
        } else {
            self.catalog.live -= 1;
        }
    }

    /// Stores `r` as the record at `path`, in the orderings and the counts.
    pub(super) fn link(&mut self, path: &str, r: &Record) {
        let ks = &self.index.ks;
        self.batch.insert(&ks.records, path.as_bytes(), r.encode());
        self.batch
            .insert(&ks.order, codec::order_key(r.datestamp, path), []);
        self.batch
            .insert(&ks.sets, codec::set_key(r.mime, r.datestamp, path), []);
        for set in r.sets.keys(path) {
            self.batch
                .insert(&ks.members, codec::member_key(&set, r.datestamp, path), []);
            *self.counts.entry(set).or_default() += 1;
        }
        self.catalog.count(r.mime, 1);
        if r.deleted {
            self.catalog.deleted += 1;
        } else {
            self.catalog.live += 1;
        }
    }

    fn log(&mut self, kind: ChangeKind, at: Datestamp, path: &str) {
        let key = codec::change_key(at, self.catalog.seq);
        self.catalog.seq += 1;
        self.batch.insert(
            &self.index.ks.changes,
            key.to_vec(),
            codec::change_value(kind, path),
        );
    }

    /// Commits the batch with the counts and catalog it changed; returns the catalog to
    /// publish.
    pub(super) fn commit(mut self) -> Result<Catalog, fjall::Error> {
        self.count_sets()?;
        let ks = &self.index.ks;
        self.batch
            .insert(&ks.meta, catalog::KEY, self.catalog.encode());
        if let Some(latest) = self.index.clock.encode() {
            self.batch.insert(&ks.meta, clock::KEY, latest);
        }
        self.batch.commit()?;
        Ok(self.catalog)
    }

    /// The catalog, to change what it says of the sets.
    pub(super) fn catalog_mut(&mut self) -> &mut Catalog {
        &mut self.catalog
    }

    /// Adds the batch's gains and losses to the counts of the sets (the one writer reads them
    /// as last committed); a set that holds nothing any more loses its count.
    fn count_sets(&mut self) -> Result<(), fjall::Error> {
        let space = &self.index.ks.set_counts;
        for (set, delta) in std::mem::take(&mut self.counts) {
            if delta == 0 {
                continue;
            }
            let before = space.get(&set)?.map_or(0, |b| codec::count_from(&b));
            let after = before.saturating_add_signed(delta);
            if set.first() == Some(&crate::sets::FOLDER_TAG) {
                match (before, after) {
                    (0, 1..) => self.catalog.folder_sets += 1,
                    (1.., 0) => {
                        self.catalog.folder_sets = self.catalog.folder_sets.saturating_sub(1)
                    }
                    _ => {}
                }
            }
            if after == 0 {
                self.batch.remove(space, set);
            } else {
                self.batch.insert(space, set, after.to_be_bytes());
            }
        }
        Ok(())
    }
}

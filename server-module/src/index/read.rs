//! Reading the index: a [`View`] is one consistent snapshot of the store with the catalog of the
//! same moment and the response date that goes with it (see `Index::visibility`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Bound;
use std::sync::Arc;

use fjall::{Keyspace, Readable, Snapshot};
use modoai_protocol::Datestamp;

use super::catalog::Catalog;
use super::codec::{self, ChangeKind, Record, DS};
use super::store::Index;
use super::{Entry, Filter, Key};
use crate::sets::{Definitions, Lookup};

/// One change of the index's change log: what happened to a file, when
/// ([`crate::OaiPmh::changes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Change {
    /// When: the datestamp of the new version, or of the deletion.
    pub datestamp: Datestamp,
    /// Its place in the log, increasing with every change the index stores; with the datestamp,
    /// where the next call continues.
    pub seq: u64,
    /// Created, updated or deleted.
    pub kind: ChangeKind,
    /// The URL path of the file, relative to the site root, percent-encoded (as in identifiers).
    pub path: String,
}

/// A consistent view of the index.
pub(crate) struct View<'a> {
    index: &'a Index,
    pub(super) snap: Snapshot,
    pub(super) catalog: Arc<Catalog>,
    /// The set definitions of the same moment: which sets there are, their names.
    pub(crate) defs: Arc<Definitions>,
    /// The response date of a request answered from this view.
    pub(crate) date: Datestamp,
}

impl Index {
    /// A consistent view, dated.
    pub(crate) fn view(&self) -> View<'_> {
        let (date, (snap, catalog, defs)) =
            self.dated(|| (self.db.snapshot(), self.catalog(), self.definitions()));
        View {
            index: self,
            snap,
            catalog,
            defs,
            date,
        }
    }

    /// The record whose URL path (relative to the site root, percent-encoded) is `path`.
    pub(crate) fn get(&self, path: &str) -> Option<Arc<Entry>> {
        self.view().get(path)
    }

    /// The record at `path` as last committed, read without a dated view (no snapshot, no
    /// lock): for a lookup that stands alone, such as a file's `Link` header on a plain GET, where
    /// no other read has to agree with it. A record whose MIME type the published catalog does
    /// not know yet (its batch is committed, the catalog about to follow) is read through a view,
    /// which waits for the catalog.
    pub(crate) fn latest(&self, path: &str) -> Option<Arc<Entry>> {
        let bytes = self.ks.records.get(path).ok()??;
        let r = Record::decode(&bytes)?;
        let catalog = self.catalog();
        if !catalog.knows_mime(r.mime) {
            return self.get(path);
        }
        Some(entry(path, r, &catalog))
    }

    /// The lowest datestamp of any record, deleted ones included.
    pub(crate) fn earliest(&self) -> Option<Datestamp> {
        let snap = self.db.snapshot();
        let first = snap.first_key_value(&self.ks.order)?;
        first.key().ok().map(|k| codec::ds_from(&k))
    }

    /// Up to `limit` changes with datestamps from `from` to `until` (inclusive), after the change
    /// `after` (a datestamp and sequence number from an earlier call), in datestamp order: the
    /// change log of the index since its first index was complete (what that first index found is
    /// the baseline, listed by the records themselves).
    pub(crate) fn changes(
        &self,
        from: Option<Datestamp>,
        until: Option<Datestamp>,
        after: Option<(Datestamp, u64)>,
        limit: usize,
    ) -> Vec<Change> {
        let lower = match (after, from) {
            (Some((d, seq)), _) => Bound::Excluded(codec::change_key(d, seq).to_vec()),
            (None, Some(f)) => Bound::Included(codec::ds_bytes(f).to_vec()),
            (None, None) => Bound::Unbounded,
        };
        let upper = until.map_or(Bound::Unbounded, |u| {
            Bound::Excluded(codec::ds_bytes(u.plus(1)).to_vec())
        });
        let snap = self.db.snapshot();
        snap.range(&self.ks.changes, (lower, upper))
            .filter_map(|g| g.into_inner().ok())
            .filter_map(|(k, v)| {
                let (seq, kind, path) = codec::decode_change(&k, &v)?;
                let datestamp = codec::ds_from(&k);
                Some(Change {
                    datestamp,
                    seq,
                    kind,
                    path,
                })
            })
            .take(limit)
            .collect()
    }
}

impl Index {
    /// The place (datestamp, sequence number) of every `every`-th change of the log, the first
    /// included, and how many changes it holds: where the pages of a change list cut into
    /// pages of `every` begin.
    pub(crate) fn change_marks(&self, every: usize) -> (Vec<(Datestamp, u64)>, u64) {
        let snap = self.db.snapshot();
        let mut marks = Vec::new();
        let mut n = 0u64;
        for k in snap.iter(&self.ks.changes).filter_map(|g| g.key().ok()) {
            if n.is_multiple_of(every as u64) {
                if let Some(seq) = codec::change_seq(&k) {
                    marks.push((codec::ds_from(&k), seq));
                }
            }
            n += 1;
        }
        (marks, n)
    }

    /// The paths of every deletion record.
    pub(super) fn deleted_paths(&self) -> Vec<Arc<str>> {
        let snap = self.db.snapshot();
        snap.iter(&self.ks.records)
            .filter_map(|g| g.into_inner().ok())
            .filter(|(_, v)| Record::decode(v).is_some_and(|r| r.deleted))
            .filter_map(|(k, _)| std::str::from_utf8(&k).ok().map(Arc::from))
            .collect()
    }
}

impl View<'_> {
    /// The record at `path`.
    pub(crate) fn get(&self, path: &str) -> Option<Arc<Entry>> {
        let bytes = self.snap.get(&self.index.ks.records, path).ok()??;
        self.entry(path, &bytes)
    }

    fn entry(&self, path: &str, bytes: &[u8]) -> Option<Arc<Entry>> {
        Some(entry(path, Record::decode(bytes)?, &self.catalog))
    }

    /// Up to `limit` live records in URL path order, from `start` on (`Bound::Excluded` to go on
    /// after the last of an earlier call); with `named`, only those in that named set or one
    /// below it.
    pub(crate) fn by_path(
        &self,
        start: Bound<&str>,
        limit: usize,
        named: Option<&str>,
    ) -> Vec<Arc<Entry>> {
        let lower = start.map(|p| p.as_bytes().to_vec());
        self.snap
            .range(&self.index.ks.records, (lower, Bound::Unbounded))
            .filter_map(|g| g.into_inner().ok())
            .filter_map(|(k, v)| self.entry(std::str::from_utf8(&k).ok()?, &v))
            .filter(|e| !e.deleted && named.is_none_or(|s| in_named(&e.sets, s)))
            .take(limit)
            .collect()
    }

    /// The URL paths of every `every`-th live record in path order (with `named`, of those in
    /// that named set or below it), the first included, and how many there are: where the parts
    /// of a list cut into parts of `every` begin.
    pub(crate) fn path_marks(&self, every: usize, named: Option<&str>) -> (Vec<String>, u64) {
        let mut marks = Vec::new();
        let mut n = 0u64;
        let live = self
            .snap
            .iter(&self.index.ks.records)
            .filter_map(|g| g.into_inner().ok())
            .filter(|(_, v)| {
                Record::decode(v)
                    .is_some_and(|r| !r.deleted && named.is_none_or(|s| in_named(&r.sets, s)))
            });
        for (k, _) in live {
            if n.is_multiple_of(every as u64) {
                marks.push(String::from_utf8_lossy(&k).into_owned());
            }
            n += 1;
        }
        (marks, n)
    }

    /// Up to `limit` records matching `filter` that follow `after` in the stable order.
    pub(crate) fn page(
        &self,
        filter: &Filter,
        after: Option<&Key>,
        limit: usize,
    ) -> Vec<Arc<Entry>> {
        self.keys(filter, after)
            .filter_map(|k| {
                let path = codec::path_of_order_key(&k)?;
                self.get(path).filter(|e| e.datestamp == codec::ds_from(&k))
            })
            .take(limit)
            .collect()
    }

    /// How many records match `filter`: from the catalog when no dates bound the list (the
    /// first page of a full harvest of a million files answers without walking them), by a walk
    /// of the range otherwise.
    pub(crate) fn count(&self, filter: &Filter) -> u64 {
        if filter.from.is_some() || filter.until.is_some() {
            return self.keys(filter, None).count() as u64;
        }
        match filter
            .set
            .as_ref()
            .map(|s| (s.as_str(), self.defs.lookup(s.as_str())))
        {
            None | Some((_, Lookup::All)) => self.catalog.total(),
            Some((spec, Lookup::Mime)) => self.catalog.total_of(&self.catalog.ids_in(spec)),
            Some((_, Lookup::Key(set))) => self.set_count(&set),
            Some((_, Lookup::Unknown)) => 0,
        }
    }

    /// Every MIME set spec with at least one record, sorted, the root first.
    pub(crate) fn mime_set_specs(&self) -> Vec<String> {
        self.catalog.set_specs()
    }

    /// Records (deletions included) in the folder or named set `set` and the sets below it.
    pub(crate) fn set_count(&self, set: &[u8]) -> u64 {
        self.snap
            .get(&self.index.ks.set_counts, set)
            .ok()
            .flatten()
            .map_or(0, |b| codec::count_from(&b))
    }

    /// Up to `limit` folder sets after the folder `after` (URL paths, in their byte order), each
    /// with its URL path and count, and how many folder sets there are.
    pub(crate) fn folder_sets(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> (Vec<(String, u64)>, u64) {
        let tag = crate::sets::FOLDER_TAG;
        let lower = match after {
            Some(a) => Bound::Excluded(crate::sets::folder_key(a)),
            None => Bound::Included(vec![tag]),
        };
        let page = self
            .snap
            .range(
                &self.index.ks.set_counts,
                (lower, Bound::Excluded(vec![tag + 1])),
            )
            .filter_map(|g| g.into_inner().ok())
            .filter_map(|(k, v)| {
                let folder = std::str::from_utf8(k.get(1..)?).ok()?.to_owned();
                Some((folder, codec::count_from(&v)))
            })
            .take(limit)
            .collect();
        (page, self.catalog.folder_sets)
    }

    /// The `order` keys (datestamp, path) matching `filter` after `after`, in order. A MIME set
    /// walks its types' ranges of `sets` together, a folder or named set its one range of
    /// `members` (its descendants included), so a page of a small set never visits the rest of
    /// the site.
    fn keys<'b>(
        &'b self,
        filter: &Filter,
        after: Option<&Key>,
    ) -> Box<dyn Iterator<Item = Vec<u8>> + 'b> {
        let ks = &self.index.ks;
        let lookup = filter.set.as_ref().map(|s| self.defs.lookup(s.as_str()));
        match (filter.set.as_ref().map(|s| s.as_str()), lookup) {
            (None, _) | (_, Some(Lookup::All)) => {
                Box::new(self.range(&ks.order, &[], None, filter, after))
            }
            (_, Some(Lookup::Unknown)) => Box::new(std::iter::empty()),
            (_, Some(Lookup::Key(set))) => {
                let (prefix, next) = codec::member_range(&set);
                let skip = prefix.len();
                Box::new(
                    self.range(&ks.members, &prefix, Some(&next), filter, after)
                        .map(move |k| k[skip..].to_vec()),
                )
            }
            (Some(spec), _) => {
                let ranges: Vec<_> = self
                    .catalog
                    .ids_in(spec)
                    .into_iter()
                    .map(|id| {
                        let prefix = id.to_be_bytes();
                        let next = (u64::from(id) + 1).to_be_bytes();
                        self.range(&ks.sets, &prefix, Some(&next[4..]), filter, after)
                            .map(|k| k[4..].to_vec())
                    })
                    .collect();
                Box::new(merge(ranges))
            }
        }
    }

    /// The keys of `space` under `prefix` (before `next`, the prefix after it) within the dates
    /// of `filter`, after `after`.
    fn range<'b>(
        &'b self,
        space: &Keyspace,
        prefix: &[u8],
        next: Option<&[u8]>,
        filter: &Filter,
        after: Option<&Key>,
    ) -> impl Iterator<Item = Vec<u8>> + 'b {
        let with = |tail: &[u8]| [prefix, tail].concat();
        let lower = match (after, filter.from) {
            (Some((d, p)), _) => Bound::Excluded(with(&codec::order_key(*d, p))),
            (None, Some(from)) => Bound::Included(with(&codec::ds_bytes(from))),
            (None, None) => Bound::Included(prefix.to_vec()),
        };
        let upper = match (filter.until, next) {
            (Some(u), _) => Bound::Excluded(with(&codec::ds_bytes(u.plus(1)))),
            (None, Some(n)) => Bound::Excluded(n.to_vec()),
            (None, None) => Bound::Unbounded,
        };
        self.snap
            .range(space, (lower, upper))
            .filter_map(|g| g.key().ok())
            .filter(|k| k.len() > DS)
            .map(|k| k.to_vec())
    }
}

/// Whether a record of membership `m` is in the named set `spec` or one below it.
fn in_named(m: &crate::sets::Membership, spec: &str) -> bool {
    m.named
        .iter()
        .any(|n| **n == *spec || n.strip_prefix(spec).is_some_and(|r| r.starts_with(':')))
}

/// The keys of several sorted iterators, merged in order.
fn merge<'b>(iters: Vec<impl Iterator<Item = Vec<u8>> + 'b>) -> impl Iterator<Item = Vec<u8>> + 'b {
    let mut iters: Vec<_> = iters.into_iter().collect();
    let mut heap = BinaryHeap::new();
    for (i, it) in iters.iter_mut().enumerate() {
        if let Some(k) = it.next() {
            heap.push(Reverse((k, i)));
        }
    }
    std::iter::from_fn(move || {
        let Reverse((k, i)) = heap.pop()?;
        if let Some(next) = iters[i].next() {
            heap.push(Reverse((next, i)));
        }
        Some(k)
    })
}

/// The entry of the record `r` at `path`, its MIME type named by `catalog`.
fn entry(path: &str, r: Record, catalog: &Catalog) -> Arc<Entry> {
    Arc::new(Entry {
        path: Arc::from(path),
        datestamp: r.datestamp,
        mime: catalog.mime(r.mime),
        stamp: r.stamp,
        deleted: r.deleted,
        sets: r.sets,
    })
}

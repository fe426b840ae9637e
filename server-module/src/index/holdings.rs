//! The in-memory maps behind [`super::Index`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Bound;
use std::path::PathBuf;
use std::sync::Arc;

use modoai_protocol::setspec::{mime_set_specs, MIME_ROOT};
use modoai_protocol::Datestamp;

use super::Filter;

/// A position in the stable order of records: datestamp first, then the URL path.
pub(crate) type Key = (Datestamp, Arc<str>);

/// What identifies one version of a file on disk; a change of any part means the file changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) size: u64,
    pub(crate) mtime_ns: i128,
    pub(crate) inode: u64,
}

/// One record: a file of the site, or the tombstone of a file deleted while the server ran.
#[derive(Debug)]
pub(crate) struct Entry {
    /// URL path relative to the site root, percent-encoded, without a leading `/`.
    pub(crate) path: Arc<str>,
    /// Path on disk relative to the document root.
    pub(crate) rel: PathBuf,
    /// mtime in UTC at seconds granularity, or for a tombstone the time the deletion was seen.
    pub(crate) datestamp: Datestamp,
    /// The MIME type essence, as the site serves it.
    pub(crate) mime: Arc<str>,
    pub(crate) stamp: Stamp,
    pub(crate) deleted: bool,
}

impl Entry {
    pub(crate) fn key(&self) -> Key {
        (self.datestamp, self.path.clone())
    }

    /// `mime`, `mime:TYPE`, `mime:TYPE:SUBTYPE`.
    pub(crate) fn set_specs(&self) -> [String; 3] {
        mime_set_specs(&self.mime)
    }
}

#[derive(Default)]
pub(super) struct Holdings {
    order: BTreeMap<Key, Arc<Entry>>,
    by_path: BTreeMap<Arc<str>, Arc<Entry>>,
    /// Members of the sets below the root (the root holds every record).
    by_set: HashMap<String, BTreeSet<Key>>,
    live: usize,
}

impl Holdings {
    pub(super) fn get(&self, path: &str) -> Option<Arc<Entry>> {
        self.by_path.get(path).cloned()
    }

    /// Adds or replaces the record at `entry.path`.
    pub(super) fn upsert(&mut self, entry: Entry) {
        self.remove(&entry.path);
        let entry = Arc::new(entry);
        let key = entry.key();
        for spec in entry.set_specs().into_iter().skip(1) {
            self.by_set.entry(spec).or_default().insert(key.clone());
        }
        self.live += usize::from(!entry.deleted);
        self.by_path.insert(entry.path.clone(), entry.clone());
        self.order.insert(key, entry);
    }

    /// Forgets the record at `path` entirely.
    pub(super) fn remove(&mut self, path: &str) -> Option<Arc<Entry>> {
        let old = self.by_path.remove(path)?;
        let key = old.key();
        self.order.remove(&key);
        for spec in old.set_specs().into_iter().skip(1) {
            if let Some(members) = self.by_set.get_mut(&spec) {
                members.remove(&key);
                if members.is_empty() {
                    self.by_set.remove(&spec);
                }
            }
        }
        self.live -= usize::from(!old.deleted);
        Some(old)
    }

    /// The paths of live records at `dir_prefix` (ending in `/`) or below it.
    pub(super) fn live_paths_under(&self, dir_prefix: &str) -> Vec<Arc<str>> {
        self.by_path
            .range::<str, _>((Bound::Included(dir_prefix), Bound::Unbounded))
            .take_while(|(p, _)| p.starts_with(dir_prefix))
            .filter(|(_, e)| !e.deleted)
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// Every live path, for a full rescan's sweep.
    pub(super) fn live_paths(&self) -> Vec<Arc<str>> {
        self.live_paths_under("")
    }

    pub(super) fn page(
        &self,
        filter: &Filter,
        after: Option<&Key>,
        limit: usize,
    ) -> Vec<Arc<Entry>> {
        self.keys(filter, after)
            .take(limit)
            .filter_map(|k| self.order.get(&k).cloned())
            .collect()
    }

    pub(super) fn count(&self, filter: &Filter) -> u64 {
        self.keys(filter, None).count() as u64
    }

    /// Keys matching `filter` after `after`, in order. A set index turns a set filter into a
    /// range walk, so a page of a rare set never visits the rest of the site.
    fn keys<'a>(
        &'a self,
        filter: &Filter,
        after: Option<&Key>,
    ) -> Box<dyn Iterator<Item = Key> + 'a> {
        let empty: Arc<str> = Arc::from("");
        let lower = match (after, filter.from) {
            (Some(k), _) => Bound::Excluded(k.clone()),
            (None, Some(from)) => Bound::Included((from, empty)),
            (None, None) => Bound::Unbounded,
        };
        let until = filter.until;
        let within = move |k: &Key| until.is_none_or(|u| k.0 <= u);
        match filter.set.as_ref().map(|s| s.as_str()) {
            None | Some(MIME_ROOT) => Box::new(
                self.order
                    .range((lower, Bound::Unbounded))
                    .map(|(k, _)| k.clone())
                    .take_while(within),
            ),
            Some(spec) => match self.by_set.get(spec) {
                Some(members) => Box::new(
                    members
                        .range((lower, Bound::Unbounded))
                        .cloned()
                        .take_while(within),
                ),
                None => Box::new(std::iter::empty()),
            },
        }
    }

    pub(super) fn set_specs(&self) -> Vec<String> {
        let mut specs: Vec<String> = self.by_set.keys().cloned().collect();
        specs.sort();
        if !self.order.is_empty() {
            specs.insert(0, MIME_ROOT.to_owned());
        }
        specs
    }

    pub(super) fn earliest(&self) -> Option<Datestamp> {
        self.order.keys().next().map(|k| k.0)
    }

    pub(super) fn live(&self) -> usize {
        self.live
    }
}

//! The in-memory maps behind [`super::Index`].

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Bound;
use std::sync::Arc;

use modoai_protocol::setspec::MIME_ROOT;
use modoai_protocol::Datestamp;

use super::entry::{Entry, Key};
use super::filter::Filter;

#[derive(Default)]
pub(super) struct Holdings {
    order: BTreeMap<Key, Arc<Entry>>,
    by_path: BTreeMap<Arc<str>, Arc<Entry>>,
    /// Members of the sets below the root (the root holds every record).
    by_set: HashMap<String, BTreeSet<Key>>,
    /// One copy of each MIME type the records share.
    mimes: HashSet<Arc<str>>,
    live: usize,
}

impl Holdings {
    pub(super) fn get(&self, path: &str) -> Option<Arc<Entry>> {
        self.by_path.get(path).cloned()
    }

    /// Adds or replaces the record at `entry.path`.
    pub(super) fn upsert(&mut self, entry: Entry) {
        self.remove(&entry.path);
        let mime = match self.mimes.get(&entry.mime) {
            Some(shared) => shared.clone(),
            None => {
                self.mimes.insert(entry.mime.clone());
                entry.mime.clone()
            }
        };
        let entry = Arc::new(Entry { mime, ..entry });
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

    /// How many records match `filter`: a map's length when no dates bound the list (the first
    /// page of a full harvest of a million files answers without walking them), a range walk
    /// otherwise.
    pub(super) fn count(&self, filter: &Filter) -> u64 {
        if filter.from.is_some() || filter.until.is_some() {
            return self.keys(filter, None).count() as u64;
        }
        let n = match filter.set.as_ref().map(|s| s.as_str()) {
            None | Some(MIME_ROOT) => self.order.len(),
            Some(spec) => self.by_set.get(spec).map_or(0, BTreeSet::len),
        };
        n as u64
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

#[cfg(test)]
mod tests {
    use std::os::unix::ffi::OsStrExt;

    use modoai_protocol::SetSpec;

    use super::*;
    use crate::index::entry::Stamp;

    fn entry(path: &str, secs: i64, mime: &str, deleted: bool) -> Entry {
        Entry {
            path: Arc::from(path),
            datestamp: Datestamp::from_unix(secs),
            mime: Arc::from(mime),
            stamp: Stamp {
                size: 1,
                mtime_ns: i128::from(secs) * 1_000_000_000,
                inode: 1,
            },
            deleted,
        }
    }

    #[test]
    fn counts_agree_with_a_walk_of_the_list() {
        let mut h = Holdings::default();
        let mimes = ["text/plain", "text/html", "image/jpeg"];
        for i in 0..60_i64 {
            let mime = mimes[(i % 3) as usize];
            h.upsert(entry(&format!("f{i}"), 1_000 + i / 2, mime, i % 7 == 0));
        }
        h.remove("f5");
        h.upsert(entry("f6", 5_000, "image/png", false));
        let at = |s: i64| Some(Datestamp::from_unix(s));
        let sets = [
            None,
            Some("mime"),
            Some("mime:text"),
            Some("mime:text:html"),
        ];
        let sets = sets
            .into_iter()
            .chain([Some("mime:image:png"), Some("mime:audio")]);
        for set in sets {
            for (from, until) in [
                (None, None),
                (at(1_010), None),
                (None, at(1_020)),
                (at(1_003), at(1_004)),
            ] {
                let filter = Filter {
                    from,
                    until,
                    set: set.and_then(SetSpec::parse),
                };
                let walked = h.keys(&filter, None).count() as u64;
                assert_eq!(h.count(&filter), walked, "{set:?} {from:?} {until:?}");
            }
        }
        let all = Filter {
            from: None,
            until: None,
            set: None,
        };
        assert_eq!(h.count(&all), 59);
    }

    #[test]
    fn records_share_their_mime_type_and_derive_their_disk_path() {
        let mut h = Holdings::default();
        h.upsert(entry("a%20b/c%FF.txt", 1, "text/plain", false));
        h.upsert(entry("d.txt", 2, "text/plain", false));
        let (a, d) = (h.get("a%20b/c%FF.txt").unwrap(), h.get("d.txt").unwrap());
        assert!(Arc::ptr_eq(&a.mime, &d.mime));
        assert_eq!(
            a.rel(),
            std::path::Path::new(std::ffi::OsStr::from_bytes(b"a b/c\xff.txt"))
        );
    }
}

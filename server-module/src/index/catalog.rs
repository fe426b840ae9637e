//! [`Catalog`]: what the index knows about itself besides its records: the MIME types of its
//! records with their counts (the sets and `completeListSize` without a walk), the number of live
//! and deleted records, the change log's next sequence number, and whether the first index of the
//! site is complete. Stored as JSON under one `meta` key, in the same atomic batch as the records
//! it counts.

use std::collections::HashMap;
use std::sync::Arc;

use modoai_protocol::setspec::{mime_set_specs, MIME_ROOT};
use serde::{Deserialize, Serialize};

/// The key of the catalog in `meta`.
pub(super) const KEY: &[u8] = b"catalog";

/// The index's counts and MIME types.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Catalog {
    /// MIME essences by id.
    mimes: Vec<Arc<str>>,
    /// Records (live and deleted) per MIME id.
    totals: Vec<u64>,
    /// Records that are not deletions.
    pub(super) live: u64,
    /// Deletions kept as records.
    pub(super) deleted: u64,
    /// The sequence number of the next change in the change log.
    pub(super) seq: u64,
    /// True once the first index of the site has been stored whole.
    pub(super) complete: bool,
    /// Unix seconds from which the change log holds every change (`retain.rs`); absent in
    /// stores written before it was recorded.
    #[serde(default)]
    pub(super) log_from: Option<i64>,
    /// Folder sets holding at least one record (the keys of `set_counts` tagged as folders).
    #[serde(default)]
    pub(super) folder_sets: u64,
    /// The fingerprint of the set definitions every record's sets follow; absent in stores
    /// written before sets were stored, or while a change of definitions is applied.
    #[serde(default)]
    pub(super) sets_fingerprint: Option<String>,
    #[serde(skip)]
    ids: HashMap<Arc<str>, u32>,
}

impl Catalog {
    /// The catalog stored as `bytes`, with its lookup table rebuilt.
    pub(super) fn decode(bytes: &[u8]) -> Option<Catalog> {
        let mut c: Catalog = serde_json::from_slice(bytes).ok()?;
        if c.totals.len() != c.mimes.len() {
            return None;
        }
        c.ids = c.mimes.iter().cloned().zip(0..).collect();
        Some(c)
    }

    pub(super) fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a catalog always serializes")
    }

    /// The id of `mime`, added if new.
    pub(super) fn intern(&mut self, mime: &str) -> u32 {
        if let Some(&id) = self.ids.get(mime) {
            return id;
        }
        let id = self.mimes.len() as u32;
        let shared: Arc<str> = Arc::from(mime);
        self.mimes.push(shared.clone());
        self.totals.push(0);
        self.ids.insert(shared, id);
        id
    }

    /// Whether `id` names a MIME type of this catalog.
    pub(crate) fn knows_mime(&self, id: u32) -> bool {
        (id as usize) < self.mimes.len()
    }

    /// The MIME essence of id `id` (`application/octet-stream` for an unknown id).
    pub(crate) fn mime(&self, id: u32) -> Arc<str> {
        self.mimes
            .get(id as usize)
            .cloned()
            .unwrap_or_else(|| Arc::from(crate::mime::OCTET_STREAM))
    }

    /// A record of MIME `id` was added (`+1`) or removed (`-1`).
    pub(super) fn count(&mut self, id: u32, delta: i64) {
        if let Some(t) = self.totals.get_mut(id as usize) {
            *t = t.saturating_add_signed(delta);
        }
    }

    /// Records of every type, deletions included.
    pub(crate) fn total(&self) -> u64 {
        self.totals.iter().sum()
    }

    /// The MIME ids in a set: every id for the root set, the ids of one top-level type for
    /// `mime:TYPE`, one id for `mime:TYPE:SUBTYPE` (none for an unknown set).
    pub(crate) fn ids_in(&self, spec: &str) -> Vec<u32> {
        if spec == MIME_ROOT {
            return (0..self.mimes.len() as u32).collect();
        }
        (0..self.mimes.len() as u32)
            .filter(|&id| {
                let specs = mime_set_specs(&self.mimes[id as usize]);
                specs[1] == spec || specs[2] == spec
            })
            .collect()
    }

    /// Records (deletions included) in the sets of `ids`.
    pub(crate) fn total_of(&self, ids: &[u32]) -> u64 {
        ids.iter()
            .map(|&id| self.totals.get(id as usize).copied().unwrap_or(0))
            .sum()
    }

    /// Every set spec with at least one record, sorted, the root first.
    pub(crate) fn set_specs(&self) -> Vec<String> {
        let mut specs = std::collections::BTreeSet::new();
        for (mime, total) in self.mimes.iter().zip(&self.totals) {
            if *total > 0 {
                specs.extend(mime_set_specs(mime).into_iter().skip(1));
            }
        }
        let mut out: Vec<String> = specs.into_iter().collect();
        if self.total() > 0 {
            out.insert(0, MIME_ROOT.to_owned());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_sets_and_survives_encoding() {
        let mut c = Catalog::default();
        let jpeg = c.intern("image/jpeg");
        let png = c.intern("image/png");
        let text = c.intern("text/plain");
        assert_eq!(c.intern("image/jpeg"), jpeg);
        c.count(jpeg, 2);
        c.count(png, 1);
        c.count(text, 1);
        c.count(text, -1);
        let c = Catalog::decode(&c.encode()).unwrap();
        assert_eq!(c.intern_lookup("image/png"), Some(png));
        assert_eq!(c.total(), 3);
        assert_eq!(c.total_of(&c.ids_in("mime:image")), 3);
        assert_eq!(c.total_of(&c.ids_in("mime:image:png")), 1);
        assert_eq!(c.ids_in("mime:audio"), Vec::<u32>::new());
        assert_eq!(
            c.set_specs(),
            ["mime", "mime:image", "mime:image:jpeg", "mime:image:png"]
        );
    }

    impl Catalog {
        fn intern_lookup(&self, mime: &str) -> Option<u32> {
            self.ids.get(mime).copied()
        }
    }
}

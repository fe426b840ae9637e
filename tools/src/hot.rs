//! [`Hot`]: plugin results in memory, bounded by bytes, so the warm `oai_crate` path reads no
//! cache file and checks no tool output again: a page of a hundred records makes a few hundred
//! lookups. What falls out is read from the disk cache again.

use std::sync::Arc;

use quick_cache::sync::Cache;
use quick_cache::Weighter;

use super::cache::Key;
use super::loaded::PluginResult;

/// Bytes of results kept in memory.
const BYTES: u64 = 32 << 20;

/// Results by cache key.
pub(crate) struct Hot(Cache<Key, Arc<PluginResult>, Weight>);

#[derive(Clone)]
pub(crate) struct Weight;

impl Weighter<Key, Arc<PluginResult>> for Weight {
    fn weight(&self, _: &Key, r: &Arc<PluginResult>) -> u64 {
        (std::mem::size_of::<Key>() + r.run.stdout.len() + r.run.stderr.len() + 256) as u64
    }
}

impl Hot {
    pub(crate) fn new() -> Self {
        Hot(Cache::with_weighter(4096, BYTES, Weight))
    }

    pub(crate) fn get(&self, key: &Key) -> Option<Arc<PluginResult>> {
        self.0.get(key)
    }

    /// Keeps `r` (a result as a later request sees it: from the cache) under `key`.
    pub(crate) fn put(&self, key: Key, r: Arc<PluginResult>) {
        self.0.insert(key, r);
    }
}

impl std::fmt::Debug for Hot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hot").field("items", &self.0.len()).finish()
    }
}

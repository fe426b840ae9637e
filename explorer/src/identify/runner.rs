//! [`Runner`]: what identification ([`super::Identifier`]) and the other tools
//! ([`super::MetadataTools`]) share: a plugin table of `modoai_tools` (its resident workers,
//! batches and persistent cache), the counts of its cache hits and runs, and the runtime its
//! batches block on.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use modoai_tools::{PluginObserver, PluginResult, Plugins, Subject};

use super::Payload;

/// Cache lookups and tool runs of a [`Runner`] so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Results found in the cache.
    pub cached: u64,
    /// Payloads a tool ran on.
    pub run: u64,
}

/// Counts cache hits and runs for [`Counts`].
#[derive(Debug, Default)]
struct Counter {
    cached: AtomicU64,
    run: AtomicU64,
}

impl PluginObserver for Counter {
    fn run(&self, _: &str, _: &'static str, _: u64) {
        self.run.fetch_add(1, Ordering::Relaxed);
    }

    fn cache(&self, _: &str, hit: bool) {
        if hit {
            self.cached.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A plugin table run on payloads, its cache hits and runs counted. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Runner {
    plugins: Plugins,
    counter: Arc<Counter>,
    runtime: tokio::runtime::Handle,
}

impl Runner {
    /// `plugins`, counted, its batches run on `runtime`.
    pub(super) fn new(plugins: Plugins, runtime: tokio::runtime::Handle) -> Runner {
        let counter = Arc::new(Counter::default());
        plugins.observe_with(counter.clone());
        Runner {
            plugins,
            counter,
            runtime,
        }
    }

    /// The plugin table.
    pub(super) fn plugins(&self) -> &Plugins {
        &self.plugins
    }

    /// The folder of the cache.
    pub fn cache_dir(&self) -> &Path {
        self.plugins.cache_dir()
    }

    /// Results from the cache and tool runs so far (one per tool and payload).
    pub fn counts(&self) -> Counts {
        Counts {
            cached: self.counter.cached.load(Ordering::Relaxed),
            run: self.counter.run.load(Ordering::Relaxed),
        }
    }

    /// Tool processes started so far.
    pub fn processes_started(&self) -> usize {
        self.plugins.processes_started()
    }

    /// Ends tool runs in progress and stops the workers.
    pub fn shutdown(&self) {
        self.plugins.shutdown();
    }

    /// Every applicable tool's result for each payload. Blocks: not for a runtime thread.
    pub(super) fn rows(&self, payloads: &[Payload]) -> Vec<Vec<Arc<PluginResult>>> {
        let subjects: Vec<Subject> = payloads.iter().map(Payload::subject).collect();
        self.runtime.block_on(self.plugins.analyse(&subjects))
    }

    /// What the cache knows of the payload named `name` (its digest and extension, as
    /// [`Payload::name`]) of type `mime` and `size` bytes, without its bytes: `None` when a
    /// tool has to run on it.
    pub(super) fn lookup(
        &self,
        name: &str,
        mime: &str,
        size: u64,
    ) -> Option<Vec<Arc<PluginResult>>> {
        self.plugins.lookup(&named(name, mime, size))
    }
}

impl Payload {
    /// The payload as the tools see it: named by its digest, no version of a file to tell apart.
    pub(crate) fn subject(&self) -> Subject {
        Subject {
            abs: self.file.clone(),
            ..named(&self.name, &self.mime, self.size)
        }
    }
}

/// A payload known by its name alone (no file: for a cache lookup).
fn named(name: &str, mime: &str, size: u64) -> Subject {
    Subject {
        abs: PathBuf::new(),
        rel: PathBuf::from(name),
        mime: mime.to_owned(),
        size,
        mtime_ns: 0,
        inode: 0,
    }
}

//! Identifying captures that carry no CRATE: their format by Siegfried, the project's default
//! identification tool, run the way the provider runs its tools (`modoai_tools`: resident
//! `modoai-siegfried` workers fed batches, isolated, killable, under a timeout).
//!
//! [`Identifier`] answers for a batch of payloads (temporary files) with a PUID, format name,
//! tool and version each. Results are kept in a persistent cache keyed by the payload's digest
//! and the tool's version (the tools' own cache, `modoai_tools`), so identical payloads are
//! identified once across captures, runs and archives, and a new Siegfried version
//! identifies again. [`Batcher`] gathers the loaded captures of an index build into batches.

mod analyse;
mod batch;
mod tools;

pub use batch::Batcher;
pub use tools::MetadataTools;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use modoai_tools::{PluginObserver, PluginResult, Plugins, PluginsError, Status, Subject};

use crate::capture::siegfried_pronom;

/// The plugin table the explorer identifies with when given none: Siegfried alone, as the
/// provider's `plugins.toml` configures it.
const SIEGFRIED: &str = r#"
[settings]
cache-dir = "identify-cache"

[[plugin]]
label = "siegfried"
mime = "*/*"
command = ["modoai-siegfried", "{paths}"]
version-command = ["modoai-siegfried", "--version"]
runner = "siegfried"
output = "text"
"#;

/// One payload to identify: a file and what names it in the cache.
#[derive(Clone, Debug)]
pub struct Payload {
    /// Where its bytes are (a temporary file).
    pub file: PathBuf,
    /// Its digest and extension (`SHA1BASE32.jpg`): the cache's key with the tool's version
    /// (Siegfried's answer may rest on the extension).
    pub name: String,
    /// Its MIME type.
    pub mime: String,
    /// Its size in bytes.
    pub size: u64,
}

/// What identification found for one payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identified {
    /// The PRONOM PUID (`fmt/43`).
    pub puid: String,
    /// The format's name.
    pub format: String,
    /// The tool (`siegfried`).
    pub tool: String,
    /// The tool's version, as it answered it (`modoai-siegfried --version`: Siegfried's,
    /// its signature file's and pygfried's).
    pub version: String,
}

impl Identified {
    /// Where the finding came from: `explorer, indexed DATE, VERSION` (`siegfried 1.11.9,
    /// default.sig of … (pronom DROID_SignatureFile_V125.xml; …), pygfried 2.2.0`).
    pub fn source(&self, indexed: time::Date) -> String {
        format!("explorer, indexed {indexed}, {}", self.version)
    }
}

/// Cache lookups and tool runs of an [`Identifier`] so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Results found in the cache.
    pub cached: u64,
    /// Payloads a tool ran on.
    pub run: u64,
}

/// Counts cache hits and runs for [`Counts`].
#[derive(Debug, Default)]
pub(crate) struct Counter {
    cached: AtomicU64,
    run: AtomicU64,
}

impl Counter {
    pub(crate) fn counts(&self) -> Counts {
        Counts {
            cached: self.cached.load(Ordering::Relaxed),
            run: self.run.load(Ordering::Relaxed),
        }
    }
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

/// Identifies payloads with Siegfried. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Identifier {
    plugins: Plugins,
    counter: Arc<Counter>,
    runtime: tokio::runtime::Handle,
}

/// Why there is no [`Identifier`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IdentifyError {
    /// The plugin table cannot be used.
    #[error(transparent)]
    Plugins(#[from] PluginsError),
    /// The tool is not installed or does not answer its version.
    #[error("formats are not identified: {0}")]
    Unavailable(String),
}

impl Identifier {
    /// Siegfried, its results cached in `state`'s `identify-cache/`, run on `runtime`. An
    /// [`IdentifyError::Unavailable`] when `modoai-siegfried` is not on `PATH`.
    pub fn siegfried(
        state: &Path,
        runtime: tokio::runtime::Handle,
    ) -> Result<Identifier, IdentifyError> {
        let table = state.join("identify.toml");
        let plugins = runtime.block_on(Plugins::from_text(&table, SIEGFRIED))?;
        if !plugins.all_healthy() {
            return Err(IdentifyError::Unavailable(format!(
                "modoai-siegfried is not installed ({})",
                plugins.health_line()
            )));
        }
        let counter = Arc::new(Counter::default());
        plugins.observe_with(counter.clone());
        Ok(Identifier {
            plugins,
            counter,
            runtime,
        })
    }

    /// The folder of the cache.
    pub fn cache_dir(&self) -> &Path {
        self.plugins.cache_dir()
    }

    /// Cache lookups and runs so far.
    pub fn counts(&self) -> Counts {
        self.counter.counts()
    }

    /// Tool processes started so far.
    pub fn processes_started(&self) -> usize {
        self.plugins.processes_started()
    }

    /// Identifies `payloads` in one batch; `None` for a payload Siegfried could not read or
    /// found no PRONOM match for. Blocks: not for a runtime thread.
    pub fn identify(&self, payloads: &[Payload]) -> Vec<Option<Identified>> {
        let subjects: Vec<Subject> = payloads.iter().map(Payload::subject).collect();
        let results = self.runtime.block_on(self.plugins.analyse(&subjects));
        results.iter().map(|row| identified(row)).collect()
    }

    /// What the cache knows of the payload named `name` (its digest and extension, as
    /// [`Payload::name`]) of type `mime` and `size` bytes, without its bytes: `None` when
    /// Siegfried has to run on it.
    pub fn known(&self, name: &str, mime: &str, size: u64) -> Option<Option<Identified>> {
        let row = self.plugins.lookup(&named(name, mime, size))?;
        Some(identified(&row))
    }

    /// Ends tool runs in progress and stops the workers.
    pub fn shutdown(&self) {
        self.plugins.shutdown();
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

/// Siegfried's answer among one payload's results.
fn identified(row: &[Arc<PluginResult>]) -> Option<Identified> {
    let r = row.iter().find(|r| r.label == "siegfried")?;
    if r.run.status != Status::Ok {
        return None;
    }
    let answer = std::str::from_utf8(&r.run.stdout).ok()?;
    let (puid, format) = siegfried_pronom(answer.trim())?;
    Some(Identified {
        puid,
        format,
        tool: r.label.clone(),
        version: r.version.clone(),
    })
}

#[cfg(test)]
mod tests;

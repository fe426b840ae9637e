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
mod runner;
mod tools;

pub use batch::Batcher;
pub use runner::{Counts, Runner};
pub use tools::MetadataTools;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use modoai_tools::{PluginResult, Plugins, PluginsError, Status};

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

/// Identifies payloads with Siegfried. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Identifier {
    runner: Runner,
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
        Ok(Identifier {
            runner: Runner::new(plugins, runtime),
        })
    }

    /// Its runner: cache, counts, processes, shutdown.
    pub fn runner(&self) -> &Runner {
        &self.runner
    }

    /// Identifies `payloads` in one batch; `None` for a payload Siegfried could not read or
    /// found no PRONOM match for. Blocks: not for a runtime thread.
    pub fn identify(&self, payloads: &[Payload]) -> Vec<Option<Identified>> {
        let rows = self.runner.rows(payloads);
        rows.iter().map(|row| identified(row)).collect()
    }

    /// What the cache knows of the payload named `name` (its digest and extension, as
    /// [`Payload::name`]) of type `mime` and `size` bytes, without its bytes: `None` when
    /// Siegfried has to run on it.
    pub fn known(&self, name: &str, mime: &str, size: u64) -> Option<Option<Identified>> {
        Some(identified(&self.runner.lookup(name, mime, size)?))
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

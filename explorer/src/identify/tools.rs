//! [`MetadataTools`]: the other tools of a `plugins.toml` (`index --tools`: JHOVE, ExifTool,
//! `file`, md5, …), run on the payloads of captures without a CRATE through the same runner as
//! the provider's, their results cached beside identification's, by payload digest and
//! extension and by tool, version and command.

use std::path::Path;
use std::sync::Arc;

use modoai_archive::facts::{xml_fields, PluginFacts};
use modoai_tools::{PluginResult, Plugins, PluginsError};

use super::{Payload, Runner};

/// Characters of a text output kept (a CRATE keeps it all; the index keeps what a page shows).
const TEXT_CHARS: usize = 4096;

/// The tools of a `plugins.toml`, for the explorer. Cheap to clone.
#[derive(Clone, Debug)]
pub struct MetadataTools {
    runner: Runner,
}

impl MetadataTools {
    /// The tools `plugins.toml` at `path` configures, their results cached in `state`'s
    /// `identify-cache/` (not the file's `cache-dir`: the explorer's cache is its own), run on
    /// `runtime`. A tool that is not installed is no error here: its results say `missing`.
    pub fn load(
        path: &Path,
        state: &Path,
        runtime: tokio::runtime::Handle,
    ) -> Result<MetadataTools, PluginsError> {
        let cache = state.join("identify-cache");
        let plugins = runtime.block_on(Plugins::load_with_cache(path, &cache))?;
        Ok(MetadataTools {
            runner: Runner::new(plugins, runtime),
        })
    }

    /// One line on the tools' health: "7 plugins, all healthy", or "7 plugins: 6 healthy, 1
    /// missing (fido)".
    pub fn health_line(&self) -> String {
        self.runner.plugins().health_line()
    }

    /// True if every tool was found and answered its version.
    pub fn all_healthy(&self) -> bool {
        self.runner.plugins().all_healthy()
    }

    /// Its runner: cache, counts, processes, shutdown.
    pub fn runner(&self) -> &Runner {
        &self.runner
    }

    /// Every applicable tool's result for each payload, in `plugins.toml` order. Blocks: not
    /// for a runtime thread.
    pub fn run(&self, payloads: &[Payload]) -> Vec<Vec<PluginFacts>> {
        let rows = self.runner.rows(payloads);
        rows.iter().map(|row| facts_of(row)).collect()
    }

    /// What the cache knows of the payload named `name` (as [`Payload::name`]) of type `mime`
    /// and `size` bytes, without its bytes: `None` when a tool has to run on it.
    pub fn known(&self, name: &str, mime: &str, size: u64) -> Option<Vec<PluginFacts>> {
        Some(facts_of(&self.runner.lookup(name, mime, size)?))
    }
}

/// Each result as a CRATE's `crate:plugin` reads back: XML output as its leaf fields, text
/// output as text.
fn facts_of(row: &[Arc<PluginResult>]) -> Vec<PluginFacts> {
    row.iter().map(|r| plugin_facts(r)).collect()
}

fn plugin_facts(r: &PluginResult) -> PluginFacts {
    let (text, fields) = match &r.xml_root {
        Some(root) => (String::new(), xml_fields(&r.run.stdout[root.clone()])),
        None => {
            let text = std::str::from_utf8(&r.run.stdout)
                .unwrap_or_default()
                .trim();
            (text.chars().take(TEXT_CHARS).collect(), Vec::new())
        }
    };
    PluginFacts {
        label: r.label.clone(),
        version: r.version.clone(),
        status: Some(r.run.status),
        cached: r.cached.to_string(),
        duration_ms: r.run.duration_ms.to_string(),
        note: r.run.note.clone().unwrap_or_default(),
        text,
        fields,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identify::Counts;
    use modoai_protocol::crate_vocab::PluginStatus;

    const TABLE: &str = "[[plugin]]\nlabel = \"md5\"\nmime = \"*/*\"\nbuiltin = \"md5\"\n\n\
        [[plugin]]\nlabel = \"gone\"\nmime = \"text/*\"\ncommand = [\"modoai-no-such-tool\", \
        \"{path}\"]\nversion-command = [\"modoai-no-such-tool\", \"--version\"]\n";

    #[test]
    fn tools_run_once_per_payload_and_a_missing_one_says_so() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let work = tempfile::tempdir().unwrap();
        let table = work.path().join("plugins.toml");
        std::fs::write(&table, TABLE).unwrap();
        let state = work.path().join("state");
        let tools = MetadataTools::load(&table, &state, runtime.handle().clone()).unwrap();
        assert!(!tools.all_healthy(), "{}", tools.health_line());
        assert!(tools.runner().cache_dir().starts_with(&state));
        let file = work.path().join("p");
        std::fs::write(&file, b"a").unwrap();
        let text = Payload {
            file,
            name: "DIGEST.txt".into(),
            mime: "text/plain".into(),
            size: 1,
        };
        let found = tools.run(std::slice::from_ref(&text));
        let [md5, gone] = &found[0][..] else {
            panic!("{found:?}")
        };
        assert_eq!(md5.text, "0cc175b9c0f1b6a831c399e269772661");
        assert_eq!(md5.status, Some(PluginStatus::Ok));
        assert_eq!(gone.status, Some(PluginStatus::Missing), "{gone:?}");
        assert_eq!(tools.runner().counts(), Counts { cached: 0, run: 2 });
        // A missing tool is asked again next time; a binary payload has md5 alone, known.
        assert!(tools.known("DIGEST.txt", "text/plain", 1).is_none());
        let binary = tools.known("DIGEST.txt", "application/octet-stream", 1);
        assert_eq!(binary.map(|f| f.len()), Some(1));
        tools.runner().shutdown();
    }
}

//! The configuration file of `modoai-explorer serve` (`--config FILE`), TOML.
//!
//! ```toml
//! [access]
//! keys = "/srv/explorer/keys.toml"  # default: keys.toml in the state folder
//! anonymous-api = false         # the JSON API without a key
//! public-ui = true              # the UI, Memento and PWID routes without a key
//!
//! [search]
//! budget-ms = 2000              # a search stops collecting after this; the answer says partial
//!
//! [index]
//! refresh-secs = 60             # look for new captures this often (0 = only at start)
//! commit-every = 50000          # captures between two commits of the index
//!
//! [ui]
//! replay = "http://127.0.0.1:8090/my-collection/"   # a pywb collection of the same WARCs
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// The whole file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ServeConfig {
    /// Who may use what.
    #[serde(default)]
    pub access: AccessConfig,
    /// Searches.
    #[serde(default)]
    pub search: SearchConfig,
    /// The index kept current while serving.
    #[serde(default)]
    pub index: IndexConfig,
    /// The pages for people.
    #[serde(default)]
    pub ui: UiConfig,
}

/// `[ui]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct UiConfig {
    /// The base URL of a pywb collection that holds the same WARC files: capture pages link to
    /// its replay, `REPLAY` + `YYYYMMDDhhmmss/` + URL (the explorer does no rewriting). Defaults
    /// to none: no replay links.
    pub replay: Option<String>,
}

/// `[access]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct AccessConfig {
    /// The key file (a relative path is relative to the configuration file's folder). Defaults
    /// to `keys.toml` in the explorer's state folder, where `modoai-explorer keys` writes.
    pub keys: Option<PathBuf>,
    /// Whether the JSON API answers callers without a key. Defaults to false.
    #[serde(default)]
    pub anonymous_api: bool,
    /// Whether the UI, Memento and PWID routes answer callers without a key. Defaults to true.
    #[serde(default = "yes")]
    pub public_ui: bool,
}

impl Default for AccessConfig {
    fn default() -> Self {
        AccessConfig {
            keys: None,
            anonymous_api: false,
            public_ui: true,
        }
    }
}

/// `[search]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SearchConfig {
    /// Milliseconds a search may collect. Defaults to 2000.
    #[serde(default = "budget")]
    pub budget_ms: u64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            budget_ms: budget(),
        }
    }
}

/// `[index]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct IndexConfig {
    /// Seconds between two looks for new captures; 0: only at start. Defaults to 60.
    #[serde(default = "refresh")]
    pub refresh_secs: u64,
    /// Captures between two commits of the index. Defaults to 50000.
    #[serde(default = "commit_every")]
    pub commit_every: usize,
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            refresh_secs: refresh(),
            commit_every: commit_every(),
        }
    }
}

fn yes() -> bool {
    true
}
fn budget() -> u64 {
    2000
}
fn refresh() -> u64 {
    60
}
fn commit_every() -> usize {
    50_000
}

/// A configuration file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong (toml's messages name the line and key).
    pub message: String,
}

impl ServeConfig {
    /// Reads `path`.
    pub fn load(path: &Path) -> Result<ServeConfig, ConfigError> {
        let err = |message: String| ConfigError {
            path: path.to_owned(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
        let mut config: ServeConfig = toml::from_str(&text).map_err(|e| err(e.to_string()))?;
        if config.search.budget_ms == 0 {
            return Err(err("[search] budget-ms must be at least 1".into()));
        }
        if config.index.commit_every == 0 {
            return Err(err("[index] commit-every must be at least 1".into()));
        }
        if let Some(replay) = config.ui.replay.as_mut() {
            if !(replay.starts_with("http://") || replay.starts_with("https://")) {
                return Err(err(format!(
                    "[ui] replay = {replay:?} is not an http:// or https:// URL"
                )));
            }
            if !replay.ends_with('/') {
                replay.push('/');
            }
        }
        if let Some(keys) = &config.access.keys {
            let dir = path.parent().unwrap_or(Path::new("."));
            config.access.keys = Some(dir.join(keys));
        }
        Ok(config)
    }

    /// The search budget.
    pub fn budget(&self) -> Duration {
        Duration::from_millis(self.search.budget_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_mistakes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("explorer.toml");
        std::fs::write(&path, "[access]\nkeys = \"k.toml\"\nanonymous-api = true\n").unwrap();
        let c = ServeConfig::load(&path).unwrap();
        assert!(c.access.anonymous_api && c.access.public_ui);
        assert_eq!(c.access.keys.clone().unwrap(), dir.path().join("k.toml"));
        assert_eq!(c.budget(), Duration::from_secs(2));
        std::fs::write(&path, "[search]\nbudget-ms = 0\n").unwrap();
        assert!(ServeConfig::load(&path)
            .unwrap_err()
            .to_string()
            .contains("budget-ms"));
        std::fs::write(&path, "[ui]\nreplay = \"http://h:8090/c\"\n").unwrap();
        let c = ServeConfig::load(&path).unwrap();
        assert_eq!(c.ui.replay.as_deref(), Some("http://h:8090/c/"));
        std::fs::write(&path, "[ui]\nreplay = \"ftp://h/c/\"\n").unwrap();
        assert!(ServeConfig::load(&path)
            .unwrap_err()
            .to_string()
            .contains("[ui] replay"));
        std::fs::write(&path, "[access]\nanonymous = true\n").unwrap();
        assert!(ServeConfig::load(&path)
            .unwrap_err()
            .to_string()
            .contains("anonymous"));
    }
}

//! The configuration file (`--config FILE`): TOML mirrored by serde structs, one per section.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::ConfigError;
use crate::sets::{resolve_entries, FolderSets, NamedSet, SetEntry};

/// The configuration file (`--config FILE`), TOML. Unknown keys are errors.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct FileConfig {
    /// `[server]`: the standalone server.
    #[serde(default)]
    pub server: ServerSection,
    /// `[oai]`: the OAI-PMH endpoint.
    #[serde(default)]
    pub oai: OaiSection,
    /// `[access]`: who may receive which metadata format (reloaded without restart).
    #[serde(default)]
    pub access: crate::access::AccessSection,
    /// `[flow]`: rate limits and the bound on enhanced responses (reloaded without restart).
    #[serde(default)]
    pub flow: crate::flow::FlowSection,
    /// `[log]`: the access log of the standalone server.
    #[serde(default)]
    pub log: crate::observe::LogSection,
    /// `[metrics]`: Prometheus metrics of the standalone server.
    #[serde(default)]
    pub metrics: crate::observe::MetricsSection,
    /// `[front-doors]`: the HTML view and FAIR Signposting.
    #[serde(default)]
    pub front_doors: crate::doors::FrontDoorsSection,
    /// `[[sets]]`: named sets of files (reloaded without restart).
    #[serde(default)]
    pub sets: Vec<Spanned<SetEntry>>,
    /// The named sets of `sets`, resolved when the file was loaded.
    #[serde(skip)]
    named: Vec<NamedSet>,
}

/// `[server]` of the configuration file.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ServerSection {
    /// The document root.
    pub root: Option<PathBuf>,
    /// Address to listen on, `IP:PORT`.
    pub listen: Option<String>,
    /// Public URL of the document root.
    pub base_url: Option<String>,
    /// The plugins file of oai_crate.
    pub plugins: Option<PathBuf>,
    /// The folder that keeps the site index; see [`Config::state_dir`](crate::Config::state_dir).
    pub state_dir: Option<PathBuf>,
    /// Connections served at once; see [`Config::max_connections`](crate::Config::max_connections).
    pub max_connections: Option<usize>,
    /// Seconds a client may take to send a request's headers; see [`Config::header_timeout`](crate::Config::header_timeout).
    pub header_timeout_secs: Option<u64>,
    /// Seconds in-flight responses get after shutdown is asked for; see
    /// [`Config::shutdown_grace`](crate::Config::shutdown_grace).
    pub grace_secs: Option<u64>,
}

/// `[oai]` of the configuration file; see the [`Config`](crate::Config) methods of the same names.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
#[allow(missing_docs)]
pub struct OaiSection {
    pub route: Option<String>,
    pub oai_base_url: Option<String>,
    pub repository_name: Option<String>,
    pub admin_email: Option<Vec<String>>,
    pub page_size: Option<usize>,
    pub page_bytes: Option<u64>,
    pub inline_max: Option<u64>,
    pub token_ttl_secs: Option<u64>,
    pub token_secret: Option<String>,
    pub rescan_secs: Option<u64>,
    pub watch: Option<bool>,
    pub deleted_records: Option<bool>,
    pub change_log_days: Option<u64>,
    pub folder_sets: Option<FolderSets>,
}

impl FileConfig {
    /// Reads and parses a configuration file. Relative paths in it (`root`, `plugins`,
    /// `access-file`) are taken from the file's folder, as nginx and systemd do, not from the
    /// folder the server was started in.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
            path: path.to_owned(),
            error,
        })?;
        let mut file: FileConfig = toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        file.resolve_paths(path.parent().unwrap_or(Path::new("")));
        file.resolve_sets(path, &text)?;
        Ok(file)
    }

    /// Resolves `[[sets]]` of the file at `path`, whose text is `text`.
    pub(crate) fn resolve_sets(&mut self, path: &Path, text: &str) -> Result<(), ConfigError> {
        self.named = resolve_entries(&self.sets, path, text)?;
        Ok(())
    }

    /// The named sets of `[[sets]]`, resolved.
    pub fn named_sets(&self) -> &[NamedSet] {
        &self.named
    }

    /// Makes the file's relative paths relative to `folder` instead.
    fn resolve_paths(&mut self, folder: &Path) {
        let paths = [
            &mut self.server.root,
            &mut self.server.plugins,
            &mut self.server.state_dir,
            &mut self.log.access_file,
        ];
        for path in paths.into_iter().flatten() {
            if path.is_relative() {
                *path = folder.join(&*path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_taken_from_the_files_folder() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("etc/modoai.toml");
        std::fs::create_dir(dir.path().join("etc")).unwrap();
        let text = "[server]\nroot = \"site\"\nplugins = \"/abs/plugins.toml\"\n\
                    [log]\naccess-file = \"../log/access.log\"\n";
        std::fs::write(&conf, text).unwrap();
        let file = FileConfig::load(&conf).unwrap();
        assert_eq!(file.server.root, Some(dir.path().join("etc/site")));
        assert_eq!(
            file.server.plugins,
            Some(PathBuf::from("/abs/plugins.toml"))
        );
        let log = dir.path().join("etc/../log/access.log");
        assert_eq!(file.log.access_file, Some(log));
    }

    #[test]
    fn file_rejects_unknown_keys() {
        let err = toml::from_str::<FileConfig>("[oai]\npage-sise = 3\n").unwrap_err();
        assert!(err.to_string().contains("page-sise"), "{err}");
    }
}

//! [`Config`]: the settings shared by the Layer and the standalone server, built with consuming
//! setters that state their defaults.

use std::path::{Path, PathBuf};
use std::time::Duration;

use http::Uri;

use super::validate::{is_admin_email, parse_base_url};
use super::ConfigError;

/// What modoai needs to expose a document root over OAI-PMH.
///
/// ```
/// let config = modoai::Config::new("examples/site", "http://www.example.org/")?
///     .repository_name("Example site")
///     .admin_email("webmaster@example.org")?
///     .page_size(50);
/// assert_eq!(config.oai_base_url(), "http://www.example.org/modoai");
/// # Ok::<(), modoai::ConfigError>(())
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Config {
    pub(crate) root: PathBuf,
    pub(crate) base_url: Uri,
    pub(crate) route: String,
    pub(crate) oai_base_url: Option<String>,
    pub(crate) repository_name: String,
    pub(crate) admin_emails: Vec<String>,
    pub(crate) page_size: usize,
    pub(crate) page_bytes: u64,
    pub(crate) inline_max: u64,
    pub(crate) token_ttl: Duration,
    pub(crate) token_secret: Option<Vec<u8>>,
    pub(crate) rescan_interval: Duration,
    pub(crate) watch: bool,
    pub(crate) deleted_records: bool,
    pub(crate) change_log_retention: Duration,
    pub(crate) plugins: Option<crate::Plugins>,
    pub(crate) policy: crate::Policy,
    pub(crate) max_connections: usize,
    pub(crate) header_timeout: Duration,
    pub(crate) shutdown_grace: Duration,
    pub(crate) observation: crate::observe::Observation,
    pub(crate) own_paths: Vec<(crate::OwnKind, PathBuf)>,
    pub(crate) doors: crate::doors::Doors,
    pub(crate) state_dir: Option<PathBuf>,
    /// The folder and named sets, shared with the reloader and the index.
    pub(crate) sets: crate::sets::SiteSets,
    /// True for the standalone server: the index types files itself instead of asking the site.
    pub(crate) standalone: bool,
}

impl Config {
    /// Serves the files under `root` (a relative root is taken from the current directory),
    /// which the site publishes at `base_url`.
    pub fn new(root: impl Into<PathBuf>, base_url: &str) -> Result<Self, ConfigError> {
        let base = parse_base_url(base_url)?;
        let host = base.host().unwrap_or("localhost").to_owned();
        // Absolute, so that the tools, which run in their own folder, find the files too.
        let root = root.into();
        let root = std::path::absolute(&root).unwrap_or(root);
        Ok(Config {
            root,
            base_url: base,
            route: "/modoai".to_owned(),
            oai_base_url: None,
            repository_name: format!("modoai repository of {host}"),
            admin_emails: vec!["webmaster@example.org".to_owned()],
            page_size: 100,
            page_bytes: 50_000_000,
            inline_max: 7 * 1024 * 1024,
            token_ttl: Duration::from_secs(24 * 3600),
            token_secret: None,
            rescan_interval: Duration::from_secs(300),
            watch: true,
            deleted_records: true,
            change_log_retention: Duration::from_secs(365 * 24 * 3600),
            plugins: None,
            policy: crate::Policy::default(),
            max_connections: 1024,
            header_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(10),
            observation: crate::observe::Observation::default(),
            own_paths: Vec::new(),
            doors: crate::doors::Doors::default(),
            state_dir: None,
            sets: crate::sets::SiteSets::default(),
            standalone: false,
        })
    }

    /// The request path the layer answers. Defaults to `/modoai`.
    pub fn route(mut self, route: &str) -> Result<Self, ConfigError> {
        if !route.starts_with('/') || (route.len() > 1 && route.ends_with('/')) || route.len() == 1
        {
            return Err(ConfigError::Route(route.to_owned()));
        }
        self.route = route.to_owned();
        Ok(self)
    }

    /// The baseURL harvesters use, when a proxy makes it differ from the site's origin plus the
    /// route. Defaults to the origin of the base URL followed by the route.
    pub fn oai_base_url(&self) -> String {
        self.oai_base_url.clone().unwrap_or_else(|| {
            let origin = format!(
                "{}://{}",
                self.base_url.scheme_str().unwrap_or("http"),
                self.base_url.authority().map_or("", |a| a.as_str())
            );
            format!("{origin}{}", self.route)
        })
    }

    /// Sets the baseURL harvesters use (see [`Config::oai_base_url`]).
    pub fn with_oai_base_url(mut self, url: &str) -> Result<Self, ConfigError> {
        let parsed = parse_base_url(url)?;
        if url.ends_with('/') && parsed.path() != "/" {
            return Err(ConfigError::BaseUrl(url.to_owned()));
        }
        self.oai_base_url = Some(url.to_owned());
        Ok(self)
    }

    /// Identify's repositoryName. Defaults to "modoai repository of HOST".
    pub fn repository_name(mut self, name: impl Into<String>) -> Self {
        self.repository_name = name.into();
        self
    }

    /// Sets Identify's only adminEmail. Defaults to `webmaster@example.org`.
    pub fn admin_email(mut self, email: &str) -> Result<Self, ConfigError> {
        self.admin_emails.clear();
        self.add_admin_email(email)
    }

    /// Adds an adminEmail; it must pass the official validator's pattern.
    pub fn add_admin_email(mut self, email: &str) -> Result<Self, ConfigError> {
        if !is_admin_email(email) {
            return Err(ConfigError::AdminEmail(email.to_owned()));
        }
        self.admin_emails.push(email.to_owned());
        Ok(self)
    }

    /// Records (or headers, or sets) per list page. Defaults to 100.
    ///
    /// # Panics
    ///
    /// If `n` is zero.
    pub fn page_size(mut self, n: usize) -> Self {
        assert!(n > 0, "page size must be at least 1");
        self.page_size = n;
        self
    }

    /// A ListRecords page closes before it would exceed this many bytes of Base64 payload
    /// (estimated from file sizes); a page always holds at least one record. Defaults to 50 MB,
    /// half of the 100 MB the official validator accepts.
    ///
    /// # Panics
    ///
    /// If `n` is zero.
    pub fn page_bytes(mut self, n: u64) -> Self {
        assert!(n > 0, "page bytes must be at least 1");
        self.page_bytes = n;
        self
    }

    /// Files larger than this are given by reference only in `oai_didl`. Defaults to 7 MiB, whose
    /// Base64 stays under libxml2's 10,000,000-character limit for one text node, which lxml-based
    /// harvesters such as Sickle hit otherwise. Zero gives every file by reference only.
    pub fn inline_max(mut self, bytes: u64) -> Self {
        self.inline_max = bytes;
        self
    }

    /// How long a resumption token stays valid, in whole seconds. Defaults to 24 hours.
    ///
    /// # Panics
    ///
    /// If `ttl` is under one second.
    pub fn token_ttl(mut self, ttl: Duration) -> Self {
        assert!(ttl.as_secs() > 0, "token TTL must be at least 1 second");
        self.token_ttl = ttl;
        self
    }

    /// The secret that signs resumption tokens. Defaults to a random secret per process, so
    /// tokens do not survive a restart; set one to keep them valid across restarts.
    pub fn token_secret(mut self, secret: impl Into<Vec<u8>>) -> Self {
        self.token_secret = Some(secret.into());
        self
    }

    /// How often the whole root is rescanned to catch changes the watcher missed. Defaults to 5
    /// minutes.
    ///
    /// # Panics
    ///
    /// If `every` is zero.
    pub fn rescan_interval(mut self, every: Duration) -> Self {
        assert!(!every.is_zero(), "rescan interval must not be zero");
        self.rescan_interval = every;
        self
    }

    /// Whether to follow file-system events (inotify). Defaults to true.
    pub fn watch(mut self, on: bool) -> Self {
        self.watch = on;
        self
    }

    /// Whether deleted files are reported as deleted records (`status="deleted"`) rather than
    /// forgotten (`deletedRecord` = `no`). With a state folder ([`Config::state_dir`]) they are
    /// kept across restarts (`persistent`); without one, only while the server runs
    /// (`transient`). Defaults to true.
    pub fn deleted_records(mut self, on: bool) -> Self {
        self.deleted_records = on;
        self
    }

    /// How long the change log keeps a change (what ResourceSync Change Lists and
    /// [`OaiPmh::changes`](crate::OaiPmh::changes) list); older changes are removed in the
    /// background, and the lists say from when their history is kept. The records and their
    /// deletions are not affected. Defaults to 365 days.
    ///
    /// # Panics
    ///
    /// If `keep` is zero.
    pub fn change_log_retention(mut self, keep: Duration) -> Self {
        assert!(!keep.is_zero(), "change log retention must not be zero");
        self.change_log_retention = keep;
        self
    }

    /// The folder that keeps the site index across restarts (each document root gets its own
    /// subfolder in it): the records, their datestamps, deletions and changes. It is one of the
    /// server's own paths, never a record. Without it the index is kept in a temporary folder and
    /// rebuilt at every start, and deletions are forgotten at restart. Defaults to none (the
    /// `modoai serve` command always sets one; see its `--state-dir`).
    pub fn state_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        self.state_dir = Some(std::path::absolute(&dir).unwrap_or(dir));
        self
    }

    /// The state folder, if any.
    pub fn state(&self) -> Option<&Path> {
        self.state_dir.as_deref()
    }

    /// The metadata tools of `oai_crate`. Without them the repository does not offer `oai_crate`.
    /// The plugins file and the plugin cache are never records, even inside the root (see
    /// [`Config::own_path`]).
    pub fn plugins(mut self, plugins: crate::Plugins) -> Self {
        self.plugins = Some(plugins);
        self
    }

    /// A file or folder of the application's own (a configuration file, a state folder) that
    /// must never be a record, be served by the standalone server, or be analysed by a tool, even
    /// when it lies inside the document root. The plugins file, the plugin cache and the access
    /// log file are such paths without being named here. Defaults to none.
    ///
    /// ```
    /// # let site = tempfile::tempdir()?;
    /// let config = modoai::Config::new(site.path(), "http://www.example.org/")?
    ///     .own_path(site.path().join("state"));
    /// let own = config.own_files();
    /// let root = std::fs::canonicalize(site.path())?;
    /// assert!(own.find(&root.join("state/index.db")).is_some());
    /// assert!(own.find(&root.join("index.html")).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn own_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.own_paths.push((crate::OwnKind::Other, path.into()));
        self
    }

    /// The configuration file the settings came from: one of the server's own paths.
    #[cfg(feature = "cli")]
    pub(crate) fn config_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.own_paths.push((crate::OwnKind::Config, path.into()));
        self
    }

    /// The metadataPrefixes offered: `oai_dc` and `oai_didl`, and `oai_crate` with plugins.
    pub fn formats(&self) -> Vec<&'static str> {
        crate::formats::Format::available(self.plugins.is_some())
            .map(crate::formats::Format::prefix)
            .collect()
    }

    /// Every path of the server's own ([`Config::own_path`]), resolved now.
    pub fn own_files(&self) -> crate::OwnFiles {
        use crate::OwnKind;
        let mut own = crate::OwnFiles::default();
        for (kind, path) in &self.own_paths {
            own.add(*kind, path);
        }
        if let Some(plugins) = &self.plugins {
            own.add(OwnKind::Plugins, plugins.path());
            own.add(OwnKind::PluginCache, plugins.cache_dir());
        }
        if let Some(path) = &self.observation.access_file {
            own.add(OwnKind::AccessLog, path);
        }
        if let Some(path) = &self.state_dir {
            own.add(OwnKind::State, path);
        }
        own
    }

    /// Standalone server: connections served at once. Beyond it the server stops accepting (the
    /// kernel's listen backlog holds new connections) until one closes. Defaults to 1024.
    ///
    /// # Panics
    ///
    /// If `n` is zero.
    pub fn max_connections(mut self, n: usize) -> Self {
        assert!(n > 0, "max connections must be at least 1");
        self.max_connections = n;
        self
    }

    /// Standalone server: how long a client may take to send a request's headers, counted from
    /// the connection's start or from the end of the previous response (so it also bounds idle
    /// keep-alive connections); then the connection is closed. Defaults to 30 seconds.
    ///
    /// # Panics
    ///
    /// If `t` is zero.
    pub fn header_timeout(mut self, t: Duration) -> Self {
        assert!(!t.is_zero(), "header timeout must not be zero");
        self.header_timeout = t;
        self
    }

    /// Standalone server: how long in-flight responses may take to finish once shutdown is asked
    /// for; then their connections are closed and their tool processes killed. Zero closes them
    /// at once. Defaults to 10 seconds.
    pub fn shutdown_grace(mut self, t: Duration) -> Self {
        self.shutdown_grace = t;
        self
    }

    /// Which folders of the site are sets ([`FolderSets`](crate::sets::FolderSets)). A change
    /// moves the datestamp of every record whose sets it changes. Defaults to every folder.
    pub fn folder_sets(self, folders: crate::sets::FolderSets) -> Self {
        let current = self.sets.current();
        let named = current.named().to_vec();
        let defs = crate::sets::Definitions::new(folders, named)
            .expect("sets already checked together stay valid with another folder setting");
        self.sets.replace(defs);
        self
    }

    /// The named sets of the site, replacing those set before; an error for sets that cannot
    /// work together (a spec twice, a parent missing, a set that includes nothing). A change
    /// moves the datestamp of every record whose sets it changes. Defaults to none.
    pub fn named_sets(self, sets: Vec<crate::sets::NamedSet>) -> Result<Self, ConfigError> {
        let defs = crate::sets::Definitions::new(self.sets.current().folders, sets)?;
        self.sets.replace(defs);
        Ok(self)
    }

    /// The document root.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "page size must be at least 1")]
    fn a_zero_page_size_panics() {
        let _ = Config::new("r", "http://h/").unwrap().page_size(0);
    }

    #[test]
    #[should_panic(expected = "max connections must be at least 1")]
    fn zero_connections_panic() {
        let _ = Config::new("r", "http://h/").unwrap().max_connections(0);
    }
}

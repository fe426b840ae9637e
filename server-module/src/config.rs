//! Settings shared by the Layer and the standalone server, and the TOML file that sets them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use http::Uri;
use serde::Deserialize;

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
    pub(crate) plugins: Option<crate::Plugins>,
    pub(crate) policy: crate::Policy,
    pub(crate) max_connections: usize,
    pub(crate) header_timeout: Duration,
    pub(crate) shutdown_grace: Duration,
}

/// A setting that cannot work.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The base URL is not an absolute http(s) URL without query.
    #[error(
        "base URL {0:?} must be an absolute http:// or https:// URL without query or fragment"
    )]
    BaseUrl(String),
    /// The route does not start with `/` or ends with one.
    #[error("route {0:?} must start with '/' and not end with one")]
    Route(String),
    /// The official validator refuses this address.
    #[error("admin e-mail {0:?} is not an address harvesters accept (name@domain.tld)")]
    AdminEmail(String),
    /// A number out of range.
    #[error("{0} must be at least 1")]
    Zero(&'static str),
    /// The configuration file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An `[access]` section (or access rules) that cannot work.
    #[error(transparent)]
    Access(#[from] crate::access::AccessError),
    /// A `[flow]` section (or flow limits) that cannot work.
    #[error(transparent)]
    Flow(#[from] crate::flow::FlowError),
    /// The configuration file is not valid TOML for modoai.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// toml's message, naming the line and key.
        message: String,
    },
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
            plugins: None,
            policy: crate::Policy::default(),
            max_connections: 1024,
            header_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(10),
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
    pub fn page_size(mut self, n: usize) -> Self {
        self.page_size = n.max(1);
        self
    }

    /// A ListRecords page closes before it would exceed this many bytes of Base64 payload
    /// (estimated from file sizes); a page always holds at least one record. Defaults to 50 MB,
    /// half of the 100 MB the official validator accepts.
    pub fn page_bytes(mut self, n: u64) -> Self {
        self.page_bytes = n.max(1);
        self
    }

    /// Files larger than this are given by reference only in `oai_didl`. Defaults to 7 MiB, whose
    /// Base64 stays under libxml2's 10,000,000-character limit for one text node, which lxml-based
    /// harvesters such as Sickle hit otherwise.
    pub fn inline_max(mut self, bytes: u64) -> Self {
        self.inline_max = bytes;
        self
    }

    /// How long a resumption token stays valid. Defaults to 24 hours.
    pub fn token_ttl(mut self, ttl: Duration) -> Self {
        self.token_ttl = ttl;
        self
    }

    /// The secret that signs resumption tokens. Defaults to a random secret per process, so
    /// tokens do not survive a restart; set one to keep them valid across restarts.
    pub fn token_secret(mut self, secret: impl Into<Vec<u8>>) -> Self {
        self.token_secret = Some(secret.into());
        self
    }

    /// How often the whole root is rescanned to catch changes the watcher missed. Defaults to 5 minutes.
    pub fn rescan_interval(mut self, every: Duration) -> Self {
        self.rescan_interval = every.max(Duration::from_secs(1));
        self
    }

    /// Whether to follow file-system events (inotify). Defaults to true.
    pub fn watch(mut self, on: bool) -> Self {
        self.watch = on;
        self
    }

    /// Whether files deleted while the server runs are reported as deleted records
    /// (`deletedRecord` = `transient`) rather than forgotten (`no`). Defaults to true.
    pub fn deleted_records(mut self, on: bool) -> Self {
        self.deleted_records = on;
        self
    }

    /// The metadata tools of `oai_crate`. Without them the repository does not offer `oai_crate`.
    pub fn plugins(mut self, plugins: crate::Plugins) -> Self {
        self.plugins = Some(plugins);
        self
    }

    /// Standalone server: connections served at once. Beyond it the server stops accepting (the
    /// kernel's listen backlog holds new connections) until one closes. Defaults to 1024.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
        self
    }

    /// Standalone server: how long a client may take to send a request's headers, counted from
    /// the connection's start or from the end of the previous response (so it also bounds idle
    /// keep-alive connections); then the connection is closed. Defaults to 30 seconds.
    pub fn header_timeout(mut self, t: Duration) -> Self {
        self.header_timeout = t.max(Duration::from_millis(1));
        self
    }

    /// Standalone server: how long in-flight responses may take to finish once shutdown is asked
    /// for; then their connections are closed and their tool processes killed. Defaults to 10
    /// seconds.
    pub fn shutdown_grace(mut self, t: Duration) -> Self {
        self.shutdown_grace = t;
        self
    }

    /// Applies the limits of a `[server]` section; absent ones stay as they are.
    pub fn apply_server(mut self, server: &ServerSection) -> Result<Self, ConfigError> {
        if let Some(n) = server.max_connections {
            if n == 0 {
                return Err(ConfigError::Zero("max-connections"));
            }
            self = self.max_connections(n);
        }
        if let Some(s) = server.header_timeout_secs {
            if s == 0 {
                return Err(ConfigError::Zero("header-timeout-secs"));
            }
            self = self.header_timeout(Duration::from_secs(s));
        }
        if let Some(s) = server.grace_secs {
            self = self.shutdown_grace(Duration::from_secs(s));
        }
        Ok(self)
    }

    /// The document root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Applies the settings given in an `[oai]` section (or the same settings from elsewhere,
    /// such as command-line flags); absent ones stay as they are.
    pub fn apply(mut self, oai: &OaiSection) -> Result<Self, ConfigError> {
        if let Some(r) = &oai.route {
            self = self.route(r)?;
        }
        if let Some(u) = &oai.oai_base_url {
            self = self.with_oai_base_url(u)?;
        }
        if let Some(n) = &oai.repository_name {
            self = self.repository_name(n.clone());
        }
        if let Some(emails) = &oai.admin_email {
            self.admin_emails.clear();
            for e in emails {
                self = self.add_admin_email(e)?;
            }
        }
        if let Some(n) = oai.page_size {
            self = self.page_size(n);
        }
        if let Some(n) = oai.page_bytes {
            self = self.page_bytes(n);
        }
        if let Some(n) = oai.inline_max {
            self = self.inline_max(n);
        }
        if let Some(s) = oai.token_ttl_secs {
            self = self.token_ttl(Duration::from_secs(s));
        }
        if let Some(s) = &oai.token_secret {
            self = self.token_secret(s.as_bytes().to_vec());
        }
        if let Some(s) = oai.rescan_secs {
            self = self.rescan_interval(Duration::from_secs(s));
        }
        if let Some(w) = oai.watch {
            self = self.watch(w);
        }
        if let Some(d) = oai.deleted_records {
            self = self.deleted_records(d);
        }
        Ok(self)
    }
}

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
    /// Connections served at once; see [`Config::max_connections`].
    pub max_connections: Option<usize>,
    /// Seconds a client may take to send a request's headers; see [`Config::header_timeout`].
    pub header_timeout_secs: Option<u64>,
    /// Seconds in-flight responses get after shutdown is asked for; see
    /// [`Config::shutdown_grace`].
    pub grace_secs: Option<u64>,
}

/// `[oai]` of the configuration file; see the [`Config`] methods of the same names.
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
}

impl FileConfig {
    /// Reads and parses a configuration file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        })
    }
}

fn parse_base_url(url: &str) -> Result<Uri, ConfigError> {
    let bad = || ConfigError::BaseUrl(url.to_owned());
    let uri: Uri = url.parse().map_err(|_| bad())?;
    let http = matches!(uri.scheme_str(), Some("http" | "https"));
    if !http || uri.authority().is_none() || uri.query().is_some() || url.contains('#') {
        return Err(bad());
    }
    Ok(uri)
}

/// The official validator's pattern: `^\w[\w\-\.]+@[a-zA-Z0-9\-\.]+\.[a-z]{2,}$`, and no `@localhost`.
fn is_admin_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let local_ok = local.chars().count() >= 2
        && local.chars().next().is_some_and(word)
        && local.chars().all(|c| word(c) || c == '-' || c == '.');
    let Some((host, tld)) = domain.rsplit_once('.') else {
        return false;
    };
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    local_ok && host_ok && tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admin_emails() {
        for ok in [
            "webmaster@example.org",
            "a.b-c@mail.example.co.uk",
            "ab@x.io",
        ] {
            assert!(is_admin_email(ok), "{ok}");
        }
        for bad in [
            "a@example.org",
            "root@localhost",
            "mailto:ab@example.org",
            "ab@example.ORG",
            "ab@.org",
            "ab example@x.org",
        ] {
            assert!(!is_admin_email(bad), "{bad}");
        }
    }

    #[test]
    fn base_urls() {
        assert!(Config::new("r", "http://h:8080/").is_ok());
        assert!(Config::new("r", "ftp://h/").is_err());
        assert!(Config::new("r", "/relative").is_err());
        assert!(Config::new("r", "http://h/?q=1").is_err());
        let c = Config::new("r", "https://h.example/site/")
            .unwrap()
            .route("/oai")
            .unwrap();
        assert_eq!(c.oai_base_url(), "https://h.example/oai");
    }

    #[test]
    fn file_rejects_unknown_keys() {
        let err = toml::from_str::<FileConfig>("[oai]\npage-sise = 3\n").unwrap_err();
        assert!(err.to_string().contains("page-sise"), "{err}");
    }
}

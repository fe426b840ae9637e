//! [`ConfigError`]: a setting that cannot work, naming the file and key where there is one.

use std::path::PathBuf;

/// A setting that cannot work.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
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
    /// A count, size or time where zero makes no sense is zero (the key names it).
    #[error("{0} must be at least 1")]
    Zero(&'static str),
    /// The configuration file could not be read.
    // The cause is part of the message and not a `source()`, so that a report of the chain
    // does not print it twice.
    #[error("cannot read {path}: {error}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
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
    /// A `[[sets]]` entry that cannot work.
    #[error("{}:{line}: {key} of [[sets]]: {error}", path.display())]
    Set {
        /// The file.
        path: PathBuf,
        /// The line of the key.
        line: usize,
        /// The key.
        key: &'static str,
        /// What is wrong.
        error: crate::sets::SetError,
    },
    /// Named sets given in code that cannot work together.
    #[error(transparent)]
    Sets(#[from] crate::sets::SetError),
    /// `listen` of `[metrics]` is not an address.
    #[error("listen = {0:?} of [metrics] is not an IP:PORT address (e.g. \"127.0.0.1:9464\")")]
    MetricsListen(String),
}

//! [`CliError`]: why a command of the binary stopped, and the exit code that says so.

use std::io;

use crate::{ConfigError, PluginsError};

/// Why a command stopped. [`CliError::exit_code`] sorts it by the binary's one policy: 2 when
/// the arguments or configuration are bad and nothing was done, 1 when the command ran and
/// failed at run time, 3 when it ran to the end but found problems it reports.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// A setting or the configuration file is bad.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The plugins file is bad.
    #[error(transparent)]
    Plugins(#[from] PluginsError),
    /// An argument is bad (its message says which).
    #[error("{0}")]
    Usage(String),
    /// An argument that names something on disk cannot be used.
    #[error("{context}")]
    Argument {
        /// What was looked at.
        context: String,
        /// Why it cannot be used.
        source: io::Error,
    },
    /// A bad value given on standard input.
    #[error(transparent)]
    Secret(#[from] crate::access::SecretError),
    /// The command failed while it ran (a port in use, a failed read).
    #[error("{context}")]
    Runtime {
        /// What failed.
        context: String,
        /// Why.
        source: io::Error,
    },
    /// Some plugins are missing or broken; the report above says which.
    #[error("some plugins are missing or broken")]
    Unhealthy,
}

impl CliError {
    /// 1 for a failure at run time, 2 for bad usage or configuration (nothing was done), 3 for
    /// a command that ran but reports problems.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Runtime { .. } => 1,
            CliError::Unhealthy => 3,
            CliError::Config(_)
            | CliError::Plugins(_)
            | CliError::Usage(_)
            | CliError::Argument { .. }
            | CliError::Secret(_) => 2,
        }
    }

    /// A run-time failure while doing `context`.
    pub(crate) fn runtime(context: impl Into<String>) -> impl FnOnce(io::Error) -> Self {
        let context = context.into();
        move |source| CliError::Runtime { context, source }
    }
}

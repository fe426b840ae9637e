//! [`CliError`]: why a command of the binary stopped, and the exit code that says so.

use std::io;

use modoai_cli::{Exit, ManualError};

use crate::{ConfigError, PluginsError};

/// Why a command stopped. [`CliError::exit`] sorts it by the programs' one policy: 2 when the
/// arguments or configuration are bad and nothing was done, 1 when the command ran and failed at
/// run time, 3 when it ran to the end but found problems it reports.
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
    /// `completions` or `man` failed.
    #[error(transparent)]
    Manual(#[from] ManualError),
}

impl CliError {
    /// [`Exit::Failed`] for a failure at run time, [`Exit::Usage`] for bad usage or
    /// configuration (nothing was done), [`Exit::Problems`] for a command that ran but reports
    /// problems.
    pub fn exit(&self) -> Exit {
        match self {
            CliError::Runtime { .. } => Exit::Failed,
            CliError::Unhealthy => Exit::Problems,
            CliError::Manual(e) => e.exit(),
            CliError::Config(_)
            | CliError::Plugins(_)
            | CliError::Usage(_)
            | CliError::Argument { .. }
            | CliError::Secret(_) => Exit::Usage,
        }
    }

    /// The exit of `cause` if it is a [`CliError`]: the `classify` of [`modoai_cli::finish`].
    pub fn classify(cause: &(dyn std::error::Error + 'static)) -> Option<Exit> {
        cause.downcast_ref::<CliError>().map(CliError::exit)
    }

    /// A run-time failure while doing `context`.
    pub(crate) fn runtime(context: impl Into<String>) -> impl FnOnce(io::Error) -> Self {
        let context = context.into();
        move |source| CliError::Runtime { context, source }
    }
}

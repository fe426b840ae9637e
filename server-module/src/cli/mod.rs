//! The `modoai` command line: its arguments, the commands behind them, and the exit code each
//! outcome maps to. The binary only parses, runs one command and exits with [`CliError::exit`];
//! what the three programs share (the exit codes, the error report, logging, completions and
//! manual pages) is in `modoai-cli`.

mod args;
mod error;
mod help;
mod plugins;
mod records;
mod secret;
mod serve;

pub use args::{Cli, Command, HashSecretArgs, PluginsCommand, RecordsArgs, ServeArgs};
pub use error::CliError;
pub use plugins::{plugins, CheckReport};
pub use records::{records, RecordLine};
pub use secret::hash_secret;
pub use serve::serve;

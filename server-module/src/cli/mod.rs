//! The `modoai` command line: its arguments, the commands behind them, and the exit code each
//! outcome maps to. The binary only parses, runs one command and exits with
//! [`CliError::exit_code`].

mod args;
mod colours;
mod error;
mod plugins;
mod secret;
mod serve;

pub use args::{Cli, Command, HashSecretArgs, PluginsCommand, ServeArgs};
pub use colours::colours;
pub use error::CliError;
pub use plugins::plugins;
pub use secret::hash_secret;
pub use serve::serve;

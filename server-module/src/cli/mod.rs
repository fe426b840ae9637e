//! The `modoai` command line: its arguments, the commands behind them, and the exit code each
//! outcome maps to. The binary only parses, runs one command and exits with
//! [`CliError::exit_code`].

mod args;
mod colours;
mod error;
mod help;
mod manual;
mod plugins;
mod records;
mod secret;
mod serve;

pub use args::{
    Cli, Command, CompletionsArgs, HashSecretArgs, ManArgs, PluginsCommand, RecordsArgs, ServeArgs,
};
pub use colours::colours;
pub use error::CliError;
pub use manual::{completions, man};
pub use plugins::{plugins, CheckReport};
pub use records::{records, RecordLine};
pub use secret::hash_secret;
pub use serve::serve;

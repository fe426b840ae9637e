//! What the command lines of `modoai`, `modoai-harvester` and `modoai-explorer` share: the exit
//! codes ([`Exit`]), how a failed command reports and ends ([`finish`]), the log output
//! ([`init_logging`]), and the `completions` and `man` commands.
//!
//! ```
//! use clap::{CommandFactory, Parser, Subcommand};
//! use modoai_cli::{exit_of, usage, CompletionsArgs, Exit};
//!
//! /// A program with one command and shell completions.
//! #[derive(Parser)]
//! #[command(name = "tool", after_help = Exit::help(&[(Exit::Done, "done"), (Exit::Usage, "bad usage")]))]
//! struct Cli {
//!     #[command(subcommand)]
//!     command: Command,
//! }
//!
//! #[derive(Subcommand)]
//! enum Command {
//!     /// Print N.
//!     Count { n: u32 },
//!     /// Print the completion script.
//!     Completions(CompletionsArgs),
//! }
//!
//! fn run(cli: Cli) -> anyhow::Result<Exit> {
//!     match cli.command {
//!         Command::Count { n: 0 } => Err(usage("N must be at least 1")),
//!         Command::Count { n } => {
//!             println!("{n}");
//!             Ok(Exit::Done)
//!         }
//!         Command::Completions(args) => {
//!             modoai_cli::completions(Cli::command(), &args)?;
//!             Ok(Exit::Done)
//!         }
//!     }
//! }
//!
//! let error = run(Cli::parse_from(["tool", "count", "0"])).unwrap_err();
//! assert_eq!(exit_of(&error, |_| None), Exit::Usage);
//! // In `main`, `modoai_cli::finish("tool", run(Cli::parse()), |_| None)` prints
//! // `tool: error: N must be at least 1` on standard error and exits with 2.
//! ```

mod exit;
mod logging;
mod manual;
mod report;

pub use exit::Exit;
pub use logging::{colours, init_logging, quiet_filter};
pub use manual::{
    completions, completions_help, man, man_help, man_page, man_pages, CompletionsArgs, ManArgs,
    ManualError,
};
pub use report::{exit_of, finish, is_broken_pipe, report, usage, Usage};

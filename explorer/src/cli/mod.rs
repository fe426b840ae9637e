//! The command line of `modoai-explorer`: `index`, `serve`, `keys`, `corpus`.

mod corpus;
mod index;
mod keys;
mod progress;
mod serve;
mod state;

use std::error::Error as StdError;
use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand};
use modoai_cli::{completions_help, man_help, usage, CompletionsArgs, Exit, ManArgs};

/// The program's name, as its messages begin.
pub const PROGRAM: &str = "modoai-explorer";

/// The exit codes, as `--help` lists them: the policy of the three programs (`modoai-cli`), as
/// the explorer uses it.
fn exit_codes() -> String {
    Exit::help(&[
        (Exit::Done, "done"),
        (
            Exit::Failed,
            "the command ran but failed (an archive could not be read, the address is in use, …)",
        ),
        (
            Exit::Usage,
            "bad usage, arguments or configuration: nothing was done",
        ),
        (
            Exit::Problems,
            "corpus verify: parts of the corpus are missing or changed (each listed)",
        ),
        (
            Exit::Interrupted,
            "interrupted by Ctrl-C (SIGINT) or SIGTERM: what was indexed is kept; run the same\n\
             command again to continue",
        ),
    ])
}

const EXAMPLES: &str = "\
Examples:
  modoai-explorer index --archive my-archive
  modoai-explorer serve --archive my-archive --listen 127.0.0.1:8091
  modoai-explorer keys add alice --quota 1000/hour --rate 5/s --allow host:example.org
  modoai-explorer corpus verify export.corpus.xml --archive my-archive
  modoai-explorer completions bash > ~/.local/share/bash-completion/completions/modoai-explorer
  modoai-explorer man | man -l -";

/// Search, facets, a JSON API with keys and Memento over modoai-harvester archives.
#[derive(Debug, Parser)]
#[command(name = "modoai-explorer", version, about, after_help = format!("{EXAMPLES}\n\n{}", exit_codes()))]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No progress bar; warnings and errors are still logged (RUST_LOG).
    #[arg(long, short, global = true)]
    quiet: bool,
}

impl Cli {
    /// Whether `--quiet` was given: errors only in the log, no progress bar.
    pub fn quiet(&self) -> bool {
        self.quiet
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build or update the index inside each archive (only captures added since the last run).
    Index(index::IndexArgs),
    /// Serve the JSON API, Memento and PWID routes over the archives, keeping their indexes
    /// current.
    Serve(serve::ServeArgs),
    /// Manage API keys: add, list, revoke.
    #[command(subcommand)]
    Keys(keys::KeysCommand),
    /// Check corpus definitions against the archives.
    #[command(subcommand)]
    Corpus(corpus::CorpusCommand),
    /// Print the shell completion script of modoai-explorer for SHELL.
    #[command(after_help = completions_help(PROGRAM))]
    Completions(CompletionsArgs),
    /// Print the manual page (roff) of modoai-explorer or of one of its commands, or write them
    /// all.
    #[command(after_help = man_help(PROGRAM, "keys add", "index"))]
    Man(ManArgs),
}

/// The log filter when `RUST_LOG` is unset: warnings (errors only with `--quiet`), but nothing
/// from the HTML parser below errors: html5ever warns about every page it repairs ("foster
/// parenting not implemented"), hundreds of lines in an index of real pages that say nothing
/// about the index. `RUST_LOG=html5ever=warn` shows them.
pub fn log_filter(quiet: bool) -> String {
    format!(
        "{},html5ever=error,markup5ever=error",
        modoai_cli::quiet_filter(quiet)
    )
}

/// The exit of a cause the explorer sorts itself: [`Exit::Usage`] for a bad configuration or
/// key file, or a folder that is no archive; [`Exit::Interrupted`] for an index stopped at a
/// checkpoint (a `usage` error is sorted by `modoai-cli`). The `classify` of
/// [`modoai_cli::finish`].
pub fn classify(cause: &(dyn StdError + 'static)) -> Option<Exit> {
    use modoai_archive::archive::ReadError;
    let not_an_archive = |e: Option<&ReadError>| matches!(e, Some(ReadError::NotAnArchive(_)));
    if cause.is::<crate::config::ConfigError>()
        || cause.is::<crate::keys::KeyError>()
        || not_an_archive(cause.downcast_ref())
        || matches!(
            cause.downcast_ref(),
            Some(crate::ExplorerError::Archive(e)) if not_an_archive(Some(e))
        )
    {
        Some(Exit::Usage)
    } else if matches!(
        cause.downcast_ref(),
        Some(crate::ExplorerError::Interrupted)
    ) {
        Some(Exit::Interrupted)
    } else {
        None
    }
}

/// Runs the command; how it ended.
pub fn run(cli: Cli) -> anyhow::Result<Exit> {
    match cli.command {
        Command::Index(a) => index::run(a, cli.quiet),
        Command::Serve(a) => serve::run(a),
        Command::Keys(k) => keys::run(k),
        Command::Corpus(c) => corpus::run(c),
        Command::Completions(c) => {
            modoai_cli::completions(Cli::command(), &c)?;
            Ok(Exit::Done)
        }
        Command::Man(m) => {
            modoai_cli::man(Cli::command(), &m)?;
            Ok(Exit::Done)
        }
    }
}

/// Where foreign collections keep their indexes, and when their files are read.
#[derive(Debug, clap::Args)]
pub(crate) struct ForeignArgs {
    /// The folder of the indexes of inputs that are not modoai archives, one folder per
    /// collection (default: indexes/ in the explorer's state folder,
    /// $XDG_STATE_HOME/modoai-explorer or ~/.local/state/modoai-explorer).
    #[arg(long, value_name = "DIR")]
    index_dir: Option<PathBuf>,
    /// Seconds a WARC/ARC file must be unchanged before it is read (a crawler may still be
    /// writing it); `*.open` files are never read.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    settle: u64,
}

impl ForeignArgs {
    /// The collections of `args`, each input checked (a path that is none of the inputs is a
    /// usage error that says what was expected).
    pub(crate) fn library(
        &self,
        args: &[crate::collection::CollectionArg],
        budget: std::time::Duration,
    ) -> anyhow::Result<crate::search::Library> {
        let index_dir =
            (self.index_dir.clone()).unwrap_or_else(|| state::state_dir().join("indexes"));
        crate::serve::collection_library(args, &index_dir, budget)
            .map_err(|e| usage(format!("--archive: {e}")))
    }

    /// How long files must be unchanged.
    pub(crate) fn settle(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.settle)
    }
}

/// The tool runner of `--plugins FILE` (its `[settings]`), or the defaults.
pub(crate) fn tools(plugins: Option<&std::path::Path>) -> anyhow::Result<modoai_tools::ToolRunner> {
    Ok(match plugins {
        Some(p) => {
            modoai_tools::ToolRunner::from_plugins_file(p).map_err(|e| usage(e.to_string()))?
        }
        None => modoai_tools::ToolRunner::defaults()?,
    })
}

//! The command line of `modoai-explorer`: `index`, `serve`, `keys`.

mod index;
mod keys;
mod progress;
mod serve;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Done.
pub const EXIT_OK: u8 = 0;
/// The command ran but failed (see the message).
pub const EXIT_FAILED: u8 = 1;
/// Bad usage, arguments or configuration: nothing was done.
pub const EXIT_USAGE: u8 = 2;
/// Interrupted by SIGINT or SIGTERM after a checkpoint: run the same command to continue.
pub const EXIT_INTERRUPTED: u8 = 130;

const EXIT_CODES: &str = "\
Exit codes:
  0  done
  1  the command ran but failed (an archive could not be read, the address is in use, …)
  2  bad usage, arguments or configuration: nothing was done
  130 interrupted by Ctrl-C (SIGINT) or SIGTERM: what was indexed is kept; run the same
     command again to continue";

const EXAMPLES: &str = "\
Examples:
  modoai-explorer index --archive my-archive
  modoai-explorer serve --archive my-archive --listen 127.0.0.1:8091
  modoai-explorer keys add alice --quota 1000/hour --rate 5/s --allow host:example.org";

/// Search, facets, a JSON API with keys and Memento over modoai-harvester archives.
#[derive(Debug, Parser)]
#[command(name = "modoai-explorer", version, about, after_help = format!("{EXAMPLES}\n\n{EXIT_CODES}"))]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No progress bar; warnings and errors are still logged (RUST_LOG).
    #[arg(long, short, global = true)]
    quiet: bool,
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
}

/// Where the keys are, when neither `--keys` nor the configuration says.
pub(crate) const DEFAULT_KEYS: &str = "explorer-keys.toml";

/// A mistake in the command line or a file it names: nothing was done ([`EXIT_USAGE`]).
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// The exit code of a command that failed with `error`.
pub fn exit_code(error: &anyhow::Error) -> u8 {
    let usage = error.chain().any(|e| {
        e.is::<Usage>()
            || e.is::<crate::config::ConfigError>()
            || e.is::<crate::keys::KeyError>()
            || matches!(
                e.downcast_ref(),
                Some(crate::ExplorerError::Archive(
                    modoai_archive::archive::ReadError::NotAnArchive(_)
                ))
            )
            || matches!(
                e.downcast_ref(),
                Some(modoai_archive::archive::ReadError::NotAnArchive(_))
            )
    });
    if usage {
        EXIT_USAGE
    } else if error
        .chain()
        .any(|e| matches!(e.downcast_ref(), Some(crate::ExplorerError::Interrupted)))
    {
        EXIT_INTERRUPTED
    } else {
        EXIT_FAILED
    }
}

/// Runs the command; the exit code of what it did.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    init_logging(cli.quiet);
    match cli.command {
        Command::Index(a) => index::run(a, cli.quiet),
        Command::Serve(a) => serve::run(a),
        Command::Keys(k) => keys::run(k),
    }
}

fn init_logging(quiet: bool) {
    use std::io::IsTerminal;
    let default = if quiet { "error" } else { "warn" };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let colours = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colours)
        .init();
}

/// The archive folders given with `--archive`, each checked to be an archive.
pub(crate) fn archives(dirs: &[PathBuf]) -> anyhow::Result<()> {
    for d in dirs {
        modoai_archive::archive::Reader::open(d)
            .map_err(|e| Usage(format!("--archive {}: {e}", d.display())))?;
    }
    Ok(())
}

/// The tool runner of `--plugins FILE` (its `[settings]`), or the defaults.
pub(crate) fn tools(plugins: Option<&std::path::Path>) -> anyhow::Result<modoai_tools::ToolRunner> {
    Ok(match plugins {
        Some(p) => {
            modoai_tools::ToolRunner::from_plugins_file(p).map_err(|e| Usage(e.to_string()))?
        }
        None => modoai_tools::ToolRunner::defaults()?,
    })
}

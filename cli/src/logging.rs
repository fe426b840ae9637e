//! The log output of the programs: `tracing` lines on standard error, filtered by `RUST_LOG`.

use std::io::IsTerminal;

use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::EnvFilter;

/// The filter of a program that logs only warnings and errors by default (the harvester, the
/// explorer), or errors only with `--quiet`.
pub fn quiet_filter(quiet: bool) -> &'static str {
    if quiet {
        "error"
    } else {
        "warn"
    }
}

/// Sends the `tracing` events of the process to `writer` (standard error, or a writer that
/// clears a progress bar around each line): filtered by `RUST_LOG` when it is set, else by
/// `default_filter` (directives such as `info,fjall=warn`), and coloured only when [`colours`]
/// says so. Call it once, first thing in `main`.
pub fn init_logging<W>(default_filter: &str, writer: W)
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(colours())
        .init();
}

/// True when standard error is a terminal and `NO_COLOR` is unset or empty (no-color.org): a
/// log file, a pipe or journald gets plain text.
pub fn colours() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

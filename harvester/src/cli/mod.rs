//! The command line: argument definitions and dispatch.

mod args;
mod endpoint;
mod explore;
mod harvest;
mod inspect;
mod interrupt;
mod list;
mod list_report;
mod manual;
mod merge;
mod profile;
mod progress;
mod pwid;
mod repair;
mod store;
mod summary;
mod wacz;

use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use modoai_archive::archive::{ArchiveError, NotAnArchive, ReadError};
use modoai_protocol::Datestamp;

pub(crate) use args::{ClientArgs, WarcArgs};
use harvest::{HarvestArgs, HARVEST_HELP};

/// Done: harvested to the end, found, written.
pub(crate) const EXIT_OK: u8 = 0;
/// The command ran but stopped early or found nothing (the endpoint failed, a page stayed
/// broken, the archive is in use, a lookup had no match).
pub(crate) const EXIT_FAILED: u8 = 1;
/// Bad usage, arguments or configuration: nothing was done.
pub(crate) const EXIT_USAGE: u8 = 2;
/// Done, but with problems it reports: items not archived or failing fixity.
pub(crate) const EXIT_PROBLEMS: u8 = 3;
/// Interrupted by SIGINT/SIGTERM at a safe point (or aborted by a second one): the same command
/// again continues. 128 + SIGINT, as shells report a process ended by Ctrl-C.
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

/// The exit codes, as `--help` lists them.
const EXIT_CODES: &str = "\
Exit codes:
  0  done: the list was harvested to its end, the lookup found its answer
  1  the command ran but stopped early or found nothing (see the message; run the same
     harvest again to continue from the last completed page)
  2  bad usage, arguments or configuration: nothing was done (also when the endpoint refuses
     what was asked: a set it does not list, a format it does not have, a bad argument)
  3  done, but some items were not archived or failed a fixity check (recorded in the archive),
     or a corpus left out parts of WARC files still open (see its message)
  130 interrupted by Ctrl-C (SIGINT) or SIGTERM (harvest, harvest-list): the archive was
     closed at a safe point; run the same command again to continue";

/// Examples of the commands, as the top `--help` shows them.
const EXAMPLES: &str = "\
Examples:
  modoai-harvester inspect endpoint https://example.org/modoai
  modoai-harvester harvest https://example.org/modoai --archive archive/
  modoai-harvester harvest-list harvests.toml
  modoai-harvester inspect archive archive/
  modoai-harvester repair --archive archive/
  modoai-harvester corpus --archive archive/ --set mime:image --out corpus.xml
  modoai-harvester wacz --archive archive/ --out harvest.wacz
  modoai-harvester merge --archive shard-0/ --archive shard-1/ --out merged/

Every command has its own --help with examples. Commands that read an archive (inspect archive,
profile, pwid resolve, corpus) need read access only and work while a harvest runs.";

/// The top `--help`'s text after the options: examples, then the exit codes.
fn top_help() -> String {
    format!("{EXAMPLES}\n\n{EXIT_CODES}")
}

/// Harvests OAI-PMH 2.0 endpoints into WARC 1.1 archives with a CDXJ index.
#[derive(Debug, Parser)]
#[command(
    name = "modoai-harvester",
    version,
    about,
    long_about = None,
    after_help = top_help()
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No progress bar and no summary; warnings and errors are still logged (RUST_LOG).
    #[arg(long, short, global = true)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Harvest one endpoint's list (ListRecords) into an archive. Run it again to continue an
    /// interrupted harvest, or later to harvest what changed since (incremental).
    #[command(after_help = HARVEST_HELP)]
    Harvest(HarvestArgs),
    /// Harvest every endpoint of a harvest list (TOML), several at a time.
    #[command(after_help = list::HELP, after_long_help = list::long_help())]
    HarvestList(list::ListArgs),
    /// Show what an endpoint or an archive holds.
    #[command(
        subcommand,
        after_help = "\
Examples:
  modoai-harvester inspect endpoint https://example.org/modoai --sets
  modoai-harvester inspect archive archive/ --json

Exit codes: see modoai-harvester --help."
    )]
    Inspect(inspect::Inspect),
    /// MementoMap profiles: generate one from an archive, compact one, look a URI up.
    Profile(profile::ProfileArgs),
    /// Persistent web identifiers: resolve a PWID to its WARC record and bytes.
    #[command(
        subcommand,
        after_help = "\
Examples:
  modoai-harvester pwid resolve 'urn:pwid:…' --archive archive/ --extract file.pdf
  modoai-harvester inspect archive archive/ --parts   (lists the PWIDs)

Exit codes: see modoai-harvester --help."
    )]
    Pwid(pwid::PwidCommand),
    /// Write a corpus definition: the PWIDs of a selection of an archive's parts.
    #[command(after_help = pwid::CORPUS_HELP)]
    Corpus(pwid::CorpusArgs),
    /// Print the shell completion script of modoai-harvester for SHELL.
    #[command(after_help = manual::COMPLETIONS_HELP)]
    Completions(manual::CompletionsArgs),
    /// Print the manual page (roff) of modoai-harvester or of one of its commands, or write
    /// them all.
    #[command(after_help = manual::MAN_HELP)]
    Man(manual::ManArgs),
    /// Repair an archive a killed harvest left (`.open` WARC files, an index lacking its last
    /// items) without harvesting.
    Repair(repair::RepairArgs),
    /// Download an archive that `--store` moved to S3-compatible object storage into a local
    /// folder (an archive pywb replays and every command reads).
    #[command(after_help = store::FETCH_HELP)]
    FetchArchive(store::FetchArgs),
    /// Package an archive as one WACZ 1.1.1 file (WARCs, index, pages, datapackage.json).
    Wacz(wacz::WaczArgs),
    /// Merge archives (the shards of a harvest list) into one new archive.
    #[command(after_help = merge::HELP)]
    Merge(merge::MergeArgs),
}

/// A mistake in the command line or in a file it names: nothing was done ([`EXIT_USAGE`]).
#[derive(Debug)]
pub(crate) struct Usage(String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// A [`Usage`] error with this message.
pub(crate) fn usage(message: impl Into<String>) -> anyhow::Error {
    Usage(message.into()).into()
}

/// The exit code of a command that failed with `error`: [`EXIT_USAGE`] for a mistake in the
/// command (its arguments, a folder that is no archive, a file that is no harvest list, an
/// archive id the archive does not have), else [`EXIT_FAILED`].
pub(crate) fn exit_code(error: &anyhow::Error) -> u8 {
    let is_usage = error.chain().any(|e| {
        e.is::<Usage>()
            || e.is::<NotAnArchive>()
            || matches!(e.downcast_ref(), Some(ReadError::NotAnArchive(_)))
            || matches!(e.downcast_ref(), Some(ArchiveError::ArchiveId(_)))
    });
    if is_usage {
        EXIT_USAGE
    } else {
        EXIT_FAILED
    }
}

/// Whether `error` is stdout closed by its reader (`… | head`): the output is not wanted any more,
/// so the command ends quietly, as other Unix tools do.
pub(crate) fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

pub(crate) fn init_logging(quiet: bool) {
    let default = if quiet { "error" } else { "warn" };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(progress::log_writer)
        .with_ansi(colours())
        .init();
}

/// ANSI colours only on a terminal, and not when `NO_COLOR` is set (no-color.org): log files
/// and pipes get plain text.
fn colours() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    match cli.command {
        Command::Harvest(args) => {
            let client = args.client.client()?;
            let handle = runtime.handle().clone();
            let quiet = cli.quiet;
            let cancel = interrupt::on_signal(&runtime)?;
            let code = runtime.block_on(async move {
                tokio::task::spawn_blocking(move || {
                    harvest::run(args, client, handle, quiet, cancel)
                })
                .await
            })??;
            Ok(ExitCode::from(code))
        }
        Command::HarvestList(args) => {
            let cancel = interrupt::on_signal(&runtime)?;
            list::run(&runtime, args, cli.quiet, cancel).map(ExitCode::from)
        }
        Command::Inspect(i) => inspect::run(&runtime, i).map(|()| ExitCode::from(EXIT_OK)),
        Command::Profile(p) => profile::run(p),
        Command::Pwid(p) => pwid::run(p),
        Command::Corpus(c) => pwid::corpus(c),
        Command::Completions(c) => manual::completions(&c).map(ExitCode::from),
        Command::Man(m) => manual::man(&m).map(ExitCode::from),
        Command::Repair(r) => repair::run(r).map(|()| ExitCode::from(EXIT_OK)),
        Command::FetchArchive(f) => store::fetch(runtime.handle(), &f).map(ExitCode::from),
        Command::Wacz(w) => wacz::run(w).map(|()| ExitCode::from(EXIT_OK)),
        Command::Merge(m) => merge::run(m, cli.quiet).map(ExitCode::from),
    }
}

/// Fails on a `from`/`until` that is no OAI-PMH date. Checked before the archive is opened: a
/// mistyped date is a mistake in the command, not a harvest to continue.
pub(crate) fn check_date(name: &str, value: Option<&str>) -> anyhow::Result<()> {
    match value {
        Some(v) if Datestamp::parse_request(v).is_none() => Err(usage(format!(
            "{name} {v:?} is not a date of the form YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ"
        ))),
        _ => Ok(()),
    }
}

/// The form of an endpoint URL, for messages.
const URL_FORM: &str = "an http(s) URL such as http://example.org/modoai";

/// Checks an endpoint's base URL before anything is created: absolute, `http` or `https`, with
/// a host, and no white space (which a URL parser would quietly percent-encode).
pub(crate) fn endpoint_url(value: &str) -> Result<String, String> {
    if value.chars().any(char::is_whitespace) {
        return Err(format!(
            "{value:?} contains white space; expected {URL_FORM}"
        ));
    }
    let url = url::Url::parse(value)
        .map_err(|e| format!("{value:?} is not a URL ({e}); expected {URL_FORM}"))?;
    if !matches!(url.scheme(), "http" | "https") || !url.has_host() {
        return Err(format!(
            "{value:?} is not an http(s) URL with a host; expected {URL_FORM}"
        ));
    }
    Ok(value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::endpoint_url;

    #[test]
    fn endpoint_urls_are_absolute_http_urls_with_a_host_and_no_white_space() {
        for good in [
            "http://example.org/modoai",
            "https://127.0.0.1:8080/oai?x=1",
        ] {
            assert_eq!(endpoint_url(good).as_deref(), Ok(good));
        }
        for bad in [
            "htp:/x",
            "example.org/modoai",
            "http://exa mple.org/modoai",
            "http://example.org/mod oai",
            "file:///tmp/oai",
            "",
        ] {
            let error = endpoint_url(bad).unwrap_err();
            assert!(
                error.contains("http://example.org/modoai"),
                "{bad}: {error}"
            );
        }
    }
}

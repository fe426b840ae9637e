//! The command line: argument definitions and dispatch.

mod args;
mod endpoint;
mod explore;
mod harvest;
mod inspect;
mod interrupt;
mod list;
mod list_report;
mod merge;
mod profile;
mod progress;
mod pwid;
mod repair;
mod store;
mod summary;
mod wacz;

use std::error::Error as StdError;

use anyhow::Context as _;
use clap::{CommandFactory, Parser, Subcommand};
use modoai_archive::archive::{ArchiveError, NotAnArchive, ReadError};
use modoai_cli::{completions_help, man_help, CompletionsArgs, Exit, ManArgs};
use modoai_protocol::Datestamp;

pub(crate) use args::{ClientArgs, WarcArgs};
use harvest::{HarvestArgs, HARVEST_HELP};
pub(crate) use modoai_cli::usage;
pub(crate) use progress::log_writer;

/// The program's name, as its messages begin.
pub(crate) const PROGRAM: &str = "modoai-harvester";

/// The exit codes, as `--help` lists them: the policy of the three programs (`modoai-cli`), as
/// the harvester uses it.
fn exit_codes() -> String {
    Exit::help(&[
        (
            Exit::Done,
            "done: the list was harvested to its end, the lookup found its answer",
        ),
        (
            Exit::Failed,
            "the command ran but stopped early or found nothing (see the message; run the same\n\
             harvest again to continue from the last completed page)",
        ),
        (
            Exit::Usage,
            "bad usage, arguments or configuration: nothing was done (also when the endpoint refuses\n\
             what was asked: a set it does not list, a format it does not have, a bad argument)",
        ),
        (
            Exit::Problems,
            "done, but some items were not archived or failed a fixity check (recorded in the archive),\n\
             or a corpus left out parts of WARC files still open (see its message)",
        ),
        (
            Exit::Interrupted,
            "interrupted by Ctrl-C (SIGINT) or SIGTERM (harvest, harvest-list): the archive was\n\
             closed at a safe point; run the same command again to continue",
        ),
    ])
}

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
    format!("{EXAMPLES}\n\n{}", exit_codes())
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
    #[command(after_help = completions_help(PROGRAM))]
    Completions(CompletionsArgs),
    /// Print the manual page (roff) of modoai-harvester or of one of its commands, or write
    /// them all.
    #[command(after_help = man_help(PROGRAM, "inspect archive", "harvest"))]
    Man(ManArgs),
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

/// The exit of a cause the harvester sorts itself: [`Exit::Usage`] for a folder that is no
/// archive, or an archive id the archive does not have (a `usage` error is sorted by
/// `modoai-cli`); the `classify` of [`modoai_cli::finish`].
pub(crate) fn classify(cause: &(dyn StdError + 'static)) -> Option<Exit> {
    let is_usage = cause.is::<NotAnArchive>()
        || matches!(cause.downcast_ref(), Some(ReadError::NotAnArchive(_)))
        || matches!(cause.downcast_ref(), Some(ArchiveError::ArchiveId(_)));
    is_usage.then_some(Exit::Usage)
}

pub(crate) fn run(cli: Cli) -> anyhow::Result<Exit> {
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
            runtime.block_on(async move {
                tokio::task::spawn_blocking(move || {
                    harvest::run(args, client, handle, quiet, cancel)
                })
                .await
            })?
        }
        Command::HarvestList(args) => {
            let cancel = interrupt::on_signal(&runtime)?;
            list::run(&runtime, args, cli.quiet, cancel)
        }
        Command::Inspect(i) => inspect::run(&runtime, i).map(|()| Exit::Done),
        Command::Profile(p) => profile::run(p),
        Command::Pwid(p) => pwid::run(p),
        Command::Corpus(c) => pwid::corpus(c),
        Command::Completions(c) => {
            modoai_cli::completions(Cli::command(), &c)?;
            Ok(Exit::Done)
        }
        Command::Man(m) => {
            modoai_cli::man(Cli::command(), &m)?;
            Ok(Exit::Done)
        }
        Command::Repair(r) => repair::run(r).map(|()| Exit::Done),
        Command::FetchArchive(f) => store::fetch(runtime.handle(), &f),
        Command::Wacz(w) => wacz::run(w).map(|()| Exit::Done),
        Command::Merge(m) => merge::run(m, cli.quiet),
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
    use super::{endpoint_url, Cli};

    #[test]
    fn every_command_has_a_page_named_after_its_path() {
        use clap::CommandFactory;
        let dir = tempfile::tempdir().unwrap();
        let pages = modoai_cli::man_pages(Cli::command(), dir.path()).unwrap();
        let names: Vec<String> = pages
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        for name in [
            "modoai-harvester.1",
            "modoai-harvester-harvest.1",
            "modoai-harvester-inspect-archive.1",
            "modoai-harvester-completions.1",
            "modoai-harvester-man.1",
        ] {
            assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
        }
        assert!(!names.iter().any(|n| n.contains("help")), "{names:?}");
    }

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

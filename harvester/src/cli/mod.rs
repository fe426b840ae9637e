//! The command line: argument definitions and dispatch.

mod inspect;
mod list;
mod profile;
mod progress;
mod pwid;
mod summary;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use modoai_harvester::archive::{Archive, ArchiveError, ArchiveOptions, NotAnArchive};
use modoai_harvester::client::{Client, ClientConfig};
use modoai_harvester::harvest::{HarvestOptions, Harvester};
use modoai_protocol::Datestamp;

/// Done: harvested to the end, found, written.
pub(crate) const EXIT_OK: u8 = 0;
/// The command ran but stopped early or found nothing (the endpoint failed, a page stayed
/// broken, the archive is in use, a lookup had no match).
pub(crate) const EXIT_FAILED: u8 = 1;
/// Bad usage, arguments or configuration: nothing was done.
pub(crate) const EXIT_USAGE: u8 = 2;
/// Done, but with problems it reports: items not archived or failing fixity.
pub(crate) const EXIT_PROBLEMS: u8 = 3;

/// The exit codes, as `--help` lists them.
const EXIT_CODES: &str = "\
Exit codes:
  0  done: the list was harvested to its end, the lookup found its answer
  1  the command ran but stopped early or found nothing (see the message; run the same
     harvest again to continue from the last completed page)
  2  bad usage, arguments or configuration: nothing was done
  3  done, but some items were not archived or failed a fixity check (recorded in the archive)";

/// Harvests OAI-PMH 2.0 endpoints into WARC 1.1 archives with a CDXJ index.
#[derive(Debug, Parser)]
#[command(
    name = "modoai-harvester",
    version,
    about,
    long_about = None,
    after_help = EXIT_CODES
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
    Harvest(HarvestArgs),
    /// Harvest every endpoint of a harvest list (TOML), several at a time.
    HarvestList(list::ListArgs),
    /// Show what an endpoint or an archive holds.
    #[command(subcommand)]
    Inspect(inspect::Inspect),
    /// MementoMap profiles: generate one from an archive, compact one, look a URI up.
    Profile(profile::ProfileArgs),
    /// Persistent web identifiers: resolve a PWID to its WARC record and bytes.
    #[command(subcommand)]
    Pwid(pwid::PwidCommand),
    /// Write a corpus definition: the PWIDs of a selection of an archive's parts.
    Corpus(pwid::CorpusArgs),
}

/// Options of the HTTP client.
#[derive(Debug, Args, Clone)]
pub(crate) struct ClientArgs {
    /// Seconds to wait between two requests to the same host.
    #[arg(long, default_value_t = 0.0, value_name = "SECONDS")]
    delay: f64,
    /// Retries of a failed request or a broken page.
    #[arg(long, default_value_t = 8, value_name = "N")]
    retries: u32,
    /// The User-Agent header.
    #[arg(long, value_name = "TEXT")]
    user_agent: Option<String>,
}

impl ClientArgs {
    pub(crate) fn client(&self) -> anyhow::Result<Client> {
        if !(self.delay.is_finite() && self.delay >= 0.0) {
            return Err(usage("--delay must be a number of seconds"));
        }
        let mut config = ClientConfig::default()
            .delay(Duration::from_secs_f64(self.delay))
            .max_retries(self.retries);
        if let Some(ua) = &self.user_agent {
            config = config.user_agent(ua.clone());
        }
        Ok(Client::new(config))
    }
}

#[derive(Debug, Args)]
struct HarvestArgs {
    /// The OAI-PMH base URL, e.g. http://example.org/modoai
    url: String,
    /// The archive folder (created if missing).
    #[arg(long, value_name = "DIR")]
    archive: PathBuf,
    /// The metadata format. Default: oai_crate when the endpoint offers it, else oai_dc.
    #[arg(long, value_name = "PREFIX")]
    metadata_prefix: Option<String>,
    /// Harvest only this set.
    #[arg(long, value_name = "SPEC")]
    set: Option<String>,
    /// Only records changed since this date (YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ). Default: the
    /// start of the last complete harvest of the same list, if any.
    #[arg(long, value_name = "DATE")]
    from: Option<String>,
    /// Only records changed until this date.
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// Harvest the whole list even if an earlier harvest completed (no incremental `from`).
    #[arg(long)]
    full: bool,
    /// Do not fetch `ref` resources of records that carry no inline file.
    #[arg(long)]
    no_refs: bool,
    /// The harvest's name (warcinfo `isPartOf`).
    #[arg(long, default_value = "modoai-harvest")]
    name: String,
    #[command(flatten)]
    warc: WarcArgs,
    #[command(flatten)]
    client: ClientArgs,
}

/// How WARC files are written.
#[derive(Debug, Args, Clone)]
pub(crate) struct WarcArgs {
    /// WARC file name prefix.
    #[arg(long, default_value = "modoai", value_name = "TEXT")]
    warc_prefix: String,
    /// Start a new WARC file once one reaches this many bytes.
    #[arg(long, default_value_t = 1_000_000_000, value_name = "BYTES")]
    max_file_size: u64,
    /// The archive id of the archive's PWIDs (A-Z a-z 0-9 - . _ ~, e.g. its domain). Fixed by
    /// the first harvest into the archive; default: this machine's name.
    #[arg(long, value_name = "ID")]
    archive_id: Option<String>,
}

impl WarcArgs {
    pub(crate) fn options(&self) -> ArchiveOptions {
        ArchiveOptions {
            prefix: self.warc_prefix.clone(),
            max_file_size: self.max_file_size,
            archive_id: self.archive_id.clone(),
            ..ArchiveOptions::default()
        }
    }
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
            || matches!(e.downcast_ref(), Some(ArchiveError::ArchiveId(_)))
    });
    if is_usage {
        EXIT_USAGE
    } else {
        EXIT_FAILED
    }
}

pub(crate) fn init_logging(quiet: bool) {
    let default = if quiet { "error" } else { "warn" };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
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
            let code = runtime.block_on(async move {
                tokio::task::spawn_blocking(move || harvest(args, client, handle, quiet)).await
            })??;
            Ok(ExitCode::from(code))
        }
        Command::HarvestList(args) => list::run(&runtime, args, cli.quiet).map(ExitCode::from),
        Command::Inspect(i) => inspect::run(&runtime, i).map(|()| ExitCode::from(EXIT_OK)),
        Command::Profile(p) => profile::run(p),
        Command::Pwid(p) => pwid::run(p),
        Command::Corpus(c) => pwid::corpus(c),
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

fn harvest(
    args: HarvestArgs,
    client: Client,
    handle: tokio::runtime::Handle,
    quiet: bool,
) -> anyhow::Result<u8> {
    check_date("--from", args.from.as_deref())?;
    check_date("--until", args.until.as_deref())?;
    let mut archive = Archive::open(&args.archive, args.warc.options())
        .with_context(|| format!("cannot open the archive {}", args.archive.display()))?;
    if !archive.recovery().is_empty() && !quiet {
        eprintln!("{}", summary::recovery(archive.recovery()));
    }
    let options = HarvestOptions {
        prefix: args.metadata_prefix,
        set: args.set,
        from: args.from,
        until: args.until,
        incremental: !args.full,
        fetch_refs: !args.no_refs,
        name: args.name,
        ..HarvestOptions::new(&args.url)
    };
    let bar = progress::Bar::new(quiet, &args.url);
    let result = Harvester::new(client, handle, &mut archive, &bar).run(&options);
    bar.finish();
    archive.close().context("cannot close the archive")?;
    if !quiet {
        println!("{}", summary::render(&result));
    }
    if let Some(e) = &result.error {
        eprintln!("error: {e}");
        if result.pages > 0 || result.resumed {
            eprintln!("run the same command again to continue from the last completed page");
        }
    }
    Ok(summary::exit_code(&result))
}

//! `harvest-list`: every endpoint of a TOML harvest list, several at a time. The file format is
//! [`SAMPLE`], shown by `harvest-list --help` and in `docs/archivists.md`.
//!
//! Endpoints that share an archive are harvested one after the other (an archive has one
//! writer); the others run concurrently, up to `--jobs`. One HTTP client serves them all, so its
//! per-host politeness (one request at a time, `--delay`) holds across endpoints of one host.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use clap::Args;
use modoai_harvester::archive::Archive;
use modoai_harvester::client::Client;
use modoai_harvester::harvest::{HarvestOptions, Harvester, Quiet, Summary};
use serde::Deserialize;
use tokio::runtime::Runtime;

use tokio_util::sync::CancellationToken;

use super::{
    check_date, endpoint_url, interrupt, summary, usage, ClientArgs, WarcArgs, EXIT_FAILED,
    EXIT_INTERRUPTED, EXIT_OK, EXIT_PROBLEMS,
};

/// A harvest list with every key: `harvest-list --help` shows it, and a test reads it with
/// [`read`].
pub(crate) const SAMPLE: &str = r#"# Keys of [defaults] apply to every [[endpoint]] that does not set them.
[defaults]
archive = "archives/default"      # relative to this file's folder
metadata-prefix = "oai_dc"        # default: oai_crate when offered, else oai_dc
name = "my-harvests"              # warcinfo isPartOf; default: modoai-harvest

[[endpoint]]
url = "https://example.org/modoai"

[[endpoint]]
url = "https://example.net/oai"
archive = "archives/example-net"
metadata-prefix = "oai_crate"
set = "mime:image"                # only this set
from = "2026-01-01"               # YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ
until = "2026-12-31"
"#;

/// `harvest-list -h`: examples and where the exit codes are.
pub(crate) const HELP: &str = "\
Examples:
  modoai-harvester harvest-list harvests.toml
  modoai-harvester harvest-list harvests.toml --jobs 2 --delay 1
  modoai-harvester harvest-list harvests.toml --dry-run

See --help for the file format. Exit codes: see modoai-harvester --help.";

/// `harvest-list --help`: the file format with a sample, then [`HELP`].
pub(crate) fn long_help() -> String {
    format!(
        "The harvest list is TOML: one [[endpoint]] table per list to harvest, with the keys url \
         (required), archive (required here or in [defaults]), metadata-prefix, set, from, until \
         and name, as the harvest command's options. Unknown keys are errors. Endpoints of one \
         archive are harvested one after the other, the others --jobs at a time. Like a harvest, \
         each continues where it stopped and is incremental.\n\nSample:\n\n{SAMPLE}\n{HELP}"
    )
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// The harvest list.
    file: PathBuf,
    /// Check the list and print what would be harvested into which archive, without harvesting.
    #[arg(long)]
    dry_run: bool,
    /// Archives harvested at the same time.
    #[arg(long, default_value_t = 4, value_name = "N")]
    jobs: usize,
    #[command(flatten)]
    warc: WarcArgs,
    #[command(flatten)]
    client: ClientArgs,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Entry {
    url: Option<String>,
    archive: Option<PathBuf>,
    metadata_prefix: Option<String>,
    set: Option<String>,
    from: Option<String>,
    until: Option<String>,
    name: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListFile {
    #[serde(default)]
    defaults: Entry,
    /// Kept as tables until [`read`] checks each one, so an error can name its endpoint.
    #[serde(default)]
    endpoint: Vec<toml::Table>,
}

/// Reads the list: every endpoint with its defaults applied, relative archives resolved against
/// the list's folder.
fn read(file: &Path) -> anyhow::Result<Vec<(PathBuf, HarvestOptions)>> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let list: ListFile = toml::from_str(&text)
        .with_context(|| format!("{} is not a harvest list", file.display()))?;
    anyhow::ensure!(
        !list.endpoint.is_empty(),
        "{}: no [[endpoint]]",
        file.display()
    );
    let base = file.parent().unwrap_or(Path::new("."));
    let d = &list.defaults;
    list.endpoint
        .into_iter()
        .enumerate()
        .map(|(i, table)| {
            let n = i + 1;
            let e = entry(file, n, table)?;
            let url = e
                .url
                .clone()
                .or(d.url.clone())
                .with_context(|| format!("{}: endpoint {n} has no url", file.display()))?;
            let archive = e.archive.clone().or(d.archive.clone()).with_context(|| {
                format!("{}: endpoint {n} ({url}) has no archive", file.display())
            })?;
            let options = HarvestOptions {
                prefix: e.metadata_prefix.clone().or(d.metadata_prefix.clone()),
                set: e.set.clone().or(d.set.clone()),
                from: e.from.clone().or(d.from.clone()),
                until: e.until.clone().or(d.until.clone()),
                name: e
                    .name
                    .clone()
                    .or(d.name.clone())
                    .unwrap_or_else(|| "modoai-harvest".into()),
                ..HarvestOptions::new(&url)
            };
            endpoint_url(&url)
                .map_err(anyhow::Error::msg)
                .and_then(|_| check_date("from", options.from.as_deref()))
                .and_then(|()| check_date("until", options.until.as_deref()))
                .with_context(|| format!("{}: endpoint {n} ({url})", file.display()))?;
            Ok((base.join(archive), options))
        })
        .collect()
}

/// Endpoint `n` of `file`, its keys checked.
fn entry(file: &Path, n: usize, table: toml::Table) -> anyhow::Result<Entry> {
    let url = match table.get("url").and_then(toml::Value::as_str) {
        Some(url) => format!(" ({url})"),
        None => String::new(),
    };
    toml::Value::Table(table)
        .try_into()
        .with_context(|| format!("{}: endpoint {n}{url}", file.display()))
}

pub(crate) fn run(
    runtime: &Runtime,
    args: ListArgs,
    quiet: bool,
    cancel: CancellationToken,
) -> anyhow::Result<u8> {
    if args.jobs == 0 {
        return Err(usage("--jobs must be at least 1"));
    }
    let mut groups: BTreeMap<PathBuf, Vec<HarvestOptions>> = BTreeMap::new();
    // Every endpoint of the list is checked before any archive is opened.
    let lists = read(&args.file).map_err(|e| usage(format!("{e:#}")))?;
    if args.dry_run {
        return dry_run(&lists);
    }
    for (archive, options) in lists {
        groups.entry(archive).or_default().push(options);
    }
    super::store::check_names(args.warc.store.as_deref(), groups.keys())?;
    let client = args.client.client()?;
    let jobs = Arc::new(tokio::sync::Semaphore::new(args.jobs));
    let handle = runtime.handle().clone();
    let results: Vec<anyhow::Result<Vec<Summary>>> = runtime.block_on(async {
        let mut tasks = Vec::new();
        for (archive, lists) in groups {
            let (client, handle, jobs) = (client.clone(), handle.clone(), jobs.clone());
            let warc = args.warc.clone();
            let cancel = cancel.clone();
            tasks.push(tokio::spawn(async move {
                let _slot = tokio::select! {
                    slot = jobs.acquire_owned() => slot.expect("the jobs semaphore is never closed"),
                    // Archives still waiting for a slot are not started.
                    () = cancel.cancelled() => return Ok(Vec::new()),
                };
                let harvest = move || group(&archive, &warc, lists, client, handle, &cancel);
                tokio::task::spawn_blocking(harvest).await?
            }));
        }
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.map_err(anyhow::Error::from).and_then(|r| r));
        }
        out
    });
    let interrupted = results
        .iter()
        .flatten()
        .flatten()
        .any(Summary::is_interrupted);
    let mut code = EXIT_OK;
    for r in results {
        match r {
            Ok(summaries) => {
                for s in summaries {
                    if !quiet {
                        summary::print(&summary::render(&s))?;
                    }
                    match &s.error {
                        Some(_) if s.is_interrupted() => {}
                        Some(e) => eprintln!("error: {}: {e}", s.endpoint),
                        None => {}
                    }
                    code = code.max(match summary::exit_code(&s) {
                        EXIT_OK => 0,
                        EXIT_PROBLEMS => 1,
                        // An endpoint that failed, refused what was asked or was interrupted.
                        _ => 2,
                    });
                }
            }
            Err(e) => {
                eprintln!("error: {e:#}");
                code = 2;
            }
        }
    }
    if interrupted {
        eprintln!("{}", interrupt::INTERRUPTED);
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(match code {
        0 => EXIT_OK,
        1 => EXIT_PROBLEMS,
        _ => EXIT_FAILED,
    })
}

/// Prints one line per endpoint: what `harvest-list` would harvest into which archive.
fn dry_run(lists: &[(PathBuf, HarvestOptions)]) -> anyhow::Result<u8> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    for (archive, o) in lists {
        let field = |name: &str, v: &Option<String>| match v {
            Some(v) => format!(" {name} {v}"),
            None => String::new(),
        };
        writeln!(
            out,
            "{} -> {}: prefix {}{}{}{}, name {}",
            o.endpoint,
            archive.display(),
            o.prefix
                .as_deref()
                .unwrap_or("(oai_crate if offered, else oai_dc)"),
            field("set", &o.set),
            field("from", &o.from),
            field("until", &o.until),
            o.name
        )?;
    }
    out.flush()?;
    Ok(EXIT_OK)
}

/// Harvests the lists of one archive in order.
fn group(
    archive: &Path,
    warc: &WarcArgs,
    lists: Vec<HarvestOptions>,
    client: Client,
    handle: tokio::runtime::Handle,
    cancel: &CancellationToken,
) -> anyhow::Result<Vec<Summary>> {
    let mut a = Archive::open(archive, warc.options())
        .with_context(|| format!("cannot open the archive {}", archive.display()))?;
    let name = super::store::archive_name(archive)?;
    let stored = super::store::Sync::start(warc.store.as_deref(), Some(&name), archive, &handle)?;
    let mut out = Vec::new();
    for options in lists {
        if cancel.is_cancelled() {
            break;
        }
        let summary = Harvester::new(client.clone(), handle.clone(), &mut a, &Quiet)
            .cancellation(cancel.clone())
            .run(&options);
        out.push(summary);
    }
    a.close()
        .with_context(|| format!("cannot close the archive {}", archive.display()))?;
    let code = match out.iter().any(Summary::is_interrupted) {
        true => super::EXIT_INTERRUPTED,
        false => super::EXIT_OK,
    };
    if super::store::finish(stored, archive, code, true) == super::EXIT_FAILED {
        anyhow::bail!(
            "{}: not all files were moved to the store",
            archive.display()
        );
    }
    Ok(out)
}

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
use modoai_archive::archive::Archive;
use modoai_cli::Exit;
use modoai_harvester::client::Client;
use modoai_harvester::harvest::{HarvestOptions, Harvester, Quiet};
use modoai_harvester::shard::Shard;
use serde::Deserialize;
use tokio::runtime::Runtime;

use tokio_util::sync::CancellationToken;

use super::list_report::{self, Outcome, Report, Row};
use super::{check_date, endpoint_url, interrupt, summary, usage, ClientArgs, WarcArgs, PROGRAM};

/// A harvest list with every key: `harvest-list --help` shows it, and a test reads it with
/// [`read`].
pub(crate) const SAMPLE: &str = r#"# Keys of [defaults] apply to every [[endpoint]] that does not set them.
[defaults]
archive = "archives/default"      # relative to this file's folder
metadata-prefix = "oai_dc"        # default: the archive's, else oai_crate when offered, else oai_dc
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
    /// Harvest only shard I of N (0 to N-1): the endpoints whose host hashes to I, so that N
    /// machines share the list with no coordinator. Default: the shard of a Kubernetes Indexed
    /// Job when JOB_COMPLETION_INDEX and JOB_COMPLETIONS are both set, else the whole list.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Also write every endpoint's summary as JSON to FILE (replaced atomically at the end).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
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
) -> anyhow::Result<Exit> {
    if args.jobs == 0 {
        return Err(usage("--jobs must be at least 1"));
    }
    let shard = shard(args.shard)?;
    // Every endpoint of the list is checked before any archive is opened.
    let mut lists = read(&args.file).map_err(|e| usage(format!("{e:#}")))?;
    if let Some(shard) = shard {
        lists.retain(|(_, o)| shard.takes(&o.endpoint).unwrap_or(false));
    }
    if args.dry_run {
        return dry_run(&lists);
    }
    let started = list_report::now();
    let mut groups: BTreeMap<PathBuf, Vec<(usize, HarvestOptions)>> = BTreeMap::new();
    for (n, (archive, options)) in lists.into_iter().enumerate() {
        groups.entry(archive).or_default().push((n, options));
    }
    super::store::check_names(args.warc.store.as_deref(), groups.keys())?;
    let client = args.client.client()?;
    let jobs = Arc::new(tokio::sync::Semaphore::new(args.jobs));
    let handle = runtime.handle().clone();
    let mut rows: Vec<(usize, Row)> = runtime.block_on(async {
        let mut tasks = Vec::new();
        for (archive, lists) in groups {
            let (client, handle, jobs) = (client.clone(), handle.clone(), jobs.clone());
            let warc = args.warc.clone();
            let cancel = cancel.clone();
            tasks.push(tokio::spawn(async move {
                let _slot = tokio::select! {
                    slot = jobs.acquire_owned() => slot.expect("the jobs semaphore is never closed"),
                    // Archives still waiting for a slot are not started.
                    () = cancel.cancelled() => return not_started(&archive, lists, None),
                };
                let harvest = move || group(&archive, &warc, lists, client, handle, &cancel, quiet);
                tokio::task::spawn_blocking(harvest).await.expect("a harvest thread does not panic")
            }));
        }
        let mut out = Vec::new();
        for t in tasks {
            out.extend(t.await.expect("a list task does not panic"));
        }
        out
    });
    rows.sort_by_key(|(n, _)| *n);
    let rows: Vec<Row> = rows.into_iter().map(|(_, r)| r).collect();
    finish(
        &args.file,
        args.report.as_deref(),
        shard,
        started,
        &rows,
        quiet,
    )
}

/// The shard to harvest: `--shard`, else a Kubernetes Indexed Job's, else the whole list.
fn shard(flag: Option<Shard>) -> anyhow::Result<Option<Shard>> {
    if flag.is_some() {
        return Ok(flag);
    }
    let var = |name: &str| std::env::var(name).ok();
    let (index, count) = (var("JOB_COMPLETION_INDEX"), var("JOB_COMPLETIONS"));
    match Shard::from_job(index.as_deref(), count.as_deref()) {
        None => Ok(None),
        Some(Ok(shard)) => Ok(Some(shard)),
        Some(Err(e)) => Err(usage(format!(
            "JOB_COMPLETION_INDEX={} and JOB_COMPLETIONS={} name no shard: {e}",
            index.unwrap_or_default(),
            count.unwrap_or_default()
        ))),
    }
}

/// Prints the table, writes the report, and says what the exit code is.
fn finish(
    list: &Path,
    report: Option<&Path>,
    shard: Option<Shard>,
    started: String,
    rows: &[Row],
    quiet: bool,
) -> anyhow::Result<Exit> {
    for r in rows.iter().filter(|r| r.outcome != Outcome::Interrupted) {
        if let Some(e) = &r.error {
            modoai_cli::report(PROGRAM, format_args!("{}: {e}", r.endpoint));
        }
    }
    if !quiet {
        summary::print(&list_report::table(rows))?;
    }
    if let Some(path) = report {
        Report::new(list, shard.map(|s| s.to_string()), started, rows).write(path)?;
    }
    let code = list_report::exit_code(rows);
    if code == Exit::Interrupted {
        eprintln!("{}", interrupt::INTERRUPTED);
    } else if code == Exit::Failed {
        eprintln!("some endpoints stopped early: run the same command again to continue them");
    }
    Ok(code)
}

/// The rows of lists that were not harvested.
fn not_started(
    archive: &Path,
    lists: Vec<(usize, HarvestOptions)>,
    error: Option<String>,
) -> Vec<(usize, Row)> {
    let outcome = match error {
        Some(_) => Outcome::Failed,
        None => Outcome::NotStarted,
    };
    lists
        .into_iter()
        .map(|(n, o)| (n, Row::without_harvest(&o, archive, outcome, error.clone())))
        .collect()
}

/// Prints one line per endpoint: what `harvest-list` would harvest into which archive.
fn dry_run(lists: &[(PathBuf, HarvestOptions)]) -> anyhow::Result<Exit> {
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
    Ok(Exit::Done)
}

/// Harvests the lists of one archive in order; a list's summary is printed (unless `quiet`)
/// and turned into its row as soon as it ends.
fn group(
    archive: &Path,
    warc: &WarcArgs,
    lists: Vec<(usize, HarvestOptions)>,
    client: Client,
    handle: tokio::runtime::Handle,
    cancel: &CancellationToken,
    quiet: bool,
) -> Vec<(usize, Row)> {
    let (mut a, stored) = match open(archive, warc, &handle) {
        Ok(opened) => opened,
        Err(error) => return not_started(archive, lists, Some(error)),
    };
    let mut out = Vec::new();
    let mut lists = lists.into_iter();
    for (n, options) in lists.by_ref() {
        if cancel.is_cancelled() {
            out.push((
                n,
                Row::without_harvest(&options, archive, Outcome::NotStarted, None),
            ));
            continue;
        }
        let summary = Harvester::new(client.clone(), handle.clone(), &mut a, &Quiet)
            .cancellation(cancel.clone())
            .run(&options);
        if !quiet {
            // A closed stdout does not stop the harvest.
            let _ = summary::print(&summary::render(&summary));
        }
        out.push((n, Row::of(&summary, archive)));
    }
    if let Err(error) = close(a, stored, archive, &out) {
        for (_, row) in &mut out {
            row.outcome = Outcome::Failed;
            row.error.get_or_insert_with(|| error.clone());
        }
    }
    out
}

/// Opens one group's archive and starts moving its closed WARC files to `--store`, if given.
fn open(
    archive: &Path,
    warc: &WarcArgs,
    handle: &tokio::runtime::Handle,
) -> Result<(Archive, Option<super::store::Sync>), String> {
    let a = Archive::open(archive, warc.options())
        .map_err(|e| format!("cannot open the archive {}: {e}", archive.display()))?;
    let name = super::store::archive_name(archive).map_err(|e| format!("{e:#}"))?;
    let stored = super::store::Sync::start(warc.store.as_deref(), Some(&name), archive, handle)
        .map_err(|e| format!("{e:#}"))?;
    Ok((a, stored))
}

/// Closes one group's archive, then finishes its moves to the store (all but an interrupted
/// run's); the error fails the group's lists.
fn close(
    a: Archive,
    stored: Option<super::store::Sync>,
    archive: &Path,
    rows: &[(usize, Row)],
) -> Result<(), String> {
    a.close()
        .map_err(|e| format!("cannot close the archive {}: {e}", archive.display()))?;
    let code = match rows.iter().any(|(_, r)| r.outcome == Outcome::Interrupted) {
        true => Exit::Interrupted,
        false => Exit::Done,
    };
    if super::store::finish(stored, archive, code, true) == Exit::Failed {
        return Err(format!(
            "{}: not all files were moved to the store; run the same command again",
            archive.display()
        ));
    }
    Ok(())
}

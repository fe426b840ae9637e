//! `modoai-explorer index`.

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use anyhow::Context as _;
use clap::Args;

use super::progress::Bar;
use modoai_cli::{usage, Exit};

use super::state::state_dir;
use super::tools;
use super::ForeignArgs;
use crate::collection::CollectionArg;
use crate::identify::{Identifier, MetadataTools};
use crate::index::{build_collection, BuildOptions, BuildReport};
use std::time::Duration;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  modoai-explorer index --archive my-archive
  modoai-explorer index --archive harvest-2025 --archive harvest-2026
  modoai-explorer index --archive some-crawl/ --archive site=site.wacz

A modoai archive keeps its index inside it (explorer-index/); every other input (a folder of
WARC/ARC files, one such file, a WACZ) has its index in --index-dir, never inside the input.
Run it again after a harvest or crawl: it reads only what was added since. A run killed at any
moment is completed by the next one.")]
pub(crate) struct IndexArgs {
    /// A collection: a modoai archive, a folder of WARC/ARC files, one such file or a WACZ;
    /// NAME=PATH names it (repeat for several).
    #[arg(long, value_name = "PATH", required = true)]
    archive: Vec<CollectionArg>,
    #[command(flatten)]
    foreign: ForeignArgs,
    /// Captures between two commits (checkpoints).
    #[arg(long, value_name = "N", default_value_t = 50_000)]
    commit_every: usize,
    /// A plugins.toml whose [settings] (isolation, timeout, processes) the PDF text workers run with.
    #[arg(long, value_name = "FILE")]
    plugins: Option<PathBuf>,
    /// Do not identify the format of captures without a CRATE (Siegfried, by default).
    #[arg(long)]
    no_identify: bool,
    /// A plugins.toml whose tools (JHOVE, ExifTool, file, md5, …) run on the payloads of
    /// captures without a CRATE, as the provider runs them; results cached in the state folder.
    #[arg(long, value_name = "FILE")]
    tools: Option<PathBuf>,
}

pub(crate) fn run(args: IndexArgs, quiet: bool) -> anyhow::Result<Exit> {
    let library = args
        .foreign
        .library(&args.archive, Duration::from_secs(1))?;
    if args.commit_every == 0 {
        return Err(usage("--commit-every must be at least 1"));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let mut options = BuildOptions::new(tools(args.plugins.as_deref())?, runtime.handle().clone());
    options.commit_every = args.commit_every;
    options.settle = args.foreign.settle();
    if !args.no_identify {
        options.identify = identifier(runtime.handle(), quiet);
    }
    if let Some(path) = &args.tools {
        options.metadata_tools = Some(metadata_tools(path, runtime.handle(), quiet)?);
    }
    let cancel = std::sync::Arc::clone(&options.cancel);
    runtime.spawn(async move {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("a SIGTERM handler");
        tokio::select! { _ = tokio::signal::ctrl_c() => {}, _ = term.recv() => {} }
        cancel.store(true, Ordering::Relaxed);
    });
    let bar = Bar::new(quiet);
    for a in library.archives() {
        let report = build_collection(&a.collection, &options, &bar)
            .with_context(|| format!("cannot index {}", a.dir.display()))?;
        if let Some(read) = &report.read {
            say_foreign(&a.name, &report, read);
            continue;
        }
        if !quiet {
            let rebuilt = if report.rebuilt {
                " (the index was damaged and rebuilt)"
            } else {
                ""
            };
            eprintln!(
                "{}: {} captures added, {} in the index{rebuilt}",
                a.name, report.added, report.total
            );
            if report.deletions > 0 {
                eprintln!("{}: {} deleted files added", a.name, report.deletions);
            }
            if report.problems > 0 {
                eprintln!(
                    "{}: {} captures without text (their files could not be read as text)",
                    a.name, report.problems
                );
            }
        }
    }
    let runners = [
        ("identification", "payloads", "identified by Siegfried"),
        ("tools", "results", "tool runs"),
    ]
    .into_iter()
    .zip([
        options.identify.as_ref().map(Identifier::runner),
        options.metadata_tools.as_ref().map(MetadataTools::runner),
    ]);
    for ((what, found, ran), runner) in runners {
        let Some(runner) = runner else { continue };
        if !quiet {
            let counts = runner.counts();
            eprintln!(
                "{what}: {} {found} from the cache, {} {ran} ({} processes started; cache {})",
                counts.cached,
                counts.run,
                runner.processes_started(),
                runner.cache_dir().display()
            );
        }
        runner.shutdown();
    }
    Ok(Exit::Done)
}

/// The summary of a foreign collection's run, on stderr (even with `--quiet`: it is the run's
/// report of what was skipped): files, records, captures, revisits, unresolved revisits,
/// skipped ranges with their reasons, digest mismatches.
fn say_foreign(name: &str, report: &BuildReport, read: &modoai_archive::any::Summary) {
    let skipped: u64 = read.skipped.values().map(|(n, _)| n).sum();
    let reasons: Vec<String> = read
        .skipped
        .iter()
        .map(|(reason, (n, bytes))| format!("{reason} {n} ({bytes} bytes)"))
        .collect();
    eprintln!(
        "{name}: {} files, {} records, {} captures added ({} in the index), {} revisits, {} \
         unresolved revisits, {skipped} skipped{}, {} digest mismatches",
        read.files,
        read.record_count(),
        report.added,
        report.total,
        report.revisits,
        report.unresolved,
        match reasons.is_empty() {
            true => String::new(),
            false => format!(" ({})", reasons.join(", ")),
        },
        read.digest_mismatches,
    );
    for skip in &read.skips {
        eprintln!(
            "{name}: skipped {} bytes of {} at {}: {}",
            skip.bytes, skip.source, skip.start, skip.reason
        );
    }
    let m = &report.metadata;
    if m.crates + m.other + m.untied > 0 {
        eprintln!(
            "{name}: metadata records: {} CRATEs tied to their captures, {} CRATEs whose capture \
             was not found, {} other metadata kept (crawler metadata such as outlinks)",
            m.crates, m.untied, m.other
        );
    }
    for path in &report.not_read {
        eprintln!(
            "{name}: not read: {} (not *.warc, *.warc.gz, *.arc or *.arc.gz)",
            path.display()
        );
    }
    if read.waiting > 0 {
        eprintln!(
            "{name}: {} files still being written, left for the next run",
            read.waiting
        );
    }
    if report.problems > 0 {
        eprintln!(
            "{name}: {} captures without text (their payloads could not be read as text)",
            report.problems
        );
    }
}

/// The tools of the plugins.toml at `path` for captures without a CRATE, their cache in the
/// state folder; one warning when some are not installed (their captures get findings that say
/// `missing`). An error when the file cannot be read or is not a plugins.toml.
pub(super) fn metadata_tools(
    path: &std::path::Path,
    runtime: &tokio::runtime::Handle,
    quiet: bool,
) -> anyhow::Result<MetadataTools> {
    let tools = MetadataTools::load(path, &state_dir(), runtime.clone())
        .with_context(|| format!("--tools {}", path.display()))?;
    if !tools.all_healthy() {
        let health = tools.health_line();
        if !quiet {
            eprintln!(
                "warning: --tools {}: {health}; their results say so, the index is built all \
                 the same",
                path.display()
            );
        }
        tracing::warn!(tools = %path.display(), %health, "some tools are not available");
    }
    Ok(tools)
}

/// Siegfried for the captures without a format, its cache in the state folder; none, with one
/// warning, when it is not installed.
pub(super) fn identifier(runtime: &tokio::runtime::Handle, quiet: bool) -> Option<Identifier> {
    match Identifier::siegfried(&state_dir(), runtime.clone()) {
        Ok(id) => Some(id),
        Err(e) => {
            if !quiet {
                eprintln!("warning: {e}; captures without a CRATE are indexed without a format");
            }
            tracing::warn!(error = %e, "formats are not identified");
            None
        }
    }
}

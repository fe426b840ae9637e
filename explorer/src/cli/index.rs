//! `modoai-explorer index`.

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use anyhow::Context as _;
use clap::Args;

use super::progress::Bar;
use modoai_cli::{usage, Exit};

use super::state::state_dir;
use super::{archives, tools};
use crate::identify::Identifier;
use crate::index::{build, BuildOptions};
use crate::search::Library;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  modoai-explorer index --archive my-archive
  modoai-explorer index --archive harvest-2025 --archive harvest-2026

The index is kept inside each archive (explorer-index/). Run it again after a harvest: it adds
only the captures harvested since. A run killed at any moment is completed by the next one.")]
pub(crate) struct IndexArgs {
    /// An archive folder written by modoai-harvester (repeat for several).
    #[arg(long, value_name = "DIR", required = true)]
    archive: Vec<PathBuf>,
    /// Captures between two commits (checkpoints).
    #[arg(long, value_name = "N", default_value_t = 50_000)]
    commit_every: usize,
    /// A plugins.toml whose [settings] (isolation, timeout) pdftotext runs with.
    #[arg(long, value_name = "FILE")]
    plugins: Option<PathBuf>,
    /// Do not identify the format of captures without a CRATE (Siegfried, by default).
    #[arg(long)]
    no_identify: bool,
}

pub(crate) fn run(args: IndexArgs, quiet: bool) -> anyhow::Result<Exit> {
    archives(&args.archive)?;
    if args.commit_every == 0 {
        return Err(usage("--commit-every must be at least 1"));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let mut options = BuildOptions::new(tools(args.plugins.as_deref())?, runtime.handle().clone());
    options.commit_every = args.commit_every;
    if !args.no_identify {
        options.identify = identifier(runtime.handle(), quiet);
    }
    let cancel = std::sync::Arc::clone(&options.cancel);
    runtime.spawn(async move {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("a SIGTERM handler");
        tokio::select! { _ = tokio::signal::ctrl_c() => {}, _ = term.recv() => {} }
        cancel.store(true, Ordering::Relaxed);
    });
    let library = Library::new(&args.archive, std::time::Duration::from_secs(1));
    let bar = Bar::new(quiet);
    for a in library.archives() {
        let report = build(&a.dir, &a.name, &options, &bar)
            .with_context(|| format!("cannot index {}", a.dir.display()))?;
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
    if let (Some(id), false) = (&options.identify, quiet) {
        let counts = id.counts();
        eprintln!(
            "identification: {} payloads from the cache, {} identified by Siegfried ({} processes \
             started; cache {})",
            counts.cached,
            counts.run,
            id.processes_started(),
            id.cache_dir().display()
        );
    }
    if let Some(id) = &options.identify {
        id.shutdown();
    }
    Ok(Exit::Done)
}

/// Siegfried for the captures without a format, its cache in the state folder; none, with one
/// warning, when it is not installed.
fn identifier(runtime: &tokio::runtime::Handle, quiet: bool) -> Option<Identifier> {
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

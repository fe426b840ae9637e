//! `harvest`: one list of one endpoint into an archive.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use modoai_archive::archive::{Archive, ArchiveLayout};
use modoai_cli::Exit;
use modoai_harvester::client::Client;
use modoai_harvester::harvest::{HarvestOptions, Harvester, Summary};

use super::{
    check_date, endpoint_url, explore, interrupt, progress, store, summary, usage, ClientArgs,
    WarcArgs, PROGRAM,
};

pub(super) const HARVEST_HELP: &str = "\
Examples:
  modoai-harvester harvest https://example.org/modoai --archive archive/
  modoai-harvester harvest https://example.org/modoai --archive archive/ \\
      --metadata-prefix oai_dc --set mime:image --from 2026-01-01 --delay 1

Run the same command again to continue an interrupted harvest, or later to harvest what changed
since the last complete one.

Exit codes: see modoai-harvester --help.";

#[derive(Debug, Args)]
pub(super) struct HarvestArgs {
    /// The OAI-PMH base URL, e.g. http://example.org/modoai
    #[arg(value_parser = endpoint_url)]
    url: String,
    /// The archive folder (created if missing).
    #[arg(long, value_name = "DIR")]
    archive: PathBuf,
    /// The metadata format. Default: the one the archive holds of this endpoint; for a new
    /// archive, oai_crate when the endpoint offers it, else oai_dc.
    #[arg(long, value_name = "PREFIX")]
    metadata_prefix: Option<String>,
    /// Harvest only this set and the sets below it: a MIME set (mime:image), a folder
    /// (path:reports) or a named set of a modoai site, any set of another endpoint. One the
    /// endpoint does not list (ListSets) is an error, not an empty harvest.
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
    /// Bring the archive's search index up to date after the harvest, by running
    /// `modoai-explorer index --archive DIR` (modoai-explorer must be installed beside
    /// modoai-harvester).
    #[arg(long)]
    index: bool,
    #[command(flatten)]
    warc: WarcArgs,
    #[command(flatten)]
    pub(super) client: ClientArgs,
}

/// Harvests one list; the exit code.
pub(super) fn run(
    args: HarvestArgs,
    client: Client,
    handle: tokio::runtime::Handle,
    quiet: bool,
    cancel: tokio_util::sync::CancellationToken,
) -> anyhow::Result<Exit> {
    check_date("--from", args.from.as_deref())?;
    check_date("--until", args.until.as_deref())?;
    if args.index && args.warc.store.is_some() {
        return Err(usage(
            "--index reads the WARC files that --store moves away: index a fetched copy instead",
        ));
    }
    let created = !args.archive.exists();
    let mut archive = Archive::open(&args.archive, args.warc.options())
        .with_context(|| format!("cannot open the archive {}", args.archive.display()))?;
    if !archive.recovery().is_empty() && !quiet {
        eprintln!("{}", summary::recovery(archive.recovery()));
    }
    let stored = store::Sync::start(args.warc.store.as_deref(), None, &args.archive, &handle)?;
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
    let result = Harvester::new(client, handle.clone(), &mut archive, &bar)
        .cancellation(cancel)
        .run(&options);
    bar.finish();
    let closed = archive.close().context("cannot close the archive");
    let usage = result.error.as_ref().is_some_and(|e| e.is_usage());
    // The items counted are in the ledger even if closing fails (its index or state): the
    // summary says what the run stored either way.
    if !quiet && !usage {
        summary::print(&summary::render(&result))?;
    }
    closed?;
    if args.index && !usage && !result.is_interrupted() {
        explore::index(&args.archive, quiet)?;
    }
    match &result.error {
        Some(_) if result.is_interrupted() => eprintln!("{}", interrupt::INTERRUPTED),
        Some(e) => {
            modoai_cli::report(PROGRAM, e);
            if !usage && (result.pages > 0 || result.resumed) {
                eprintln!("run the same command again to continue from the last completed page");
            }
        }
        None => {}
    }
    let code = summary::exit_code(&result);
    let keep_local = stored.is_some();
    let code = store::finish(stored, &args.archive, code, quiet);
    if created && !keep_local && holds_nothing(&args.archive, &result) {
        std::fs::remove_dir_all(&args.archive).with_context(|| {
            format!("cannot remove the empty archive {}", args.archive.display())
        })?;
        if !quiet {
            eprintln!(
                "nothing was harvested: the archive folder {} made by this run is removed",
                args.archive.display()
            );
        }
    }
    Ok(code)
}

/// A run that failed before its first page and left the ledger empty holds nothing to keep or
/// continue (see docs/archivists.md, "A harvest that reaches nothing").
fn holds_nothing(dir: &std::path::Path, result: &Summary) -> bool {
    let ledger = ArchiveLayout::new(dir).ledger();
    result.error.is_some()
        && !result.is_interrupted()
        && result.pages == 0
        && std::fs::metadata(ledger).map_or(true, |m| m.len() == 0)
}

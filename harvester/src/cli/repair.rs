//! `repair --archive DIR`: what opening an archive for writing does after a crash (close `.open`
//! WARC files at the last complete item, index what the index lacks), without harvesting.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use modoai_archive::archive::{Archive, ArchiveLayout, ArchiveOptions};

use super::summary;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  modoai-harvester repair --archive archive/

A harvest killed (kill -9, power loss) leaves `.open` WARC files and an index that lacks its last
items; the next harvest into the archive repairs them, and so does this command without
harvesting. Items written without their ledger line are cut (the next harvest fetches them
again). It takes the archive's lock: it fails, changing nothing, while a harvest runs.

Exit codes: see modoai-harvester --help.")]
pub(crate) struct RepairArgs {
    /// The archive folder.
    #[arg(long, value_name = "DIR")]
    archive: PathBuf,
}

pub(crate) fn run(args: RepairArgs) -> anyhow::Result<()> {
    let dir = &args.archive;
    ArchiveLayout::new(dir).require_ledger()?;
    let archive = Archive::open(dir, ArchiveOptions::default())
        .with_context(|| format!("cannot repair the archive {}", dir.display()))?;
    let recovery = archive.recovery().clone();
    archive
        .close()
        .with_context(|| format!("cannot write the index of {}", dir.display()))?;
    let mut out = std::io::stdout().lock();
    match recovery.is_empty() {
        true => writeln!(
            out,
            "{}: nothing to repair; the index is up to date",
            dir.display()
        )?,
        false => writeln!(out, "{}: {}", dir.display(), summary::recovery(&recovery))?,
    }
    Ok(out.flush()?)
}

//! `merge`: one archive from several (the shards of a harvest list), built beside the output
//! folder and renamed into place when complete.

use std::path::PathBuf;

use clap::Args;
use modoai_archive::merge::{merge, MergeError, MergeOptions};
use modoai_cli::Exit;

use super::{summary, usage};

/// `merge -h`: examples and where the exit codes are.
pub(crate) const HELP: &str = "\
Examples:
  modoai-harvester merge --archive shard-0/ --archive shard-1/ --out merged/
  modoai-harvester merge --archive shard-0/ --archive shard-1/ --out merged/ --link

WARC files are copied and read back (size and SHA-1 compared with the original) unless --link
hard-links them. Inputs must be disjoint (no list, item or WARC file name in two of them) and
share one archive id; an interrupted merge leaves no OUT (run it again).

Exit codes: see modoai-harvester --help.";

#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// An archive to merge (give it once per archive, in the order their ledgers are joined).
    #[arg(long = "archive", value_name = "DIR", required = true)]
    archives: Vec<PathBuf>,
    /// The merged archive: a folder that does not exist yet.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Hard-link the WARC files instead of copying them (same file system only).
    #[arg(long)]
    link: bool,
}

pub(crate) fn run(args: MergeArgs, quiet: bool) -> anyhow::Result<Exit> {
    let options = MergeOptions { link: args.link };
    let report = merge(&args.archives, &args.out, options).map_err(|e| match e {
        MergeError::NoInputs
        | MergeError::SameInput(_)
        | MergeError::OutExists(_)
        | MergeError::OpenFiles { .. }
        | MergeError::ArchiveIds { .. }
        | MergeError::Overlap { .. } => usage(e.to_string()),
        other => anyhow::Error::new(other),
    })?;
    if !quiet {
        let placed = if args.link {
            "linked"
        } else {
            "copied and verified"
        };
        summary::print(&format!(
            "merged {} archives into {}: {} items ({} ledger entries, {} payload bytes), {} WARC files ({} bytes) {placed}; archive id {}",
            report.archives,
            args.out.display(),
            report.items,
            report.entries,
            report.payload_bytes,
            report.warc_files,
            report.warc_bytes,
            report.archive_id.as_deref().unwrap_or("(none yet)"),
        ))?;
    }
    Ok(Exit::Done)
}

//! `wacz --archive DIR --out FILE.wacz`: the archive as one WACZ 1.1.1 package.

use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;
use modoai_archive::archive::{ArchiveLayout, Reader};
use modoai_archive::wacz::{write_wacz, WaczOptions};

use super::usage;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  modoai-harvester wacz --archive archive/ --out harvest.wacz
  modoai-harvester wacz --archive archive/ --out harvest.wacz --title 'Harvest of example.org'

The package holds the archive's WARC files (stored as they are, CRATE metadata records
included), its CDXJ index, one page per harvested HTML file and a datapackage.json with the
size and sha256 of every file. ReplayWeb.page opens it; pywb adds it with
`wb-manager add --unpack-wacz COLLECTION FILE.wacz`.

It is written to a temporary file beside FILE.wacz and renamed when complete: a target that
cannot be written (missing folder, read-only, full disk) stops with a message and leaves no
file. Needs read access to the archive only, but refuses one with open WARC files (a harvest
runs, or one was killed: see `modoai-harvester repair`).

Exit codes: see modoai-harvester --help.")]
pub(crate) struct WaczArgs {
    /// The archive folder.
    #[arg(long, value_name = "DIR")]
    archive: PathBuf,
    /// The package to write (its name ends in .wacz); replaced if it exists.
    #[arg(long, value_name = "FILE.wacz")]
    out: PathBuf,
    /// The package's title (default: "Archive" and the archive folder's name).
    #[arg(long, value_name = "TEXT")]
    title: Option<String>,
}

pub(crate) fn run(args: WaczArgs) -> anyhow::Result<()> {
    if args.out.extension().is_none_or(|e| e != "wacz") {
        return Err(usage(format!(
            "--out {} must name a .wacz file",
            args.out.display()
        )));
    }
    ArchiveLayout::new(&args.archive).require_ledger()?;
    let reader = Reader::open(&args.archive)?;
    let options = WaczOptions { title: args.title };
    let s = write_wacz(&reader, &options, &args.out)?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}: {} WARC files ({:.2} MB), {} index lines, {} pages; {:.2} MB",
        args.out.display(),
        s.warc_files,
        s.warc_bytes as f64 / 1e6,
        s.index_lines,
        s.pages,
        s.bytes as f64 / 1e6
    )?;
    Ok(out.flush()?)
}

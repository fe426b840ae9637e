//! WACZ 1.1.1 packages of an archive: its WARC files, a ZipNum CDXJ index, the list of its HTML
//! pages and a `datapackage.json` with the size and sha256 of every file, in one ZIP that
//! ReplayWeb.page, pywb and `wacz validate` read (`docs/archivists.md`, "WACZ packages").
//!
//! ```text
//! archive/NAME.warc.gz        every closed WARC file, STORED (replay reads them at CDXJ offsets)
//! indexes/index.cdx.gz        the CDXJ index in gzip blocks of 1024 lines, STORED
//! indexes/index.idx           one line per block: first key, offset, length, sha256
//! pages/pages.jsonl           a header line, then one line per harvested HTML file
//! datapackage.json            profile, wacz_version 1.1.1, title, created, resources
//! datapackage-digest.json     the sha256 of datapackage.json
//! ```
//!
//! Every file streams into the package (bounded memory, whatever the WARC files weigh) through
//! a temporary file beside the target, renamed onto it only when the package is complete.
//!
//! ```no_run
//! use modoai_archive::archive::Reader;
//! use modoai_archive::wacz::{write_wacz, WaczOptions};
//!
//! let reader = Reader::open("archive/".as_ref())?;
//! let written = write_wacz(&reader, &WaczOptions::default(), "harvest.wacz".as_ref())?;
//! println!("{} WARC files, {} pages", written.warc_files, written.pages);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod digest;
mod index;
mod package;
mod pages;
mod stream;
mod target;
mod write;

use std::io;
use std::path::PathBuf;

pub use package::WACZ_VERSION;
pub use pages::is_html;
pub use stream::{WaczStream, BATCH, DATA_WARC};
pub use write::write_wacz;

/// How a package is written.
#[derive(Clone, Debug, Default)]
pub struct WaczOptions {
    /// The package's `title`; default: "Archive " and the archive's folder name.
    pub title: Option<String>,
}

/// What a package holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WaczSummary {
    /// WARC files in `archive/`.
    pub warc_files: u64,
    /// Their bytes.
    pub warc_bytes: u64,
    /// Lines of the CDXJ index.
    pub index_lines: u64,
    /// Pages in `pages/pages.jsonl`.
    pub pages: u64,
    /// Bytes of the package file.
    pub bytes: u64,
}

/// Why a package was not written. In every case the target is left as it was.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WaczError {
    /// WARC files are still open, or items are not in the index yet.
    #[error(
        "{dir} is not ready to package: {open} WARC files are still open and {unindexed} items \
         are not in its index yet. A harvest is writing the archive, or one was killed: wait \
         for the harvest to end, or, when none runs, `modoai-harvester repair --archive {dir}`"
    )]
    NotReady {
        /// The archive folder.
        dir: String,
        /// `.open` WARC files.
        open: usize,
        /// Ledger entries not merged into the index.
        unindexed: u64,
    },
    /// The archive holds no WARC file.
    #[error("{0} holds no WARC file yet: harvest into it first")]
    Empty(String),
    /// The package could not be written.
    #[error("cannot write {}: {hint} ({source}); nothing was written", path.display())]
    Target {
        /// The target.
        path: PathBuf,
        /// What to do.
        hint: &'static str,
        /// The failure.
        source: io::Error,
    },
    /// The archive could not be read.
    #[error("cannot read the archive: {0}")]
    Read(#[source] io::Error),
}

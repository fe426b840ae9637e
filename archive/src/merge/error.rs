//! Why a merge was refused or failed: [`MergeError`].

use std::io;
use std::path::PathBuf;

use crate::archive::{ArchiveError, ReadError};

/// Why a merge was refused or failed. Nothing is left at the output folder in either case.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// No input archive.
    #[error("no archive to merge: give --archive at least once")]
    NoInputs,
    /// One archive given twice.
    #[error("{} is given twice", .0.display())]
    SameInput(PathBuf),
    /// The output folder exists.
    #[error("{} exists; merge writes a new archive: name a folder that does not exist", .0.display())]
    OutExists(PathBuf),
    /// An input is not a readable archive.
    #[error("{0}")]
    Input(#[from] ReadError),
    /// A harvester is writing an input.
    #[error("archive {} is in use by a harvester; merge it when that harvest has ended", .0.display())]
    InUse(PathBuf),
    /// An input has WARC files a killed harvest left open.
    #[error("archive {} has open WARC files ({files}); run `modoai-harvester repair --archive {}` first", .archive.display(), .archive.display())]
    OpenFiles {
        /// The archive.
        archive: PathBuf,
        /// Their names.
        files: String,
    },
    /// Two inputs have different archive ids: the PWIDs of one would stop resolving.
    #[error("archives {} ({first_id}) and {} ({second_id}) have different archive ids; harvest every shard with the same --archive-id", .first.display(), .second.display())]
    ArchiveIds {
        /// One archive.
        first: PathBuf,
        /// Its id.
        first_id: String,
        /// Another.
        second: PathBuf,
        /// Its id.
        second_id: String,
    },
    /// Two inputs harvested the same list, or hold the same item or the same WARC file name.
    #[error("archives {} and {} overlap: both hold {what}; merge archives of disjoint shards", .first.display(), .second.display())]
    Overlap {
        /// One archive.
        first: PathBuf,
        /// Another.
        second: PathBuf,
        /// What both hold.
        what: String,
    },
    /// A WARC file copied does not read back as its original.
    #[error("the copy of {} does not match the original ({what}); check the disk and merge again", .file.display())]
    Verify {
        /// The original.
        file: PathBuf,
        /// Size or digest.
        what: String,
    },
    /// The output archive could not be written.
    #[error("{0}")]
    Archive(#[from] ArchiveError),
    /// File system trouble.
    #[error("{}: {error}", .path.display())]
    Io {
        /// Where.
        path: PathBuf,
        /// What.
        error: io::Error,
    },
}

/// Maps an I/O error at `path` to [`MergeError::Io`].
pub(super) fn at(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> MergeError {
    let path = path.into();
    move |error| MergeError::Io { path, error }
}

//! Why an archive could not be opened or written: [`ArchiveError`].

use std::io;
use std::path::{Path, PathBuf};

use crate::cdxj::CdxjError;

/// Why an archive could not be opened or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArchiveError {
    /// Another process holds the archive.
    #[error("archive {0} is in use by another harvester (lock held on its `lock` file)")]
    Locked(PathBuf),
    // Io and Index carry their cause in the message, not as a `source()`: a report of the chain
    // would print it twice.
    /// File system trouble.
    #[error("archive {path}: {error}")]
    Io {
        /// Where.
        path: PathBuf,
        /// What.
        error: io::Error,
    },
    /// The index could not be updated.
    #[error("archive index: {0}")]
    Index(CdxjError),
    /// The archive id asked for is not the archive's, or not a valid one.
    #[error("{0}")]
    ArchiveId(String),
}

pub(super) fn at(path: &Path) -> impl FnOnce(io::Error) -> ArchiveError + '_ {
    move |error| ArchiveError::Io {
        path: path.to_owned(),
        error,
    }
}

impl From<CdxjError> for ArchiveError {
    fn from(e: CdxjError) -> Self {
        ArchiveError::Index(e)
    }
}

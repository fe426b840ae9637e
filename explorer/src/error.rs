//! The library's error type.

use std::io;
use std::path::PathBuf;

/// What went wrong in the explorer's library.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExplorerError {
    /// An archive could not be read.
    #[error(transparent)]
    Archive(#[from] modoai_archive::archive::ReadError),
    // Io and Index carry their cause in the message, not as a `source()`: a report of the chain
    // would print it twice.
    /// A file of an archive or of the index could not be read or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// Which file or folder.
        path: PathBuf,
        /// What went wrong.
        error: io::Error,
    },
    /// The index failed.
    #[error("index {}: {error}", path.display())]
    Index {
        /// The index folder.
        path: PathBuf,
        /// tantivy's error.
        error: tantivy::TantivyError,
    },
    /// Another process is indexing this archive.
    #[error("{} is being indexed by another process; wait for it to finish", path.display())]
    Busy {
        /// The index folder.
        path: PathBuf,
    },
    /// The tools of the extraction could not be set up.
    #[error(transparent)]
    Tools(#[from] modoai_tools::PluginsError),
    /// A collection's input cannot be listed.
    #[error(transparent)]
    Input(#[from] modoai_archive::any::InputError),
    /// The work was interrupted (SIGINT, SIGTERM) after its last checkpoint.
    #[error("interrupted; run the same command again to continue")]
    Interrupted,
}

impl ExplorerError {
    /// An I/O error about `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> ExplorerError {
        let path = path.into();
        move |error| ExplorerError::Io { path, error }
    }

    /// An index error about the index at `path`.
    pub fn index(path: impl Into<PathBuf>) -> impl FnOnce(tantivy::TantivyError) -> ExplorerError {
        let path = path.into();
        move |error| ExplorerError::Index { path, error }
    }
}

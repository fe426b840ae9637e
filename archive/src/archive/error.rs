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
    /// The file system holding the archive is full (or its quota is used up). What was being
    /// written is cut back, so no item is half-stored or counted; the same command continues
    /// once there is room.
    #[error(
        "archive {}: the disk is full ({}: {error}). Nothing half-written was kept: the item \
         being stored is not counted and is harvested again. Free some space on that disk (or \
         move the archive to a larger one) and run the same command again: the harvest \
         continues where it stopped",
        dir.display(),
        path.display()
    )]
    DiskFull {
        /// The archive folder.
        dir: PathBuf,
        /// The file being written.
        path: PathBuf,
        /// The operating system's error.
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
    move |error| ArchiveError::io(path, error)
}

impl ArchiveError {
    /// The error of `error` on `path` (a file or folder of the archive): [`DiskFull`] when the
    /// file system had no room, else [`Io`].
    ///
    /// [`DiskFull`]: ArchiveError::DiskFull
    /// [`Io`]: ArchiveError::Io
    ///
    /// ```
    /// use std::io;
    /// use modoai_archive::archive::ArchiveError;
    ///
    /// let full = io::Error::from_raw_os_error(28); // ENOSPC
    /// let e = ArchiveError::io("/data/archive/ledger.jsonl".as_ref(), full);
    /// assert!(e.is_disk_full());
    /// assert!(e.to_string().contains("run the same command again"));
    /// ```
    pub fn io(path: &Path, error: io::Error) -> ArchiveError {
        if !is_disk_full(&error) {
            return ArchiveError::Io {
                path: path.to_owned(),
                error,
            };
        }
        ArchiveError::DiskFull {
            dir: archive_dir(path),
            path: path.to_owned(),
            error,
        }
    }

    /// Whether the file system holding the archive ran out of room.
    pub fn is_disk_full(&self) -> bool {
        match self {
            ArchiveError::DiskFull { .. } => true,
            ArchiveError::Index(CdxjError::Io(e)) => is_disk_full(e),
            _ => false,
        }
    }
}

/// ENOSPC or EDQUOT.
pub(crate) fn is_disk_full(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
    )
}

/// The archive folder of one of its paths: the parent of `warcs/…`, `spool/…` or a top file.
fn archive_dir(path: &Path) -> PathBuf {
    let inner = ["warcs", "spool"];
    path.ancestors()
        .skip(1)
        .find(|a| !a.file_name().is_some_and(|n| inner.iter().any(|i| n == *i)))
        .unwrap_or(path)
        .to_owned()
}

impl From<CdxjError> for ArchiveError {
    fn from(e: CdxjError) -> Self {
        ArchiveError::Index(e)
    }
}

/// An index update that failed: [`ArchiveError::DiskFull`] when the disk had no room for the
/// merged index, else [`ArchiveError::Index`].
pub(super) fn index_error(path: &Path, e: CdxjError) -> ArchiveError {
    match e {
        CdxjError::Io(error) if is_disk_full(&error) => ArchiveError::io(path, error),
        other => ArchiveError::Index(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disk_full_names_the_archive_and_what_to_do() {
        let full = || io::Error::from_raw_os_error(28);
        for file in ["warcs/a.warc.gz.open", "spool", "ledger.jsonl"] {
            let e = ArchiveError::io(&Path::new("/data/arc").join(file), full());
            assert!(e.is_disk_full(), "{file}");
            let text = e.to_string();
            assert!(
                text.starts_with("archive /data/arc: the disk is full"),
                "{text}"
            );
            assert!(text.contains("Free some space"), "{text}");
        }
        let other = ArchiveError::io(Path::new("/x"), io::Error::other("boom"));
        assert!(!other.is_disk_full());
        assert!(matches!(other, ArchiveError::Io { .. }));
    }
}

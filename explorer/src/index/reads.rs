//! The directory a server searches: the document store read with positioned reads, every other
//! file mapped in memory as tantivy does.
//!
//! A search reads a few stored documents at random places of the store, the largest file of an
//! index (the excerpts kept for snippets). Mapped, each read left its pages, and the kernel's
//! read-ahead around them, in the server's resident memory, which grew towards the size of the
//! store as searches went on. Read into a buffer, a block is memory only while tantivy keeps it
//! (its cache of decompressed blocks is bounded). Postings, fast fields and term dictionaries
//! stay mapped: searches read them over and over.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, OwnedBytes, WatchCallback,
    WatchHandle, WritePtr,
};
use tantivy::HasLen;

/// The extension of the document store's files.
const STORE: &str = "store";

/// An index folder whose document stores are read, not mapped.
#[derive(Clone, Debug)]
pub(super) struct SearchDirectory {
    root: PathBuf,
    mapped: MmapDirectory,
}

impl SearchDirectory {
    pub(super) fn open(root: &Path) -> Result<Self, OpenDirectoryError> {
        Ok(SearchDirectory {
            root: root.to_owned(),
            mapped: MmapDirectory::open(root)?,
        })
    }
}

impl Directory for SearchDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        if path.extension().is_none_or(|e| e != STORE) {
            return self.mapped.get_file_handle(path);
        }
        let error = |e: io::Error| match e.kind() {
            io::ErrorKind::NotFound => OpenReadError::FileDoesNotExist(path.to_owned()),
            _ => OpenReadError::wrap_io_error(e, path.to_owned()),
        };
        let file = File::open(self.root.join(path)).map_err(error)?;
        let len = file.metadata().map_err(error)?.len() as usize;
        Ok(Arc::new(ReadAt { file, len }))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.mapped.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.mapped.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.mapped.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.mapped.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.mapped.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.mapped.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.mapped.acquire_lock(lock)
    }

    fn watch(&self, callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.mapped.watch(callback)
    }
}

/// A file read with `pread`: each read is a buffer of its own.
#[derive(Debug)]
struct ReadAt {
    file: File,
    len: usize,
}

impl FileHandle for ReadAt {
    fn read_bytes(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        if range.start > range.end || range.end > self.len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("bytes {range:?} of a file of {} bytes", self.len),
            ));
        }
        let mut buffer = vec![0; range.len()];
        self.file.read_exact_at(&mut buffer, range.start as u64)?;
        Ok(OwnedBytes::new(buffer))
    }
}

impl HasLen for ReadAt {
    fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_files_are_read_and_others_mapped_with_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.store"), b"0123456789").unwrap();
        std::fs::write(dir.path().join("a.idx"), b"0123456789").unwrap();
        let d = SearchDirectory::open(dir.path()).unwrap();
        for name in ["a.store", "a.idx"] {
            let f = d.get_file_handle(Path::new(name)).unwrap();
            assert_eq!(f.len(), 10);
            assert_eq!(f.read_bytes(2..5).unwrap().as_slice(), b"234");
        }
        let store = d.get_file_handle(Path::new("a.store")).unwrap();
        assert!(store.read_bytes(8..11).is_err());
        assert!(matches!(
            d.get_file_handle(Path::new("missing.store")),
            Err(OpenReadError::FileDoesNotExist(_))
        ));
    }
}

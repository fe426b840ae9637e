//! The package file: written to a temporary file beside the target and renamed onto it only
//! when complete, so a failed or interrupted run never leaves a half package under the
//! target's name.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use super::WaczError;

/// A package being written.
pub(crate) struct Target {
    tmp: NamedTempFile,
    path: PathBuf,
}

impl Target {
    /// Creates the temporary file `.NAME.XXXXXX.part` in the target's folder.
    pub(crate) fn create(path: &Path) -> Result<Target, WaczError> {
        if path.is_dir() {
            return Err(WaczError::Target {
                path: path.to_owned(),
                hint: "it is a folder: name a file, such as harvest.wacz",
                source: io::Error::from(io::ErrorKind::IsADirectory),
            });
        }
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        // Created as any new file is (0666 less the umask), not 0600 as temporary files are.
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".part")
            .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
            .tempfile_in(folder(path))
            .map_err(|e| failed(path, e))?;
        Ok(Target {
            tmp,
            path: path.to_owned(),
        })
    }

    /// The temporary file.
    pub(crate) fn file(&self) -> &File {
        self.tmp.as_file()
    }

    /// A scratch file on the same disk (removed when dropped).
    pub(crate) fn scratch(&self) -> Result<File, WaczError> {
        tempfile::tempfile_in(folder(&self.path)).map_err(|e| self.failed(e))
    }

    /// The [`WaczError::Target`] of a failed write.
    pub(crate) fn failed(&self, e: io::Error) -> WaczError {
        failed(&self.path, e)
    }

    /// Makes the file durable and renames it onto the target.
    pub(crate) fn commit(self) -> Result<(), WaczError> {
        self.tmp.as_file().sync_all().map_err(|e| self.failed(e))?;
        let path = self.path.clone();
        self.tmp
            .persist(&path)
            .map_err(|e| failed(&path, e.error))?;
        // The rename itself is durable once the folder is.
        if let Ok(dir) = File::open(folder(&path)) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

/// The folder the target goes into.
fn folder(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn failed(path: &Path, source: io::Error) -> WaczError {
    WaczError::Target {
        path: path.to_owned(),
        hint: hint(&source),
        source,
    }
}

/// What to do about a write that failed.
fn hint(e: &io::Error) -> &'static str {
    match e.kind() {
        io::ErrorKind::NotFound => "its folder does not exist: create it, or choose another --out",
        io::ErrorKind::PermissionDenied => {
            "its folder is not writable: choose another --out, or change the folder's permissions"
        }
        io::ErrorKind::ReadOnlyFilesystem => {
            "its folder is on a read-only file system: choose another --out"
        }
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => {
            "the disk is full: free space, or choose another --out on another disk"
        }
        _ => "check the path and the disk",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_fails_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let err = Target::create(&dir.path().join("no/such/a.wacz"))
            .err()
            .unwrap();
        assert!(err.to_string().contains("does not exist"), "{err}");
    }

    #[test]
    fn nothing_is_left_when_the_package_is_dropped_and_the_target_appears_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.wacz");
        drop(Target::create(&path).unwrap());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let t = Target::create(&path).unwrap();
        io::Write::write_all(&mut t.file(), b"PK").unwrap();
        t.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"PK");
        let mode = |p: &Path| {
            std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(p).unwrap().permissions())
        };
        let plain = dir.path().join("plain");
        std::fs::File::create(&plain).unwrap();
        assert_eq!(mode(&path), mode(&plain), "created as any new file is");
        std::fs::remove_file(&plain).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

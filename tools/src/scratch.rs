//! Where short-lived files go: the links a page of files is staged under, and the payloads the
//! explorer writes out for its tools. Thousands are made and removed a second; on a disk file
//! system each is an inode allocated and freed, and ext4 then searches past the inodes freed
//! recently for every new one (a third of an identification run's time, measured). So they go
//! to the memory-backed `/dev/shm` when the machine has one, unless `TMPDIR` names a folder.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The memory-backed folder, where Linux has one.
const SHM: &str = "/dev/shm";

/// The folder for short-lived files: `TMPDIR` when it is set, else `/dev/shm` when it is a
/// writable folder, else the system's temporary folder.
///
/// ```
/// let dir = modoai_tools::scratch::folder();
/// assert!(dir.is_dir());
/// ```
pub fn folder() -> &'static Path {
    static FOLDER: OnceLock<PathBuf> = OnceLock::new();
    FOLDER.get_or_init(|| choose(std::env::var_os("TMPDIR").is_some(), Path::new(SHM)))
}

/// A new private folder in [`folder`], removed when the value drops.
pub fn tempdir(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    tempfile::Builder::new().prefix(prefix).tempdir_in(folder())
}

/// The system's temporary folder when `tmpdir_set`; else `shm` when a folder can be made in it.
fn choose(tmpdir_set: bool, shm: &Path) -> PathBuf {
    let usable = !tmpdir_set
        && tempfile::Builder::new()
            .prefix("modoai-probe-")
            .tempdir_in(shm)
            .is_ok();
    match usable {
        true => shm.to_owned(),
        false => std::env::temp_dir(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shm_is_used_only_when_writable_and_tmpdir_unset() {
        let writable = tempfile::tempdir().unwrap();
        assert_eq!(choose(false, writable.path()), writable.path());
        assert_eq!(choose(true, writable.path()), std::env::temp_dir());
        let missing = writable.path().join("missing");
        assert_eq!(choose(false, &missing), std::env::temp_dir());
    }
}

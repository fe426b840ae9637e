//! A file to analyse, as the index knows it.

use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// A file to analyse. Its relative path, size, mtime and inode identify this version of it in
/// the cache.
#[derive(Clone, Debug)]
pub struct Subject {
    /// Where the file is; the tools see it linked under a neutral name.
    pub abs: PathBuf,
    /// Its path relative to the root it was found under.
    pub rel: PathBuf,
    /// Its MIME type, which chooses the plugins that apply.
    pub mime: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, in nanoseconds since the Unix epoch.
    pub mtime_ns: i128,
    /// Its inode number.
    pub inode: u64,
}

impl Subject {
    /// What identifies this version of the file for the cache.
    pub(crate) fn identity(&self) -> Vec<u8> {
        let mut id = self.rel.as_os_str().as_bytes().to_vec();
        id.push(0);
        id.extend_from_slice(format!("{}:{}:{}", self.size, self.mtime_ns, self.inode).as_bytes());
        id
    }
}

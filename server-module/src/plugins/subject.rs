//! A file to analyse, as the index knows it.

use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// A file to analyse.
#[derive(Clone, Debug)]
pub(crate) struct Subject {
    pub(crate) abs: PathBuf,
    pub(crate) rel: PathBuf,
    pub(crate) mime: String,
    pub(crate) size: u64,
    pub(crate) mtime_ns: i128,
    pub(crate) inode: u64,
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

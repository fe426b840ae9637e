//! Walking the document root: which paths can be records at all.
//!
//! Never records, and never opened: dot-names (and everything below a dot-folder), files that are
//! not regular (FIFOs, devices, sockets), symlinks whose target leaves the root or is not a regular
//! file, and the server's own files ([`OwnFiles`]). Symlinked folders are not descended into, so no
//! loop or escape is possible.

use std::fs::Metadata;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use modoai_protocol::Datestamp;
#[cfg(feature = "cli")]
use walkdir::{DirEntry, WalkDir};

use super::entry::Stamp;
use super::url_path;
use crate::own::{OwnFiles, OwnKind};

/// A file that may become a record once the site agrees to serve it.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub(crate) rel: PathBuf,
    pub(crate) path: Arc<str>,
    pub(crate) stamp: Stamp,
    pub(crate) datestamp: Datestamp,
}

/// True for a relative path whose every component is a normal, visible name.
pub(crate) fn is_visible(rel: &Path) -> bool {
    rel.components().all(|c| match c {
        Component::Normal(name) => !name.as_bytes().starts_with(b"."),
        _ => false,
    })
}

/// Why a path under the root is not a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Skip {
    /// Its name, or the name of a folder above it, starts with a dot.
    Hidden,
    /// Not a regular file: a FIFO, a device, a socket.
    NotRegular,
    /// A symlink whose target is missing, leaves the root, or is hidden.
    LinkOutside,
    /// One of the server's own files.
    Own(OwnKind),
    /// It cannot be read (the error says why).
    Unreadable(String),
}

/// Walks `root` (whose canonical form is `canonical_root`) below `below` and calls `each` for
/// every path, sorted by name, with the candidate, or the reason it is not a record: a hidden or own folder once
/// (nothing below it is entered), an unreadable path once; until `each` returns false. The
/// dry run of `modoai records`; the index walks with `walk.rs`.
#[cfg(feature = "cli")]
pub(crate) fn survey(
    root: &Path,
    canonical_root: &Path,
    own: &OwnFiles,
    below: &Path,
    mut each: impl FnMut(&Path, Result<Candidate, Skip>) -> bool,
) {
    let mut walker = WalkDir::new(root.join(below))
        .follow_links(false)
        .sort_by_file_name()
        .into_iter();
    while let Some(entry) = walker.next() {
        let entry = match entry {
            Ok(e) => e,
            Err(err) => {
                tracing::warn!(error = %err, "skipping unreadable path while indexing");
                let rel = err.path().and_then(|p| p.strip_prefix(root).ok());
                if let Some(rel) = rel.filter(|r| !r.as_os_str().is_empty()) {
                    if !each(rel, Err(Skip::Unreadable(err.to_string()))) {
                        return;
                    }
                }
                continue;
            }
        };
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let found = if entry.file_type().is_dir() {
            match folder_skip(&entry, own) {
                Some(skip) => {
                    walker.skip_current_dir();
                    Err(skip)
                }
                None => continue,
            }
        } else {
            classify(root, canonical_root, own, rel)
        };
        if !each(rel, found) {
            return;
        }
    }
}

/// Why the folder `entry` is not entered, if it is not.
#[cfg(feature = "cli")]
fn folder_skip(entry: &DirEntry, own: &OwnFiles) -> Option<Skip> {
    if entry.depth() > 0 && entry.file_name().as_bytes().starts_with(b".") {
        return Some(Skip::Hidden);
    }
    own.find(entry.path()).map(|f| Skip::Own(f.kind))
}

/// The candidate at `rel`, if that path is a record-worthy file now.
pub(crate) fn candidate(
    root: &Path,
    canonical_root: &Path,
    own: &OwnFiles,
    rel: &Path,
) -> Option<Candidate> {
    classify(root, canonical_root, own, rel).ok()
}

/// The candidate at `rel`, or why that path is not one. Nothing is opened.
pub(crate) fn classify(
    root: &Path,
    canonical_root: &Path,
    own: &OwnFiles,
    rel: &Path,
) -> Result<Candidate, Skip> {
    if rel.as_os_str().is_empty() || !is_visible(rel) {
        return Err(Skip::Hidden);
    }
    let full = root.join(rel);
    let (real, meta) = real_file(&full, canonical_root)?;
    if let Some(f) = own.find(&real) {
        return Err(Skip::Own(f.kind));
    }
    Ok(Candidate {
        rel: rel.to_path_buf(),
        path: Arc::from(url_path::encode(rel)),
        stamp: stamp(&meta),
        datestamp: Datestamp::from_unix(meta.mtime()),
    })
}

/// The metadata of the regular file at `full`, following a symlink only when its target stays
/// inside the root. Nothing is opened.
pub(crate) fn regular_file_meta(full: &Path, canonical_root: &Path) -> Option<Metadata> {
    real_file(full, canonical_root).ok().map(|(_, meta)| meta)
}

/// The path of the regular file at `full` with a final symlink resolved (when its target stays
/// inside the root), and its metadata.
fn real_file(full: &Path, canonical_root: &Path) -> Result<(PathBuf, Metadata), Skip> {
    let unreadable = |e: std::io::Error| Skip::Unreadable(e.to_string());
    let meta = std::fs::symlink_metadata(full).map_err(unreadable)?;
    let (real, meta) = if meta.file_type().is_symlink() {
        let target = std::fs::canonicalize(full).map_err(|_| Skip::LinkOutside)?;
        if !target.strip_prefix(canonical_root).is_ok_and(is_visible) {
            return Err(Skip::LinkOutside);
        }
        let meta = std::fs::metadata(&target).map_err(unreadable)?;
        (target, meta)
    } else {
        (full.to_path_buf(), meta)
    };
    if meta.is_file() {
        Ok((real, meta))
    } else {
        Err(Skip::NotRegular)
    }
}

fn stamp(meta: &Metadata) -> Stamp {
    Stamp {
        size: meta.len(),
        mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        inode: meta.ino(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibility() {
        assert!(is_visible(Path::new("a/b.txt")));
        assert!(!is_visible(Path::new(".git/config")));
        assert!(!is_visible(Path::new("a/.hidden")));
        assert!(!is_visible(Path::new("../x")));
        assert!(!is_visible(Path::new("/etc/passwd")));
    }
}

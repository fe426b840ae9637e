//! Walking the document root: which paths can be records at all.
//!
//! Never records, and never opened: dot-names (and everything below a dot-folder), files that are
//! not regular (FIFOs, devices, sockets), symlinks whose target leaves the root or is not a regular
//! file. Symlinked folders are not descended into, so no loop or escape is possible.

use std::fs::Metadata;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use modoai_protocol::Datestamp;
use walkdir::WalkDir;

use super::entry::Stamp;
use super::url_path;

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

/// Walks `root` (whose canonical form is `canonical_root`) and calls `each` for every candidate.
/// Runs on a blocking thread.
pub(crate) fn walk(
    root: &Path,
    canonical_root: &Path,
    below: &Path,
    mut each: impl FnMut(Candidate) -> bool,
) {
    let start = root.join(below);
    let walker = WalkDir::new(&start)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().as_bytes().starts_with(b"."));
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(err) => {
                tracing::warn!(error = %err, "skipping unreadable path while indexing");
                continue;
            }
        };
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        if let Some(c) = candidate(root, canonical_root, rel) {
            if !each(c) {
                return;
            }
        }
    }
}

/// The candidate at `rel`, if that path is a record-worthy file now.
pub(crate) fn candidate(root: &Path, canonical_root: &Path, rel: &Path) -> Option<Candidate> {
    if rel.as_os_str().is_empty() || !is_visible(rel) {
        return None;
    }
    let full = root.join(rel);
    let meta = regular_file_meta(&full, canonical_root)?;
    Some(Candidate {
        rel: rel.to_path_buf(),
        path: Arc::from(url_path::encode(rel)),
        stamp: stamp(&meta),
        datestamp: Datestamp::from_unix(meta.mtime()),
    })
}

/// The metadata of the regular file at `full`, following a symlink only when its target stays
/// inside the root. Nothing is opened.
pub(crate) fn regular_file_meta(full: &Path, canonical_root: &Path) -> Option<Metadata> {
    let meta = std::fs::symlink_metadata(full).ok()?;
    if meta.file_type().is_symlink() {
        let target = std::fs::canonicalize(full).ok()?;
        let under_root = target.strip_prefix(canonical_root).is_ok_and(is_visible);
        let meta = std::fs::metadata(&target).ok()?;
        return (under_root && meta.is_file()).then_some(meta);
    }
    meta.is_file().then_some(meta)
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

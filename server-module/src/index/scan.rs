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
use percent_encoding::{percent_decode_str, percent_encode, AsciiSet, NON_ALPHANUMERIC};
use walkdir::WalkDir;

use super::holdings::Stamp;

/// Everything of a path segment but unreserved characters (RFC 3986 §2.3) is percent-encoded,
/// which gives each file one canonical identifier.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A file that may become a record once the site agrees to serve it.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub(crate) rel: PathBuf,
    pub(crate) path: Arc<str>,
    pub(crate) stamp: Stamp,
    pub(crate) datestamp: Datestamp,
}

/// The URL path of a relative file path: each segment's bytes percent-encoded, joined by `/`.
pub(crate) fn encode_path(rel: &Path) -> String {
    let segments: Vec<String> = rel
        .components()
        .map(|c| percent_encode(c.as_os_str().as_bytes(), SEGMENT).to_string())
        .collect();
    segments.join("/")
}

/// The relative file path of a URL path made by [`encode_path`] (its exact inverse: `%` itself is
/// encoded there, and `/` cannot be part of a name).
pub(crate) fn decode_path(path: &str) -> PathBuf {
    let bytes: Vec<u8> = percent_decode_str(path).collect();
    PathBuf::from(std::ffi::OsStr::from_bytes(&bytes))
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
        path: Arc::from(encode_path(rel)),
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
    use std::ffi::OsStr;

    #[test]
    fn encodes_each_segment() {
        assert_eq!(
            encode_path(Path::new("a b/c+d/ü.txt")),
            "a%20b/c%2Bd/%C3%BC.txt"
        );
        assert_eq!(
            encode_path(Path::new(OsStr::from_bytes(b"bad\xffname"))),
            "bad%FFname"
        );
    }

    #[test]
    fn decoding_undoes_encoding() {
        for raw in [
            &b"a b/c+d/\xc3\xbc.txt"[..],
            b"bad\xffname",
            b"100%/%41%25.txt",
            b"dir/sub/~x-y_z.html",
            b"\x01\x7f/]]>&<'\"",
        ] {
            let rel = Path::new(OsStr::from_bytes(raw));
            assert_eq!(decode_path(&encode_path(rel)), rel, "{raw:?}");
        }
    }

    #[test]
    fn visibility() {
        assert!(is_visible(Path::new("a/b.txt")));
        assert!(!is_visible(Path::new(".git/config")));
        assert!(!is_visible(Path::new("a/.hidden")));
        assert!(!is_visible(Path::new("../x")));
        assert!(!is_visible(Path::new("/etc/passwd")));
    }
}

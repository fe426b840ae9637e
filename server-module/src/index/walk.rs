//! The index's walk of the root: depth first, each folder's entries in the byte order of their
//! URL path segments (a folder's segment followed by `/`), so the files come out in exactly the
//! byte order of their URL paths, the order of the `records` keyspace. The first index then
//! writes `records` as it walks, and a rescan compares the disk with the index in one merge of
//! two sorted streams, in memory that does not grow with the site.

use std::fs::{self, FileType};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use modoai_protocol::Datestamp;

use super::entry::Stamp;
use super::scan::{self, Candidate};
use super::url_path;
use crate::own::OwnFiles;

/// Called with the absolute path of every folder a walk is about to read (the watcher watches
/// it).
pub(super) type FolderHook = Arc<dyn Fn(&Path) + Send + Sync>;

/// Where a walk starts and what it must leave out.
pub(super) struct Walk<'a> {
    /// The root (canonical), walked from.
    pub(super) root: &'a Path,
    pub(super) own: &'a OwnFiles,
    /// True when one of the own paths lies inside the root (then every path is checked).
    pub(super) own_inside: bool,
    /// Told of each folder before it is read.
    pub(super) hook: Option<FolderHook>,
}

/// One entry of a folder, with its sort key.
struct Child {
    key: String,
    entry: fs::DirEntry,
    ty: FileType,
}

impl Walk<'_> {
    /// Calls `each` for every candidate at or below the folder `below` (relative; "" for the
    /// root) in URL path order, until `each` returns false. Returns false if stopped.
    pub(super) fn run(&self, below: &Path, each: &mut dyn FnMut(Candidate) -> bool) -> bool {
        let prefix = url_path::encode(below);
        self.folder(below, &prefix, each)
    }

    fn folder(&self, rel: &Path, prefix: &str, each: &mut dyn FnMut(Candidate) -> bool) -> bool {
        let dir = self.root.join(rel);
        if let Some(hook) = &self.hook {
            hook(&dir);
        }
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(err) => {
                if rel.as_os_str().is_empty() || dir.exists() {
                    tracing::warn!(path = %dir.display(), error = %err, "skipping unreadable folder while indexing");
                }
                return true;
            }
        };
        let mut children: Vec<Child> = entries
            .filter_map(Result::ok)
            .filter(|e| !e.file_name().as_bytes().starts_with(b"."))
            .filter_map(|e| {
                let ty = e.file_type().ok()?;
                let mut key = url_path::encode_segment(e.file_name().as_bytes());
                if ty.is_dir() {
                    key.push('/');
                }
                Some(Child { key, entry: e, ty })
            })
            .collect();
        children.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        for c in children {
            let child_rel = rel.join(c.entry.file_name());
            let path = if prefix.is_empty() {
                c.key.clone()
            } else {
                format!("{prefix}/{}", c.key)
            };
            let go_on = if c.ty.is_dir() {
                let folder = path.trim_end_matches('/');
                self.is_own(&child_rel) || self.folder(&child_rel, folder, each)
            } else {
                match self.candidate(&child_rel, path, &c) {
                    Some(found) => each(found),
                    None => true,
                }
            };
            if !go_on {
                return false;
            }
        }
        true
    }

    fn is_own(&self, rel: &Path) -> bool {
        self.own_inside && self.own.find(&self.root.join(rel)).is_some()
    }

    /// The candidate of a regular file, or of a symlink to one inside the root.
    /// (The metadata of a plain file is read relative to its folder, without resolving the path
    /// again.)
    fn candidate(&self, rel: &Path, path: String, c: &Child) -> Option<Candidate> {
        if c.ty.is_file() && self.is_own(rel) {
            return None;
        }
        let meta = || {
            c.entry
                .metadata()
                .ok()
                .filter(fs::Metadata::is_file)
                .map(|m| stamp(&m))
        };
        file_candidate(self.root, self.own, rel.to_path_buf(), path, c.ty, meta)
    }
}

/// The candidate at `rel` (URL path `path`, of type `ty`): a regular file with the stamp `meta`
/// reads (none if it is no longer a regular file), or a symlink to one inside the root; none
/// for anything else.
pub(super) fn file_candidate(
    root: &Path,
    own: &OwnFiles,
    rel: PathBuf,
    path: String,
    ty: FileType,
    meta: impl FnOnce() -> Option<Stamp>,
) -> Option<Candidate> {
    if ty.is_symlink() {
        return scan::classify(root, root, own, &rel).ok();
    }
    if !ty.is_file() {
        return None;
    }
    let stamp = meta()?;
    let secs = stamp.mtime_ns.div_euclid(1_000_000_000);
    Some(Candidate {
        rel,
        path: Arc::from(path),
        stamp,
        datestamp: Datestamp::from_unix(i64::try_from(secs).unwrap_or(i64::MAX)),
    })
}

fn stamp(meta: &fs::Metadata) -> Stamp {
    Stamp {
        size: meta.len(),
        mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        inode: meta.ino(),
    }
}

/// Every candidate below `root` in walk order, for tests.
#[cfg(test)]
fn all(root: &Path) -> Vec<String> {
    let own = OwnFiles::default();
    let w = Walk {
        root,
        own: &own,
        own_inside: false,
        hook: None,
    };
    let mut out = Vec::new();
    w.run(Path::new(""), &mut |c| {
        out.push(c.path.to_string());
        true
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_come_in_url_path_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        for f in [
            "a/x", "a-b", "a.txt", "a0", "a%/y", "b c/z", "a/b/c", "ab/d", ".hid/x", "z",
        ] {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, f).unwrap();
        }
        let got = all(&root);
        let mut sorted = got.clone();
        sorted.sort();
        assert_eq!(got, sorted);
        assert_eq!(got.len(), 9, "{got:?}");
        assert!(got.contains(&"a%25/y".to_owned()) && got.contains(&"b%20c/z".to_owned()));
        for p in &got {
            assert_eq!(url_path::encode(&url_path::decode(p)), *p);
        }
    }
}

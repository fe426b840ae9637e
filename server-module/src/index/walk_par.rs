//! The walk of the first index, in parallel: folders are read, their files `stat`ed and typed on
//! a pool of workers (`jwalk`, on `rayon`), and the candidates still come out in exactly the
//! order of the serial walk (`walk.rs`): each folder's entries in the byte order of their URL
//! path segments, a folder's segment followed by `/`. Hidden names, own paths and symlinks are
//! handled as there; every folder is watched (the hook) before it is read.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

use jwalk::{DirEntry, Parallelism, WalkDirGeneric};

use super::entry::Stamp;
use super::scan::Candidate;
use super::url_path;
use super::walk::{file_candidate, FolderHook, Walk};

/// What a worker learns of one entry: its sort key and, for a file that may be a record, the
/// candidate with its type (when the walk types files).
#[derive(Debug, Default)]
struct Slot {
    key: String,
    found: Option<(Candidate, Option<String>)>,
}

type State = ((), Slot);

/// What the workers share.
struct Shared {
    root: std::path::PathBuf,
    own: crate::own::OwnFiles,
    own_inside: bool,
    detect: bool,
    hook: Option<FolderHook>,
}

impl Walk<'_> {
    /// Calls `each` for every candidate below the root in URL path order (with its type when
    /// `detect`), until `each` returns false; folders are read on `threads` workers.
    pub(super) fn run_parallel(
        &self,
        threads: usize,
        detect: bool,
        each: &mut dyn FnMut(Candidate, Option<String>) -> bool,
    ) -> bool {
        let shared = Arc::new(Shared {
            root: self.root.to_path_buf(),
            own: self.own.clone(),
            own_inside: self.own_inside,
            detect,
            hook: self.hook.clone(),
        });
        if let Some(hook) = &shared.hook {
            hook(&shared.root);
        }
        let worker = shared.clone();
        let walk = WalkDirGeneric::<State>::new(&shared.root)
            .skip_hidden(false)
            .follow_links(false)
            .parallelism(Parallelism::RayonNewPool(threads.max(1)))
            .process_read_dir(move |depth, dir, _, children| {
                if depth.is_some() {
                    worker.prepare(dir, children);
                }
            });
        for entry in walk {
            match entry {
                Ok(mut e) => {
                    if let Some(err) = e.read_children_error.take() {
                        tracing::warn!(error = %err, "skipping unreadable folder while indexing");
                    }
                    if let Some((c, mime)) = e.client_state.found.take() {
                        if !each(c, mime) {
                            return false;
                        }
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, "skipping unreadable path while indexing")
                }
            }
        }
        true
    }
}

impl Shared {
    /// Runs on a worker for the folder `dir`, just read: drops hidden names, sorts the rest by
    /// URL path segment, reads each file's metadata (and type), and keeps out of own folders.
    fn prepare(&self, dir: &Path, children: &mut Vec<jwalk::Result<DirEntry<State>>>) {
        children.retain(|c| {
            c.as_ref()
                .is_ok_and(|e| !e.file_name.as_bytes().starts_with(b"."))
        });
        let Ok(rel_dir) = dir.strip_prefix(&self.root) else {
            return;
        };
        let prefix = url_path::encode(rel_dir);
        // File metadata is read relative to the open folder, not by resolving each full path.
        let folder = std::fs::File::open(dir).ok();
        for e in children.iter_mut().flatten() {
            self.slot(rel_dir, &prefix, folder.as_ref(), e);
        }
        children.sort_unstable_by(|a, b| match (a, b) {
            (Ok(a), Ok(b)) => a.client_state.key.cmp(&b.client_state.key),
            _ => std::cmp::Ordering::Equal,
        });
    }

    fn slot(
        &self,
        rel_dir: &Path,
        prefix: &str,
        folder: Option<&std::fs::File>,
        e: &mut DirEntry<State>,
    ) {
        let name = e.file_name.as_bytes();
        let mut key = url_path::encode_segment(name);
        let rel = rel_dir.join(&e.file_name);
        if e.file_type.is_dir() {
            key.push('/');
            if self.own_inside && self.own.find(&self.root.join(&rel)).is_some() {
                e.read_children_path = None;
            } else if let Some(hook) = &self.hook {
                hook(&self.root.join(&rel));
            }
        } else {
            let path = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}/{key}")
            };
            let own = e.file_type.is_file()
                && self.own_inside
                && self.own.find(&self.root.join(&rel)).is_some();
            let meta = || stamp_at(folder?, &e.file_name);
            let found = (!own)
                .then(|| file_candidate(&self.root, &self.own, rel, path, e.file_type, meta))
                .flatten();
            e.client_state.found = found.map(|c| {
                let mime = self.detect.then(|| self.detect(&c));
                (c, mime)
            });
        }
        e.client_state.key = key;
    }
}

impl Shared {
    /// The type of the file `c` as `mime::detect` gives it, by its name's extension first
    /// (without making its full path).
    fn detect(&self, c: &Candidate) -> String {
        let name = Path::new(c.rel.file_name().unwrap_or_default());
        crate::mime::by_extension(name)
            .or_else(|| crate::mime::sniff(&self.root.join(&c.rel)))
            .unwrap_or_else(|| crate::mime::OCTET_STREAM.to_owned())
    }
}

/// The stamp of the regular file `name` in the open folder `folder` (a symlink is not
/// followed); none if it is gone or no longer a regular file.
fn stamp_at(folder: &std::fs::File, name: &std::ffi::OsStr) -> Option<Stamp> {
    use rustix::fs::{statat, AtFlags, FileType};
    let st = statat(folder, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
    if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
        return None;
    }
    Some(Stamp {
        size: u64::try_from(st.st_size).unwrap_or(0),
        mtime_ns: i128::from(st.st_mtime) * 1_000_000_000 + i128::from(st.st_mtime_nsec),
        inode: st.st_ino,
    })
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::own::OwnFiles;

    #[test]
    fn finds_what_the_serial_walk_finds_in_the_same_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        for f in [
            "a/x", "a-b", "a.txt", "a0", "a%/y", "b c/z", "a/b/c", "ab/d", ".hid/x", "z", "é/ü",
        ] {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, f).unwrap();
        }
        for i in 0..300 {
            let p = root.join(format!("many/{}/f{i}", i % 7));
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, "x").unwrap();
        }
        std::os::unix::fs::symlink(root.join("z"), root.join("link")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("out")).unwrap();
        let own = OwnFiles::default();
        let w = Walk {
            root: &root,
            own: &own,
            own_inside: false,
            hook: None,
        };
        let mut serial = Vec::new();
        w.run(Path::new(""), &mut |c| {
            serial.push((c.path.to_string(), c.stamp));
            true
        });
        let mut parallel = Vec::new();
        w.run_parallel(2, true, &mut |c, mime| {
            assert!(mime.is_some());
            parallel.push((c.path.to_string(), c.stamp));
            true
        });
        assert_eq!(parallel.len(), 311, "{parallel:?}");
        assert!(parallel == serial);
    }
}

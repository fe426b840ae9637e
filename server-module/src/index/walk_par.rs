//! The walk of the first index, in parallel: folders are read, their files `stat`ed and typed on
//! a pool of workers (`rayon`), a few folders ahead of the walk, and the candidates still come out
//! in exactly the order of the serial walk (`walk.rs`): each folder's entries in the byte order of
//! their URL path segments, a folder's segment followed by `/`. Hidden names, own paths and
//! symlinks are handled as there; every folder is watched (the hook) before it is read.
//!
//! The walk waits for a folder read ahead by blocking on its channel. (The walker this replaces,
//! `jwalk`, polled with `sched_yield` while a folder was being read: on two cores that loop took a
//! core from the workers, and the first index of a million files spent an eighth of its CPU in
//! the scheduler.) At most [`AHEAD_PER_THREAD`] folders per worker are read ahead and not yet
//! walked, so memory does not grow with the site's width.

use std::cell::Cell;
use std::collections::VecDeque;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

use super::entry::Stamp;
use super::scan::Candidate;
use super::url_path;
use super::walk::{file_candidate, FolderHook, Walk};

/// Folders read ahead and not yet walked, per worker.
const AHEAD_PER_THREAD: usize = 4;

/// One entry of a folder read by [`Shared::read`], in walk order.
enum Entry {
    /// A file that may be a record, with its type (when the walk types files).
    File(Candidate, Option<String>),
    /// A folder to walk into, maybe being read ahead.
    Folder {
        rel: PathBuf,
        prefix: String,
        ahead: Option<Receiver<Vec<Entry>>>,
    },
}

/// What the workers share.
struct Shared {
    root: PathBuf,
    own: crate::own::OwnFiles,
    own_inside: bool,
    detect: bool,
    hook: Option<FolderHook>,
}

/// The walk's side: the pool and how many folders are read ahead (counted by the walk alone).
struct Ahead {
    shared: Arc<Shared>,
    pool: Option<rayon::ThreadPool>,
    out: Cell<usize>,
    limit: usize,
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
        let threads = threads.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("modoai-walk-{i}"))
            // A folder whose worker panicked is read again by the walk itself.
            .panic_handler(|_| tracing::error!("a worker of the walk panicked"))
            .build()
            .inspect_err(|err| {
                tracing::warn!(error = %err, "no worker threads for the walk; reading folders in turn")
            })
            .ok();
        let ahead = Ahead {
            shared: Arc::new(Shared {
                root: self.root.to_path_buf(),
                own: self.own.clone(),
                own_inside: self.own_inside,
                detect,
                hook: self.hook.clone(),
            }),
            pool,
            out: Cell::new(0),
            limit: threads * AHEAD_PER_THREAD,
        };
        let root = ahead.shared.read(Path::new(""), "");
        ahead.walk(root, each)
    }
}

impl Ahead {
    /// Walks the entries of one folder, reading its folders ahead while the limit allows.
    fn walk(
        &self,
        entries: Vec<Entry>,
        each: &mut dyn FnMut(Candidate, Option<String>) -> bool,
    ) -> bool {
        let mut entries = VecDeque::from(entries);
        // The entries at the front already looked at by `start`.
        let mut looked = 0;
        loop {
            while looked < entries.len() && self.start(&mut entries[looked]) {
                looked += 1;
            }
            let Some(entry) = entries.pop_front() else {
                return true;
            };
            looked = looked.saturating_sub(1);
            let go_on = match entry {
                Entry::File(c, mime) => each(c, mime),
                Entry::Folder { rel, prefix, ahead } => {
                    let inner = match ahead {
                        Some(rx) => {
                            let got = rx.recv();
                            self.out.set(self.out.get() - 1);
                            // A worker that panicked sent nothing: its folder is read here.
                            got.unwrap_or_else(|_| self.shared.read(&rel, &prefix))
                        }
                        None => self.shared.read(&rel, &prefix),
                    };
                    self.walk(inner, each)
                }
            };
            if !go_on {
                return false;
            }
        }
    }

    /// Starts reading `entry` ahead if it is a folder and the limit allows; false once the limit
    /// is reached.
    fn start(&self, entry: &mut Entry) -> bool {
        let Entry::Folder { rel, prefix, ahead } = entry else {
            return true;
        };
        let Some(pool) = &self.pool else {
            return false;
        };
        if self.out.get() >= self.limit {
            return false;
        }
        self.out.set(self.out.get() + 1);
        let (tx, rx) = sync_channel(1);
        let (shared, rel, prefix) = (self.shared.clone(), rel.clone(), prefix.clone());
        pool.spawn(move || {
            let _ = tx.send(shared.read(&rel, &prefix));
        });
        *ahead = Some(rx);
        true
    }
}

impl Shared {
    /// Reads the folder `rel` (URL path `prefix`): drops hidden names, sorts the rest by URL path
    /// segment, reads each file's metadata (and type), and keeps out of own folders.
    fn read(&self, rel: &Path, prefix: &str) -> Vec<Entry> {
        let dir = self.root.join(rel);
        if let Some(hook) = &self.hook {
            hook(&dir);
        }
        // File metadata is read relative to the open folder, not by resolving each full path.
        let (folder, list) = match std::fs::File::open(&dir).and_then(|f| {
            let list = std::fs::read_dir(&dir)?;
            Ok((f, list))
        }) {
            Ok(both) => both,
            Err(err) => {
                if rel.as_os_str().is_empty() || dir.exists() {
                    tracing::warn!(path = %dir.display(), error = %err, "skipping unreadable folder while indexing");
                }
                return Vec::new();
            }
        };
        let mut keyed: Vec<(String, Entry)> = list
            .filter_map(Result::ok)
            .filter(|e| !e.file_name().as_bytes().starts_with(b"."))
            .filter_map(|e| {
                let ty = e.file_type().ok()?;
                self.entry(rel, prefix, &folder, &e.file_name(), ty)
            })
            .collect();
        keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        keyed.into_iter().map(|(_, e)| e).collect()
    }

    /// The entry of `name` in the folder `rel`, with its sort key; none for what is no record.
    fn entry(
        &self,
        rel: &Path,
        prefix: &str,
        folder: &std::fs::File,
        name: &OsStr,
        ty: std::fs::FileType,
    ) -> Option<(String, Entry)> {
        let mut key = url_path::encode_segment(name.as_bytes());
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}/{key}")
        };
        let rel = rel.join(name);
        let own = || self.own_inside && self.own.find(&self.root.join(&rel)).is_some();
        if ty.is_dir() {
            key.push('/');
            if own() {
                return None;
            }
            let folder = Entry::Folder {
                rel,
                prefix: path,
                ahead: None,
            };
            return Some((key, folder));
        }
        if ty.is_file() && own() {
            return None;
        }
        let meta = || stamp_at(folder, name);
        let c = file_candidate(&self.root, &self.own, rel, path, ty, meta)?;
        let mime = self.detect.then(|| self.detect(&c));
        Some((key, Entry::File(c, mime)))
    }

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
fn stamp_at(folder: &std::fs::File, name: &OsStr) -> Option<Stamp> {
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

    /// A root holding `files` (each with its path as content).
    fn tree(files: impl IntoIterator<Item = String>) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        for f in files {
            let p = root.join(&f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, f).unwrap();
        }
        (dir, root)
    }

    /// A walk of `root` with no own paths inside and no hook.
    fn plain<'a>(root: &'a Path, own: &'a OwnFiles) -> Walk<'a> {
        Walk {
            root,
            own,
            own_inside: false,
            hook: None,
        }
    }

    /// The serial walk's candidates: the order the parallel one must give.
    fn serial(w: &Walk<'_>) -> Vec<(String, Stamp)> {
        let mut out = Vec::new();
        w.run(Path::new(""), &mut |c| {
            out.push((c.path.to_string(), c.stamp));
            true
        });
        out
    }

    #[test]
    fn finds_what_the_serial_walk_finds_in_the_same_order() {
        let named = [
            "a/x", "a-b", "a.txt", "a0", "a%/y", "b c/z", "a/b/c", "ab/d", ".hid/x", "z", "é/ü",
        ];
        let many = (0..300).map(|i| format!("many/{}/f{i}", i % 7));
        let (_dir, root) = tree(named.map(str::to_owned).into_iter().chain(many));
        std::os::unix::fs::symlink(root.join("z"), root.join("link")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("out")).unwrap();
        let own = OwnFiles::default();
        let w = plain(&root, &own);
        let mut parallel = Vec::new();
        w.run_parallel(2, true, &mut |c, mime| {
            assert!(mime.is_some());
            parallel.push((c.path.to_string(), c.stamp));
            true
        });
        assert_eq!(parallel.len(), 311, "{parallel:?}");
        assert!(parallel == serial(&w));
    }

    #[test]
    fn a_tree_wider_and_deeper_than_the_read_ahead_comes_out_whole_and_in_order() {
        let (_dir, root) = tree((0..400).map(|i| format!("w{}/d{}/e{}/f{i}", i % 9, i % 5, i % 3)));
        let own = OwnFiles::default();
        let w = plain(&root, &own);
        let serial: Vec<String> = serial(&w).into_iter().map(|(p, _)| p).collect();
        assert_eq!(serial.len(), 400);
        for threads in [1, 3] {
            let mut parallel = Vec::new();
            assert!(w.run_parallel(threads, false, &mut |c, _| {
                parallel.push(c.path.to_string());
                true
            }));
            assert!(parallel == serial, "{threads} worker(s)");
            // Stopped early, the walk says so and gives the first files only.
            let mut first = Vec::new();
            assert!(!w.run_parallel(threads, false, &mut |c, _| {
                first.push(c.path.to_string());
                first.len() < 25
            }));
            assert!(first == serial[..25], "{threads} worker(s), stopped");
        }
    }
}

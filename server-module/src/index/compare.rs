//! Comparing the disk with the index: a walk in URL path order merged with the stored records
//! of the same range, giving what must be looked at (new or changed files) and what is gone.
//! Runs on a blocking thread; memory stays bounded whatever the size of the site.

use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

use fjall::Readable;
use tokio::sync::mpsc;

use super::codec::Record;
use super::scan::{self, Candidate};
use super::store::Index;
use super::url_path;
use super::walk::{FolderHook, Walk};
use crate::own::OwnFiles;

/// Work items per message.
const BATCH: usize = 512;

/// What a comparison finds.
#[derive(Debug)]
pub(super) enum Work {
    /// A file that is new or changed; with its type when the index types files itself.
    Check(Candidate, Option<String>),
    /// A path with a live record and no file any more.
    Gone(Arc<str>),
}

/// What a comparison needs.
pub(super) struct Compare<'a> {
    pub(super) index: &'a Index,
    pub(super) root: &'a Path,
    pub(super) own: &'a OwnFiles,
    pub(super) own_inside: bool,
    /// Whether the index types files itself (the standalone server) rather than asking the site.
    pub(super) detect: bool,
    /// Told of each folder before a walk reads it.
    pub(super) hook: Option<FolderHook>,
}

/// Sends work in batches; false once the receiver is gone.
struct Out<'a> {
    buf: Vec<Work>,
    tx: &'a mpsc::Sender<Vec<Work>>,
    open: bool,
}

impl Out<'_> {
    fn push(&mut self, w: Work) -> bool {
        self.buf.push(w);
        if self.buf.len() >= BATCH {
            self.open = self.tx.blocking_send(std::mem::take(&mut self.buf)).is_ok();
        }
        self.open
    }

    fn finish(mut self) {
        if !self.buf.is_empty() && self.open {
            let _ = self.tx.blocking_send(std::mem::take(&mut self.buf));
        }
    }
}

impl Compare<'_> {
    /// Every file below the folder `below` ("" for the root), compared with the stored records
    /// under it (all records when `stored` is false: the first index has none).
    pub(super) fn folder(&self, below: &Path, stored: bool, tx: &mpsc::Sender<Vec<Work>>) {
        let mut out = Out {
            buf: Vec::new(),
            tx,
            open: true,
        };
        let snap = self.index.db.snapshot();
        let range = prefix_range(below);
        let mut records = snap
            .range(&self.index.ks.records, range)
            .filter_map(|g| g.into_inner().ok())
            .filter(|_| stored)
            .filter_map(|(k, v)| {
                Some((
                    Arc::<str>::from(std::str::from_utf8(&k).ok()?),
                    Record::decode(&v)?,
                ))
            })
            .peekable();
        let walk = Walk {
            root: self.root,
            own: self.own,
            own_inside: self.own_inside,
            hook: self.hook.clone(),
        };
        if !stored && below.as_os_str().is_empty() {
            // The first index: nothing stored to compare with, every file is new.
            let threads = std::thread::available_parallelism().map_or(2, usize::from);
            walk.run_parallel(threads, self.detect, &mut |c, mime| {
                out.push(Work::Check(c, mime))
            });
            out.finish();
            return;
        }
        let is_dir = std::fs::symlink_metadata(self.root.join(below)).is_ok_and(|m| m.is_dir());
        if is_dir || below.as_os_str().is_empty() {
            walk.run(below, &mut |c| {
                while let Some((path, r)) = records.next_if(|(p, _)| **p < *c.path) {
                    if !r.deleted && !out.push(Work::Gone(path)) {
                        return false;
                    }
                }
                let stored = records.next_if(|(p, _)| **p == *c.path).map(|(_, r)| r);
                if stored.is_some_and(|r| !r.deleted && r.stamp == c.stamp) {
                    return true;
                }
                let mime = self
                    .detect
                    .then(|| crate::mime::detect(&self.root.join(&c.rel)));
                out.push(Work::Check(c, mime))
            });
        }
        for (path, r) in records {
            if !r.deleted && !out.push(Work::Gone(path)) {
                break;
            }
        }
        out.finish();
    }

    /// The file at `rel` compared with its stored record.
    pub(super) fn file(&self, rel: &Path) -> Option<Work> {
        let path = url_path::encode(rel);
        let stored = self
            .index
            .ks
            .records
            .get(path.as_bytes())
            .ok()?
            .and_then(|v| Record::decode(&v));
        match scan::candidate(self.root, self.root, self.own, rel) {
            Some(c)
                if stored
                    .as_ref()
                    .is_some_and(|r| !r.deleted && r.stamp == c.stamp) =>
            {
                None
            }
            Some(c) => {
                let mime = self
                    .detect
                    .then(|| crate::mime::detect(&self.root.join(rel)));
                Some(Work::Check(c, mime))
            }
            None if stored.as_ref().is_some_and(|r| !r.deleted) => {
                Some(Work::Gone(Arc::from(path)))
            }
            None => None,
        }
    }
}

/// The keys of `records` at or below the folder `below`: all, or those starting with its URL
/// path and `/` (up to `0`, the byte after `/`).
fn prefix_range(below: &Path) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    if below.as_os_str().is_empty() {
        return (Bound::Unbounded, Bound::Unbounded);
    }
    let p = url_path::encode(below);
    (
        Bound::Included(format!("{p}/").into_bytes()),
        Bound::Excluded(format!("{p}0").into_bytes()),
    )
}

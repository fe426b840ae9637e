//! Keeping the index current: one full scan at start, then file-system events (inotify through
//! `notify`) for single paths, and a periodic reconciling rescan in case events were lost.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use modoai_protocol::Datestamp;
use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher};
use tokio::sync::mpsc;

use super::entry::{Entry, Stamp};
use super::scan::{self, Candidate};
use super::store::Index;
use super::url_path;
use crate::fetch::Site;
use crate::own::OwnFiles;

/// How many internal HEAD requests run at once while indexing.
const PROBES_IN_FLIGHT: usize = 16;

/// Settings of the background maintenance.
#[derive(Clone, Debug)]
pub(crate) struct Maintenance {
    pub(crate) root: PathBuf,
    pub(crate) rescan: Duration,
    pub(crate) watch: bool,
    pub(crate) tombstones: bool,
    /// The server's own paths: never records.
    pub(crate) own: OwnFiles,
}

/// Builds the index, then keeps it current until the index is dropped by every user.
pub(crate) async fn maintain(index: Arc<Index>, site: Arc<Site>, m: Maintenance) {
    let canonical = match std::fs::canonicalize(&m.root) {
        Ok(c) => c,
        Err(err) => {
            tracing::error!(root = %m.root.display(), error = %err, "document root is not accessible");
            index.set_ready();
            return;
        }
    };
    let own = m.own.resolved();
    for f in own.inside(&canonical) {
        tracing::warn!(
            path = %f.path.display(),
            "the {} is inside the document root: it is never a record, never analysed, and the standalone server never serves it",
            f.kind
        );
    }
    // Walk and watch the canonical root, so event paths and walked paths share one prefix.
    let ctx = Ctx {
        index: index.clone(),
        site,
        root: canonical.clone(),
        canonical,
        tombstones: m.tombstones,
        own,
    };
    let started = std::time::Instant::now();
    ctx.full_scan().await;
    index.set_ready();
    tracing::info!(
        records = index.len(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "index ready"
    );

    let (tx, mut rx) = mpsc::unbounded_channel::<PathBuf>();
    let _watcher = if m.watch {
        start_watcher(&ctx.root, tx)
    } else {
        None
    };
    let mut ticker = tokio::time::interval(m.rescan);
    ticker.reset();
    loop {
        tokio::select! {
            Some(first) = rx.recv() => {
                // Editors and copies send bursts of events: gather them briefly, then reconcile once.
                tokio::time::sleep(Duration::from_millis(50)).await;
                let mut paths: HashSet<PathBuf> = HashSet::from([first]);
                while let Ok(p) = rx.try_recv() {
                    paths.insert(p);
                }
                for p in paths {
                    ctx.reconcile(&p).await;
                }
            }
            _ = ticker.tick() => ctx.full_scan().await,
        }
        if Arc::strong_count(&index) == 1 {
            return;
        }
    }
}

fn start_watcher(
    root: &Path,
    tx: mpsc::UnboundedSender<PathBuf>,
) -> Option<notify::RecommendedWatcher> {
    let handler = move |res: notify::Result<notify::Event>| match res {
        Ok(event) if is_change(&event.kind) => {
            event.paths.into_iter().for_each(|p| drop(tx.send(p)))
        }
        Ok(_) => {}
        Err(err) => {
            tracing::warn!(error = %err, "file watcher error; the periodic rescan will catch up")
        }
    };
    let mut watcher = notify::recommended_watcher(handler)
        .inspect_err(
            |err| tracing::warn!(error = %err, "no file watcher; relying on periodic rescans"),
        )
        .ok()?;
    match watcher.watch(root, RecursiveMode::Recursive) {
        Ok(()) => Some(watcher),
        Err(err) => {
            tracing::warn!(error = %err, "cannot watch the document root; relying on periodic rescans");
            None
        }
    }
}

/// Whether an event can change what the index holds. inotify also reports opens and reads:
/// a visitor's GET, a tool reading a file, and the walk of a folder by a rescan itself, which
/// would otherwise set off the next rescan, forever. A close after writing is a change.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(access) => matches!(access, AccessKind::Close(AccessMode::Write)),
        _ => true,
    }
}

struct Ctx {
    index: Arc<Index>,
    site: Arc<Site>,
    root: PathBuf,
    canonical: PathBuf,
    tombstones: bool,
    own: OwnFiles,
}

impl Ctx {
    /// Walks the whole root, updates what changed and sweeps what vanished.
    async fn full_scan(&self) {
        let seen = self.scan_below(Path::new("")).await;
        let gone: Vec<Arc<str>> = self
            .index
            .read()
            .live_paths()
            .into_iter()
            .filter(|p| !seen.contains(p))
            .collect();
        self.delete(gone);
        self.index.scanned();
    }

    /// Updates the index for one changed path: a file, a folder, or something that vanished.
    async fn reconcile(&self, abs: &Path) {
        let Ok(rel) = abs.strip_prefix(&self.root) else {
            return;
        };
        if !rel.as_os_str().is_empty() && !scan::is_visible(rel) || self.own.find(abs).is_some() {
            return;
        }
        let is_dir = std::fs::symlink_metadata(abs).is_ok_and(|m| m.is_dir());
        let prefix = url_path::encode(rel);
        let dir_prefix = if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}/")
        };
        let seen = if is_dir {
            self.scan_below(rel).await
        } else {
            HashSet::new()
        };
        let mut gone: Vec<Arc<str>> = self
            .index
            .read()
            .live_paths_under(&dir_prefix)
            .into_iter()
            .filter(|p| !seen.contains(p))
            .collect();
        if !is_dir {
            match scan::candidate(&self.root, &self.canonical, &self.own, rel) {
                Some(c) => self.update(vec![c]).await,
                None => gone.push(Arc::from(prefix.as_str())),
            }
        }
        self.delete(gone);
    }

    /// Scans `rel` (a folder, or "" for the root) and returns the paths that are candidates.
    async fn scan_below(&self, rel: &Path) -> HashSet<Arc<str>> {
        let (tx, rx) = mpsc::channel::<Candidate>(1024);
        let (root, canonical, own, below) = (
            self.root.clone(),
            self.canonical.clone(),
            self.own.clone(),
            rel.to_path_buf(),
        );
        let walker = tokio::task::spawn_blocking(move || {
            scan::walk(&root, &canonical, &own, &below, |c| {
                tx.blocking_send(c).is_ok()
            });
        });
        let mut seen = HashSet::new();
        let stream = tokio_stream_from(rx).chunks(256);
        futures_util::pin_mut!(stream);
        while let Some(batch) = stream.next().await {
            seen.extend(batch.iter().map(|c| c.path.clone()));
            self.update(batch).await;
        }
        let _ = walker.await;
        seen
    }

    /// Probes new or changed candidates and stores the outcome.
    async fn update(&self, candidates: Vec<Candidate>) {
        let changed: Vec<Candidate> = {
            let h = self.index.read();
            candidates
                .into_iter()
                .filter(|c| {
                    h.get(&c.path)
                        .is_none_or(|e| e.deleted || e.stamp != c.stamp)
                })
                .collect()
        };
        let probed: Vec<(Candidate, Option<Option<String>>)> = futures_util::stream::iter(changed)
            .map(|c| async move {
                let served = self.site.served_type(&c.path).await;
                (c, served)
            })
            .buffer_unordered(PROBES_IN_FLIGHT)
            .collect()
            .await;
        let mut h = self.index.write();
        for (c, served) in probed {
            match served {
                Some(ty) => {
                    let mime = ty
                        .or_else(|| crate::mime::sniff(&self.root.join(&c.rel)))
                        .unwrap_or_else(|| crate::mime::OCTET_STREAM.to_owned());
                    h.upsert(entry(c, mime));
                }
                // The site refuses to serve it: not a record (and no tombstone: it was never served).
                None => drop(h.remove(&c.path)),
            }
        }
    }

    /// Replaces the live records at `paths` by tombstones (or drops them).
    fn delete(&self, paths: Vec<Arc<str>>) {
        if paths.is_empty() {
            return;
        }
        let now = Datestamp::now();
        let mut h = self.index.write();
        for path in paths {
            // A second event for the same deletion must not remove the tombstone.
            if h.get(&path).is_none_or(|e| e.deleted) {
                continue;
            }
            let Some(old) = h.remove(&path) else { continue };
            tracing::debug!(path = %path, "record deleted");
            if self.tombstones && self.index.is_ready() {
                let stamp = Stamp {
                    size: 0,
                    mtime_ns: 0,
                    inode: 0,
                };
                h.upsert(Entry {
                    path: old.path.clone(),
                    datestamp: now,
                    mime: old.mime.clone(),
                    stamp,
                    deleted: true,
                });
            }
        }
    }
}

/// The live record of a probed candidate.
fn entry(c: Candidate, mime: String) -> Entry {
    Entry {
        path: c.path,
        datestamp: c.datestamp,
        mime: Arc::from(mime),
        stamp: c.stamp,
        deleted: false,
    }
}

fn tokio_stream_from<T: Send + 'static>(
    mut rx: mpsc::Receiver<T>,
) -> impl futures_util::Stream<Item = T> {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

#[cfg(test)]
mod tests {
    use notify::event::{CreateKind, ModifyKind, RemoveKind, RenameMode};

    use super::*;

    #[test]
    fn opens_and_reads_are_not_changes() {
        for kind in [
            EventKind::Access(AccessKind::Open(AccessMode::Any)),
            EventKind::Access(AccessKind::Open(AccessMode::Read)),
            EventKind::Access(AccessKind::Close(AccessMode::Read)),
            EventKind::Access(AccessKind::Read),
            EventKind::Access(AccessKind::Any),
        ] {
            assert!(!is_change(&kind), "{kind:?}");
        }
        for kind in [
            EventKind::Access(AccessKind::Close(AccessMode::Write)),
            EventKind::Create(CreateKind::File),
            EventKind::Modify(ModifyKind::Name(RenameMode::To)),
            EventKind::Modify(ModifyKind::Any),
            EventKind::Remove(RemoveKind::Folder),
            EventKind::Any,
            EventKind::Other,
        ] {
            assert!(is_change(&kind), "{kind:?}");
        }
    }
}

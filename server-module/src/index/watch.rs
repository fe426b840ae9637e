//! Keeping the index current: the first index of a new site (in bulk), or the stored index
//! answering at once while a reconciling scan catches up with the disk; then file-system events
//! (inotify, through the `inotify` crate: `watcher.rs`) for single paths, and a periodic rescan in
//! case events were lost.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use modoai_protocol::Datestamp;
use tokio::sync::mpsc;

use super::bulk::{self, Found};
use super::compare::{Compare, Work};
use super::scan;
use super::store::Index;
use super::walk::FolderHook;
use super::watcher::Watches;
use super::write::Op;
use crate::fetch::Site;
use crate::own::OwnFiles;
use crate::sets::{Definitions, SiteSets};

/// How often the change log's retention is applied (more often when it keeps less).
const RETENTION_EVERY: Duration = Duration::from_secs(3600);

/// How many internal HEAD requests run at once while indexing (Layer mode).
const PROBES_IN_FLIGHT: usize = 16;

/// Where the MIME type of a record comes from.
#[derive(Clone)]
pub(crate) enum Types {
    /// The index detects it as the standalone server does (extension, then content): the
    /// standalone server *is* the site, so it asks no one.
    Detect,
    /// The site the Layer wraps: an internal HEAD per new or changed file.
    Site(Arc<Site>),
}

/// Settings of the background maintenance.
#[derive(Clone)]
pub(crate) struct Maintenance {
    pub(crate) root: PathBuf,
    pub(crate) rescan: Duration,
    pub(crate) watch: bool,
    pub(crate) tombstones: bool,
    /// How long the change log keeps a change (`retain.rs`).
    pub(crate) keep_changes: Duration,
    /// The server's own paths: never records.
    pub(crate) own: OwnFiles,
    pub(crate) types: Types,
    /// The folder and named sets wanted, followed as they change.
    pub(crate) sets: SiteSets,
}

struct Ctx {
    index: Arc<Index>,
    types: Types,
    root: PathBuf,
    tombstones: bool,
    own: OwnFiles,
    own_inside: bool,
    /// Watches each folder the walks read (none without a watcher).
    hook: Option<FolderHook>,
    keep_changes: Duration,
}

/// Builds or loads the index, then keeps it current until the index is dropped by every user.
pub(crate) async fn maintain(index: Arc<Index>, m: Maintenance) {
    let root = match std::fs::canonicalize(&m.root) {
        Ok(c) => c,
        Err(err) => {
            tracing::error!(root = %m.root.display(), error = %err, "document root is not accessible");
            index.set_ready();
            return;
        }
    };
    let own = m.own.resolved();
    for f in own.inside(&root) {
        tracing::warn!(
            path = %f.path.display(),
            "the {} is inside the document root: it is never a record, never analysed, and the standalone server never serves it",
            f.kind
        );
    }
    let own_inside = own.inside(&root).next().is_some();
    // The watcher watches each folder as the walks read it (a folder before its entries), so no
    // change after a folder is read is missed: a first index becomes ready when its walk is
    // done; a stored index answers at once and is reconciled by a walk that also sets up the
    // watches.
    let (tx, rx) = mpsc::unbounded_channel::<PathBuf>();
    let watches = m.watch.then(|| Watches::start(tx)).flatten();
    let ctx = Arc::new(Ctx {
        own_inside,
        index: index.clone(),
        types: m.types,
        root,
        tombstones: m.tombstones,
        own,
        hook: watches.as_ref().map(Watches::hook),
        keep_changes: m.keep_changes,
    });
    let mut sets = m.sets.subscribe();
    index.publish_definitions(sets.borrow_and_update().clone());
    let started = Instant::now();
    let stored = ctx.start().await;
    let elapsed_ms = started.elapsed().as_millis() as u64;
    if stored {
        // The records first follow the sets wanted now, so that the reconciling scan compares
        // files only.
        super::regroup::apply(index.clone(), index.definitions()).await;
        ctx.full_scan().await;
        tracing::info!(
            records = index.len(),
            elapsed_ms,
            "index reconciled with the disk"
        );
    } else {
        index.set_ready();
        tracing::info!(records = index.len(), elapsed_ms, "index ready");
    }
    drop(index);
    ctx.follow(rx, sets, m.rescan).await;
}

impl Ctx {
    /// File-system events and periodic rescans, until the index is dropped by every other user.
    async fn follow(
        self: &Arc<Self>,
        mut rx: mpsc::UnboundedReceiver<PathBuf>,
        mut sets: tokio::sync::watch::Receiver<Arc<Definitions>>,
        rescan: Duration,
    ) {
        let mut ticker = tokio::time::interval(rescan);
        ticker.reset();
        // The change log's retention is applied now, then every hour.
        let mut retention = tokio::time::interval(RETENTION_EVERY.min(self.keep_changes));
        loop {
            tokio::select! {
                Some(first) = rx.recv() => {
                    // Editors and copies send bursts of events: gather them briefly, then
                    // reconcile once.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    let mut paths: HashSet<PathBuf> = HashSet::from([first]);
                    while let Ok(p) = rx.try_recv() {
                        paths.insert(p);
                    }
                    for p in paths {
                        self.reconcile(&p).await;
                    }
                }
                Ok(()) = sets.changed() => {
                    let defs = sets.borrow_and_update().clone();
                    super::regroup::apply(self.index.clone(), defs).await;
                }
                _ = ticker.tick() => self.full_scan().await,
                _ = retention.tick() => self.forget_old_changes().await,
            }
            // This task's handle is the last one: the layer and its services are gone.
            if Arc::strong_count(&self.index) == 1 {
                self.index.sync();
                return;
            }
        }
    }
}

impl Ctx {
    fn compare(&self) -> Compare<'_> {
        Compare {
            index: &self.index,
            root: &self.root,
            own: &self.own,
            own_inside: self.own_inside,
            detect: matches!(self.types, Types::Detect),
            hook: self.hook.clone(),
        }
    }

    /// The first index (the caller makes it ready), or the stored one made ready; true for a
    /// stored one (which the caller then reconciles with the disk).
    async fn start(self: &Arc<Self>) -> bool {
        let started = Instant::now();
        if self.index.catalog().complete {
            if !self.tombstones && self.index.catalog().deleted > 0 {
                self.forget_deletions().await;
            }
            self.index.set_ready();
            tracing::info!(
                records = self.index.len(),
                elapsed_ms = started.elapsed().as_millis() as u64,
                "index loaded from the state folder; reconciling with the disk"
            );
            return true;
        }
        if let Err(err) = self.first_index().await {
            tracing::error!(error = %err, "the first index failed; the periodic rescan will try again");
        }
        self.index.scanned();
        false
    }

    /// Walks the root and stores every file found, in bulk.
    async fn first_index(self: &Arc<Self>) -> Result<(), String> {
        let (tx, mut rx) = mpsc::channel::<Vec<Work>>(8);
        let walker = self.spawn_compare(PathBuf::new(), false, tx);
        let (found_tx, found_rx) = std::sync::mpsc::sync_channel::<Vec<Found>>(8);
        let index = self.index.clone();
        let loader =
            tokio::task::spawn_blocking(move || bulk::load(&index, found_rx.into_iter().flatten()));
        while let Some(work) = rx.recv().await {
            let found = self
                .typed(work)
                .await
                .into_iter()
                .filter_map(|op| match op {
                    Op::Put {
                        path,
                        stamp,
                        mtime,
                        mime,
                    } => Some(Found {
                        path,
                        stamp,
                        mtime,
                        mime,
                    }),
                    _ => None,
                });
            if found_tx.send(found.collect()).is_err() {
                break;
            }
        }
        drop(found_tx);
        let _ = walker.await;
        match loader.await {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    fn spawn_compare(
        self: &Arc<Self>,
        below: PathBuf,
        stored: bool,
        tx: mpsc::Sender<Vec<Work>>,
    ) -> tokio::task::JoinHandle<()> {
        let ctx = self.clone();
        tokio::task::spawn_blocking(move || ctx.compare().folder(&below, stored, &tx))
    }

    /// Walks the whole root and stores what changed and what vanished.
    async fn full_scan(self: &Arc<Self>) {
        self.scan_below(PathBuf::new()).await;
        self.index.scanned();
    }

    /// Compares the folder `below` with the index and stores the differences.
    async fn scan_below(self: &Arc<Self>, below: PathBuf) {
        let (tx, mut rx) = mpsc::channel::<Vec<Work>>(4);
        let walker = self.spawn_compare(below, true, tx);
        while let Some(work) = rx.recv().await {
            let ops = self.typed(work).await;
            self.store(ops).await;
        }
        let _ = walker.await;
    }

    /// Updates the index for one changed path: a file, a folder, or something that vanished.
    async fn reconcile(self: &Arc<Self>, abs: &Path) {
        let Ok(rel) = abs.strip_prefix(&self.root) else {
            return;
        };
        if !rel.as_os_str().is_empty() && !scan::is_visible(rel) || self.own.find(abs).is_some() {
            return;
        }
        // A folder's files, or the files of a folder that was there (removed, renamed).
        self.scan_below(rel.to_path_buf()).await;
        if rel.as_os_str().is_empty() || abs.is_dir() {
            return;
        }
        let ctx = self.clone();
        let rel = rel.to_path_buf();
        let work = tokio::task::spawn_blocking(move || ctx.compare().file(&rel)).await;
        if let Ok(Some(work)) = work {
            let ops = self.typed(vec![work]).await;
            self.store(ops).await;
        }
    }

    /// The ops of `work`: types asked of the site where needed, in order.
    async fn typed(&self, work: Vec<Work>) -> Vec<Op> {
        if matches!(self.types, Types::Detect) {
            // The walk typed every file already: nothing to wait for.
            return work.into_iter().map(|w| self.detected(w)).collect();
        }
        futures_util::stream::iter(work)
            .map(|w| self.op(w))
            .buffered(PROBES_IN_FLIGHT)
            .collect()
            .await
    }

    fn detected(&self, work: Work) -> Op {
        match work {
            Work::Gone(path) => Op::Delete { path },
            Work::Check(c, mime) => {
                let mime = mime.unwrap_or_else(|| crate::mime::detect(&self.root.join(&c.rel)));
                Op::Put {
                    path: c.path,
                    stamp: c.stamp,
                    mtime: c.datestamp,
                    mime,
                }
            }
        }
    }

    async fn op(&self, work: Work) -> Op {
        let (c, detected) = match work {
            Work::Gone(path) => return Op::Delete { path },
            Work::Check(c, mime) => (c, mime),
        };
        let mime = match (&self.types, detected) {
            (_, Some(mime)) => mime,
            (Types::Site(site), None) => match site.served_type(&c.path).await {
                Some(ty) => ty
                    .or_else(|| crate::mime::sniff(&self.root.join(&c.rel)))
                    .unwrap_or_else(|| crate::mime::OCTET_STREAM.to_owned()),
                // The site refuses to serve it: not a record (and no deletion: it was never served).
                None => return Op::Forget { path: c.path },
            },
            (Types::Detect, None) => crate::mime::detect(&self.root.join(&c.rel)),
        };
        Op::Put {
            path: c.path,
            stamp: c.stamp,
            mtime: c.datestamp,
            mime,
        }
    }

    /// Applies `ops` on a blocking thread.
    async fn store(&self, ops: Vec<Op>) {
        if ops.is_empty() {
            return;
        }
        let (index, tombstones) = (self.index.clone(), self.tombstones);
        match tokio::task::spawn_blocking(move || index.apply(ops, tombstones)).await {
            Ok(Ok(n)) if n > 0 => tracing::debug!(records = n, "index updated"),
            Ok(Ok(_)) => {}
            Ok(Err(err)) => {
                tracing::error!(error = %err, "cannot update the site index; the next rescan will try again")
            }
            Err(err) => tracing::error!(error = %err, "the index update stopped"),
        }
    }

    /// Removes the changes older than the change log keeps.
    async fn forget_old_changes(&self) {
        let secs = i64::try_from(self.keep_changes.as_secs()).unwrap_or(i64::MAX / 2);
        let before = Datestamp::now().plus(-secs);
        let index = self.index.clone();
        match tokio::task::spawn_blocking(move || index.forget_changes_before(before)).await {
            Ok(Ok(n)) if n > 0 => {
                tracing::info!(changes = n, before = %before, "old changes removed from the change log")
            }
            Ok(Ok(_)) => {}
            Ok(Err(err)) => {
                tracing::error!(error = %err, "cannot remove old changes from the change log; will try again")
            }
            Err(err) => tracing::error!(error = %err, "the change log's retention stopped"),
        }
    }

    /// Removes the stored deletions (deletion records were turned off since they were stored).
    async fn forget_deletions(&self) {
        let index = self.index.clone();
        let paths = tokio::task::spawn_blocking(move || index.deleted_paths())
            .await
            .unwrap_or_default();
        for chunk in paths.chunks(1024) {
            let ops = chunk
                .iter()
                .map(|p| Op::Forget { path: p.clone() })
                .collect();
            self.store(ops).await;
        }
    }
}

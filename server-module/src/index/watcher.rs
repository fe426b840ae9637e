//! [`Watches`]: the file-system watcher (inotify) of the document root. Each folder is watched
//! on its own, by the walks that read it (the first index, rescans, the scan of a folder an
//! event names), so setting the watcher up costs no walk of its own and a folder that appears
//! later is watched once it is scanned.
//!
//! The watches ask only for changes: creations, deletions, moves, writes and attribute changes.
//! Opens and reads are left out, so a visitor's GET, a tool reading a file or a rescan's own
//! walk wakes nothing (a general-purpose watcher that asks for opens cost every plain GET a
//! wake-up and an event of its own).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::StreamExt;
use inotify::{Event, EventMask, Inotify, WatchDescriptor, WatchMask};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::walk::FolderHook;

/// What a watch reports: every change to a folder's entries or to the folder itself, and no
/// open, read or close without a write.
const CHANGES: WatchMask = WatchMask::ATTRIB
    .union(WatchMask::CREATE)
    .union(WatchMask::DELETE)
    .union(WatchMask::CLOSE_WRITE)
    .union(WatchMask::MODIFY)
    .union(WatchMask::MOVED_FROM)
    .union(WatchMask::MOVED_TO)
    .union(WatchMask::DELETE_SELF)
    .union(WatchMask::MOVE_SELF);

/// The folder of each watch.
type Folders = Arc<Mutex<HashMap<WatchDescriptor, PathBuf>>>;

/// The watcher, shared by the walks that add folders to it; it stops when dropped.
pub(super) struct Watches {
    watches: Mutex<inotify::Watches>,
    folders: Folders,
    /// Set once a folder could not be watched (the warning is given once).
    warned: AtomicBool,
    reader: JoinHandle<()>,
}

impl Drop for Watches {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Watches {
    /// A watcher that sends the path of every change to `tx`; none (with a warning) where the
    /// system has none. Runs on the current tokio runtime.
    pub(super) fn start(tx: mpsc::UnboundedSender<PathBuf>) -> Option<Arc<Watches>> {
        let events = Inotify::init()
            .and_then(|inotify| inotify.into_event_stream([0u8; 8192]))
            .inspect_err(
                |err| tracing::warn!(error = %err, "no file watcher; relying on periodic rescans"),
            )
            .ok()?;
        let watches = Mutex::new(events.watches());
        let folders = Folders::default();
        let seen = folders.clone();
        let reader = tokio::spawn(async move {
            let mut events = events;
            while let Some(event) = events.next().await {
                match event {
                    Ok(event) => report(&seen, event, &tx),
                    Err(err) => {
                        tracing::warn!(error = %err, "file watcher error; the periodic rescan will catch up")
                    }
                }
            }
        });
        Some(Arc::new(Watches {
            watches,
            folders,
            warned: AtomicBool::new(false),
            reader,
        }))
    }

    /// The hook that makes a walk watch each folder before it reads it.
    pub(super) fn hook(self: &Arc<Self>) -> FolderHook {
        let w = self.clone();
        Arc::new(move |dir: &Path| w.watch(dir))
    }

    /// Watches the folder `dir` (its entries, not its subfolders); again is harmless.
    fn watch(&self, dir: &Path) {
        let added = self
            .watches
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .add(dir, CHANGES);
        match added {
            Ok(wd) => {
                let mut folders = self.folders.lock().unwrap_or_else(PoisonError::into_inner);
                folders.insert(wd, dir.to_owned());
            }
            Err(err) => {
                if !self.warned.swap(true, Ordering::Relaxed) {
                    tracing::warn!(path = %dir.display(), error = %err, "cannot watch a folder of the document root (others may follow, not logged); relying on periodic rescans for them");
                }
            }
        }
    }
}

/// Sends the path an event names: the entry, or the watched folder itself.
fn report(folders: &Folders, event: Event<OsString>, tx: &mpsc::UnboundedSender<PathBuf>) {
    if event.mask.contains(EventMask::Q_OVERFLOW) {
        tracing::warn!("the file watcher lost events; the periodic rescan will catch up");
        return;
    }
    let mut folders = folders.lock().unwrap_or_else(PoisonError::into_inner);
    if event.mask.contains(EventMask::IGNORED) {
        // The folder is gone (or unmounted): its watch ended, and its deletion was reported.
        folders.remove(&event.wd);
        return;
    }
    if let Some(dir) = folders.get(&event.wd) {
        let path = event
            .name
            .map_or_else(|| dir.clone(), |name| dir.join(name));
        drop(tx.send(path));
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn opens_and_reads_are_not_asked_for() {
        for quiet in [WatchMask::OPEN, WatchMask::ACCESS, WatchMask::CLOSE_NOWRITE] {
            assert!(!CHANGES.intersects(quiet), "{quiet:?}");
        }
    }

    /// The paths the watcher sends within a short while.
    async fn sent(rx: &mut mpsc::UnboundedReceiver<PathBuf>) -> Vec<PathBuf> {
        let mut out = Vec::new();
        while let Ok(Some(p)) = tokio::time::timeout(Duration::from_millis(300), rx.recv()).await {
            out.push(p);
        }
        out
    }

    #[tokio::test]
    async fn changes_are_sent_and_reads_are_not() {
        let root = tempfile::tempdir().unwrap();
        let sub = root.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("a.txt"), b"a").unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let watches = Watches::start(tx).expect("inotify on Linux");
        let hook = watches.hook();
        hook(root.path());
        hook(&sub);

        std::fs::read(sub.join("a.txt")).unwrap();
        assert_eq!(sent(&mut rx).await, Vec::<PathBuf>::new(), "a read");

        std::fs::write(sub.join("b.txt"), b"b").unwrap();
        std::fs::rename(sub.join("a.txt"), sub.join("c.txt")).unwrap();
        let got = sent(&mut rx).await;
        for want in ["b.txt", "a.txt", "c.txt"] {
            assert!(got.contains(&sub.join(want)), "{want} in {got:?}");
        }

        std::fs::remove_dir_all(&sub).unwrap();
        let got = sent(&mut rx).await;
        assert!(got.contains(&sub), "the folder's deletion: {got:?}");
        assert!(
            watches.folders.lock().unwrap().values().all(|d| d != &sub),
            "its watch is forgotten"
        );
    }
}

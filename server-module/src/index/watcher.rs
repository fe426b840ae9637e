//! [`Watches`]: the file-system watcher (inotify through `notify`) of the document root. Each
//! folder is watched on its own, by the walks that read it (the first index, rescans, the scan
//! of a folder an event names), so setting the watcher up costs no walk of its own and a folder
//! that appears later is watched once it is scanned.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher};
use tokio::sync::mpsc;

use super::walk::FolderHook;

/// The watcher, shared by the walks that add folders to it.
pub(super) struct Watches {
    watcher: Mutex<notify::RecommendedWatcher>,
    /// Set once a folder could not be watched (the warning is given once).
    warned: AtomicBool,
}

impl Watches {
    /// A watcher that sends the path of every change to `tx`; none (with a warning) where the
    /// system has none.
    pub(super) fn start(tx: mpsc::UnboundedSender<PathBuf>) -> Option<Arc<Watches>> {
        let handler = move |res: notify::Result<notify::Event>| match res {
            Ok(event) if is_change(&event.kind) => {
                event.paths.into_iter().for_each(|p| drop(tx.send(p)))
            }
            Ok(_) => {}
            Err(err) => {
                tracing::warn!(error = %err, "file watcher error; the periodic rescan will catch up")
            }
        };
        let watcher = notify::recommended_watcher(handler)
            .inspect_err(
                |err| tracing::warn!(error = %err, "no file watcher; relying on periodic rescans"),
            )
            .ok()?;
        Some(Arc::new(Watches {
            watcher: Mutex::new(watcher),
            warned: AtomicBool::new(false),
        }))
    }

    /// The hook that makes a walk watch each folder before it reads it.
    pub(super) fn hook(self: &Arc<Self>) -> FolderHook {
        let w = self.clone();
        Arc::new(move |dir: &Path| w.watch(dir))
    }

    /// Watches the folder `dir` (its entries, not its subfolders); again is harmless.
    fn watch(&self, dir: &Path) {
        let result = self
            .watcher
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .watch(dir, RecursiveMode::NonRecursive);
        if let Err(err) = result {
            if !self.warned.swap(true, Ordering::Relaxed) {
                tracing::warn!(path = %dir.display(), error = %err, "cannot watch a folder of the document root (others may follow, not logged); relying on periodic rescans for them");
            }
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

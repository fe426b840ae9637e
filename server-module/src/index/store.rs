//! [`Index`]: the site index on disk (an LSM store, `fjall`), in the state folder or, without
//! one, in a private temporary folder removed at exit. Readers take consistent snapshots; one
//! writer (the maintenance task) applies batches that change records, their orderings, the
//! catalog and the change log atomically, so a `kill -9` at any moment leaves either the state
//! before a batch or after it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::SystemTime;

use fjall::config::FilterPolicy;
use fjall::{Database, Keyspace, KeyspaceCreateOptions, PersistMode};
use modoai_protocol::Datestamp;
use sha2::{Digest as _, Sha256};
use tokio::sync::Notify;

use super::catalog::{self, Catalog};
use super::clock::{self, Clock};
use crate::sets::Definitions;

/// Memory for cached blocks of the store, whatever the site's size.
const CACHE_BYTES: u64 = 16 << 20;
/// Largest write buffer of one keyspace before it is flushed to a table.
const MEMTABLE_BYTES: u64 = 4 << 20;

/// Why the index cannot be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// The state folder cannot be made or opened.
    #[error("cannot use the state folder {}: {error}; make it writable, or choose another with --state-dir", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// What went wrong.
        error: std::io::Error,
    },
    /// The store in the state folder cannot be opened (held by another modoai, or damaged).
    #[error("cannot open the site index in {}: {message}; if no other modoai serves this root with this state folder, remove the folder (the index is rebuilt from the files)", path.display())]
    Store {
        /// The index folder.
        path: PathBuf,
        /// The store's error.
        message: String,
    },
}

/// The keyspaces of the store.
pub(super) struct Spaces {
    pub(super) records: Keyspace,
    pub(super) order: Keyspace,
    pub(super) sets: Keyspace,
    pub(super) members: Keyspace,
    pub(super) set_counts: Keyspace,
    pub(super) changes: Keyspace,
    pub(super) meta: Keyspace,
}

/// The site index of one document root.
pub(crate) struct Index {
    pub(super) db: Database,
    pub(super) ks: Spaces,
    /// The catalog as of the last committed batch.
    pub(super) catalog: RwLock<Arc<Catalog>>,
    /// The set definitions that records stored from now on follow (see `regroup.rs`).
    pub(super) definitions: RwLock<Arc<Definitions>>,
    /// Orders commits against readers' response dates: a writer holds it exclusively from
    /// choosing the datestamps of a batch to the end of its commit, a reader shared while it takes
    /// its response date and its snapshot. So a version committed after a harvest's snapshot
    /// never gets a datestamp before that harvest's response date.
    pub(super) visibility: RwLock<()>,
    /// The moments of datestamps and response dates, never going backwards.
    pub(super) clock: Clock,
    persistent: bool,
    folder: PathBuf,
    ready: AtomicBool,
    ready_notify: Notify,
    last_scan: Mutex<Option<SystemTime>>,
    _temp: Option<tempfile::TempDir>,
}

impl Index {
    /// Opens (or makes) the index of `root` in `state` (its own subfolder, named after the root),
    /// or in a temporary folder without `state`.
    pub(crate) fn open(state: Option<&Path>, root: &Path) -> Result<Index, IndexError> {
        Index::open_with_clock(state, root, Clock::system())
    }

    /// [`Index::open`] dating with `clock`, which takes the highest moment the store has given
    /// as given.
    pub(super) fn open_with_clock(
        state: Option<&Path>,
        root: &Path,
        clock: Clock,
    ) -> Result<Index, IndexError> {
        let (folder, temp) = match state {
            Some(dir) => (dir.join(folder_name(root)), None),
            None => {
                let t = tempfile::Builder::new()
                    .prefix("modoai-index-")
                    .tempdir()
                    .map_err(|error| IndexError::Folder {
                        path: std::env::temp_dir(),
                        error,
                    })?;
                (t.path().join("index"), Some(t))
            }
        };
        let (db, ks, catalog) = open_or_create(&folder)?;
        if let Ok(Some(latest)) = ks.meta.get(clock::KEY) {
            clock.restore(&latest);
        }
        Ok(Index {
            db,
            ks,
            catalog: RwLock::new(Arc::new(catalog)),
            definitions: RwLock::new(Arc::new(Definitions::default())),
            visibility: RwLock::new(()),
            clock,
            persistent: state.is_some(),
            folder,
            ready: AtomicBool::new(false),
            ready_notify: Notify::new(),
            last_scan: Mutex::new(None),
            _temp: temp,
        })
    }

    /// True when the index survives a restart (it lives in a state folder).
    pub(crate) fn is_persistent(&self) -> bool {
        self.persistent
    }

    /// The folder of the store.
    pub(super) fn folder(&self) -> &Path {
        &self.folder
    }

    /// True once the index can answer: a stored index was loaded, or the first index is done.
    pub(crate) fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// Waits until the index can answer.
    pub(crate) async fn ready(&self) {
        loop {
            let notified = self.ready_notify.notified();
            if self.is_ready() {
                return;
            }
            notified.await;
        }
    }

    pub(super) fn set_ready(&self) {
        self.ready.store(true, Ordering::Release);
        self.ready_notify.notify_waiters();
    }

    /// When the last full scan of the root ended.
    pub(crate) fn last_scan(&self) -> Option<SystemTime> {
        *self
            .last_scan
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A full scan has ended now.
    pub(super) fn scanned(&self) {
        *self
            .last_scan
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(SystemTime::now());
    }

    /// The catalog as of the last commit.
    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        self.catalog
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Makes `catalog` the current one (after its batch is committed).
    pub(super) fn publish(&self, catalog: Catalog) {
        *self.catalog.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(catalog);
    }

    /// Every MIME set spec with at least one record, sorted, the root first.
    #[cfg(test)]
    pub(crate) fn set_specs(&self) -> Vec<String> {
        self.catalog().set_specs()
    }

    /// The set definitions records stored from now on follow.
    pub(crate) fn definitions(&self) -> Arc<Definitions> {
        self.definitions
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Makes `defs` the definitions records stored from now on follow.
    pub(super) fn publish_definitions(&self, defs: Arc<Definitions>) {
        *self
            .definitions
            .write()
            .unwrap_or_else(PoisonError::into_inner) = defs;
    }

    /// Number of current (not deleted) records.
    pub(crate) fn len(&self) -> usize {
        self.catalog().live as usize
    }

    /// Writes what is in the journal to disk (on shutdown, after the first index).
    pub(super) fn sync(&self) {
        // The response dates given since the last batch are moments given too.
        if let Some(latest) = self.clock.encode() {
            if let Err(err) = self.ks.meta.insert(clock::KEY, latest) {
                tracing::warn!(error = %err, "cannot store the index's latest datestamp");
            }
        }
        if let Err(err) = self.db.persist(PersistMode::SyncAll) {
            tracing::warn!(error = %err, "cannot sync the site index");
        }
    }

    /// The response date of a request that reads `read` under it: see `visibility`.
    pub(crate) fn dated<T>(&self, read: impl FnOnce() -> T) -> (Datestamp, T) {
        let _shared = self
            .visibility
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        let date = self.clock.now();
        (date, read())
    }
}

/// The subfolder of a root's index: its name and a digest of its canonical path, so several
/// sites can share one state folder.
fn folder_name(root: &Path) -> String {
    let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let digest = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    let name: String = canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(40)
        .collect();
    format!(
        "index-{}-{}",
        name.trim_start_matches('.'),
        &hex::encode(digest)[..12]
    )
}

/// The store in `folder` if it holds a complete index; else a new, empty one. A new store is
/// made in a sibling folder and renamed into place once it exists whole, so a crash while it is
/// made (the store's own files are not made atomically) leaves either no store or a whole one.
fn open_or_create(folder: &Path) -> Result<(Database, Spaces, Catalog), IndexError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |error| IndexError::Folder { path, error }
    };
    if folder.exists() {
        let (db, ks, catalog) = open_store(folder)?;
        if catalog.complete {
            return Ok((db, ks, catalog));
        }
        // A first index that never finished: start again from nothing, so that the bulk load
        // writes into empty keyspaces.
        drop((db, ks));
        std::fs::remove_dir_all(folder).map_err(io(folder))?;
    }
    let mut fresh = folder.as_os_str().to_owned();
    fresh.push(".new");
    let fresh = PathBuf::from(fresh);
    if fresh.exists() {
        std::fs::remove_dir_all(&fresh).map_err(io(&fresh))?;
    }
    std::fs::create_dir_all(&fresh).map_err(io(&fresh))?;
    drop(open_store(&fresh)?);
    std::fs::rename(&fresh, folder).map_err(io(folder))?;
    open_store(folder)
}

fn open_store(folder: &Path) -> Result<(Database, Spaces, Catalog), IndexError> {
    let store_err = |e: fjall::Error| IndexError::Store {
        path: folder.to_owned(),
        message: e.to_string(),
    };
    let db = Database::builder(folder)
        .cache_size(CACHE_BYTES)
        .worker_threads(1)
        .open()
        .map_err(store_err)?;
    let opts = || KeyspaceCreateOptions::default().max_memtable_size(MEMTABLE_BYTES);
    // The orderings and the change log are only ever read in ranges: a point-lookup filter
    // would cost time to build (a fifth of the first index's bulk load) and memory for nothing.
    let ranged = || opts().filter_policy(FilterPolicy::disabled());
    let ks = Spaces {
        records: db.keyspace("records", opts).map_err(store_err)?,
        order: db.keyspace("order", ranged).map_err(store_err)?,
        sets: db.keyspace("sets", ranged).map_err(store_err)?,
        members: db.keyspace("members", ranged).map_err(store_err)?,
        set_counts: db.keyspace("set_counts", opts).map_err(store_err)?,
        changes: db.keyspace("changes", ranged).map_err(store_err)?,
        meta: db.keyspace("meta", opts).map_err(store_err)?,
    };
    let catalog = match ks.meta.get(catalog::KEY).map_err(store_err)? {
        Some(bytes) => Catalog::decode(&bytes).ok_or_else(|| IndexError::Store {
            path: folder.to_owned(),
            message: "its catalog is not one this version of modoai wrote".to_owned(),
        })?,
        None => Catalog::default(),
    };
    Ok((db, ks, catalog))
}

//! What every request shares: the archives, the access settings, the keys (read again when
//! their file changes), their limits, and the search permits.

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use super::ticket::Tickets;
use crate::config::{AccessConfig, UiConfig};
use crate::keys::{KeyFile, Limits};
use crate::search::Library;

/// The server's shared state.
#[derive(Debug)]
pub struct AppState {
    /// The archives.
    pub library: Arc<Library>,
    /// Who may use what.
    pub access: AccessConfig,
    /// The pages for people.
    pub ui: UiConfig,
    /// Quotas and rates.
    pub limits: Limits,
    /// Searches running at once: one per core; the others wait their turn, rather than share
    /// the cores as many threads.
    pub searching: tokio::sync::Semaphore,
    /// Exports being written: each one's work ends when it is complete, stopped, or its
    /// client went away.
    pub exporting: AtomicUsize,
    /// Export tickets: a key's stand-in in one export's URL, and that export's progress.
    pub(crate) tickets: Tickets,
    keys_path: PathBuf,
    keys: Mutex<(KeyFile, Option<FileVersion>)>,
}

impl AppState {
    /// The state of a server over `library`, its keys in `keys_path`.
    pub fn new(
        library: Arc<Library>,
        access: AccessConfig,
        keys_path: PathBuf,
    ) -> Result<AppState, crate::keys::KeyError> {
        let keys = KeyFile::load(&keys_path)?;
        let version = FileVersion::of(&keys_path);
        Ok(AppState {
            library,
            access,
            ui: UiConfig::default(),
            limits: Limits::default(),
            searching: tokio::sync::Semaphore::new(
                std::thread::available_parallelism().map_or(2, |n| n.get()),
            ),
            exporting: AtomicUsize::new(0),
            tickets: Tickets::default(),
            keys_path,
            keys: Mutex::new((keys, version)),
        })
    }

    /// The state with the UI's settings `ui`. Defaults to no replay links.
    pub fn with_ui(self, ui: UiConfig) -> AppState {
        AppState { ui, ..self }
    }

    /// The keys, read again when the file changed: keys added or revoked while serving take
    /// effect at the next request (one `stat` per request tells).
    pub fn keys(&self) -> KeyFile {
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        let now = FileVersion::of(&self.keys_path);
        if now != keys.1 {
            match KeyFile::load(&self.keys_path) {
                Ok(k) => *keys = (k, now),
                Err(e) => {
                    tracing::warn!(error = %e, "the key file cannot be read; keeping the keys loaded before")
                }
            }
        }
        keys.0.clone()
    }
}

/// What tells one version of the key file from another: `keys` writes a new file and renames it
/// over the old one, so the inode changes even when two writes share a modification time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileVersion {
    inode: u64,
    len: u64,
    modified: Option<SystemTime>,
}

impl FileVersion {
    fn of(path: &std::path::Path) -> Option<FileVersion> {
        let m = std::fs::metadata(path).ok()?;
        Some(FileVersion {
            inode: m.ino(),
            len: m.len(),
            modified: m.modified().ok(),
        })
    }
}

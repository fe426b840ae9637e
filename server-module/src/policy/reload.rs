//! [`Reloader`]: re-reads `[access]` and `[flow]` on SIGHUP and when the configuration file
//! changes, without a restart.
//!
//! The file is watched with `notify` while the document root is watched with `inotify`
//! (`index/watcher.rs`). The root's watcher leaves out open and read events, which notify always
//! asks for, because every visitor's GET would otherwise wake it; the configuration file's folder
//! is read by nobody but this module, so there notify's portable watcher costs nothing, and
//! `inotify` is in the tree through notify either way.
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::restart::RestartKeys;
use super::Policy;
use crate::sets::SiteSets;

/// How long to gather a burst of file events (an editor's write, rename and chmod) into one reload.
const SETTLE: Duration = Duration::from_millis(100);

/// Keeps a [`Policy`] (and, made with [`Reloader::spawn_for`], the named sets) in step with a
/// configuration file: on SIGHUP (if asked for) and whenever the file changes, `[access]`,
/// `[flow]` and `[[sets]]` are re-read and swapped in at once. A file with an
/// error is refused as a whole: the rules in force stay and the error is logged. Stops when
/// dropped.
///
/// ```no_run
/// # async fn run(config: modoai::Config) -> std::io::Result<()> {
/// let _reloader = modoai::Reloader::spawn(config.policy().clone(), "modoai.toml".into(), true)?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Reloader {
    task: JoinHandle<()>,
    counts: Arc<Counts>,
    _watcher: notify::RecommendedWatcher,
}

#[derive(Debug, Default)]
struct Counts {
    loaded: AtomicU64,
    failed: AtomicU64,
}

impl Reloader {
    /// Starts following `path` (its folder is watched, so editors that replace the file are
    /// seen too), and SIGHUP when `sighup` is true. Needs a Tokio runtime.
    pub fn spawn(policy: Policy, path: PathBuf, sighup: bool) -> std::io::Result<Reloader> {
        Reloader::start(policy, None, path, sighup)
    }

    /// Like [`Reloader::spawn`] for the access rules and flow limits of `config`, and its named
    /// sets too: a reload that changes them moves the records whose sets change to their new
    /// sets (with new datestamps). Needs a Tokio runtime.
    pub fn spawn_for(
        config: &crate::Config,
        path: PathBuf,
        sighup: bool,
    ) -> std::io::Result<Reloader> {
        Reloader::start(
            config.policy().clone(),
            Some(config.sets.clone()),
            path,
            sighup,
        )
    }

    fn start(
        policy: Policy,
        sets: Option<SiteSets>,
        path: PathBuf,
        sighup: bool,
    ) -> std::io::Result<Reloader> {
        let (tx, rx) = mpsc::channel::<()>(1);
        let watcher = watch(&path, tx)?;
        let hup = if sighup {
            use tokio::signal::unix::{signal, SignalKind};
            Some(signal(SignalKind::hangup())?)
        } else {
            None
        };
        let counts = Arc::new(Counts::default());
        let started = RestartKeys::read(&path);
        let task = tokio::spawn(follow(
            (policy, sets),
            path,
            started,
            rx,
            hup,
            counts.clone(),
        ));
        Ok(Reloader {
            task,
            counts,
            _watcher: watcher,
        })
    }

    /// Reloads that succeeded so far.
    pub fn reloads(&self) -> u64 {
        self.counts.loaded.load(Ordering::SeqCst)
    }

    /// Reloads refused for an error so far.
    pub fn failures(&self) -> u64 {
        self.counts.failed.load(Ordering::SeqCst)
    }
}

impl Drop for Reloader {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Watches the file's folder and signals on any event that names the file.
fn watch(path: &Path, tx: mpsc::Sender<()>) -> std::io::Result<notify::RecommendedWatcher> {
    let name = path.file_name().map(ToOwned::to_owned);
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if event.kind.is_access() {
            return;
        }
        if event.paths.iter().any(|p| p.file_name() == name.as_deref()) {
            // A full channel already holds a pending reload.
            let _ = tx.try_send(());
        }
    })
    .map_err(std::io::Error::other)?;
    watcher
        .watch(&dir, RecursiveMode::NonRecursive)
        .map_err(std::io::Error::other)?;
    Ok(watcher)
}

async fn follow(
    (policy, sets): (Policy, Option<SiteSets>),
    path: PathBuf,
    started: RestartKeys,
    mut changes: mpsc::Receiver<()>,
    mut hup: Option<tokio::signal::unix::Signal>,
    counts: Arc<Counts>,
) {
    loop {
        let why = tokio::select! {
            Some(()) = changes.recv() => {
                tokio::time::sleep(SETTLE).await;
                while changes.try_recv().is_ok() {}
                "file changed"
            }
            Some(()) = async { hup.as_mut()?.recv().await } => "SIGHUP",
            else => return,
        };
        match policy.reload_with(&path, sets.as_ref()) {
            Ok(()) => {
                counts.loaded.fetch_add(1, Ordering::SeqCst);
                tracing::info!(file = %path.display(), why, "access and flow rules and sets reloaded");
                let waiting = started.changed(&RestartKeys::read(&path));
                if !waiting.is_empty() {
                    tracing::warn!(
                        file = %path.display(),
                        "changed, but applied only after a restart (only [access], [flow] and [[sets]] are reloaded): {}",
                        waiting.join(", ")
                    );
                }
            }
            Err(err) => {
                counts.failed.fetch_add(1, Ordering::SeqCst);
                tracing::error!(file = %path.display(), why, error = %err, "reload refused; the previous access and flow rules and sets stay");
            }
        }
    }
}

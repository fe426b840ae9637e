//! [`Plugins`]: the configured tools as a whole, loaded once, analysing pages of files through
//! the caches and the dispatcher.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::cache::{self, Cache};
use crate::config::PluginsError;
use crate::dispatch::{Dispatcher, Fresh, Pending};
use crate::hot::Hot;
use crate::loaded::{Loaded, LoadedPlugins, PluginId, PluginResult};
use crate::observe::PluginObserver;
use crate::probe;
use crate::registry::{self, Registry};
use crate::report::{self, PluginCheck};
use crate::resident::Kept;
use crate::status::{self, note, Status};
use crate::subject::Subject;

/// The configured metadata tools. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Plugins {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// The file the plugins came from.
    path: PathBuf,
    max_processes: usize,
    plugins: LoadedPlugins,
    cache: Cache,
    /// Results already read or run, in memory.
    hot: Hot,
    dispatcher: Dispatcher,
    /// The program's metrics, once it has some.
    metrics: OnceLock<Arc<dyn PluginObserver>>,
}

/// Where one plugin's result for one file of a page stands.
enum Slot {
    /// Known: from the cache, skipped, or just run.
    Ready(Arc<PluginResult>),
    /// To be run by this plugin.
    Pending(PluginId),
}

impl Slot {
    fn ready(self) -> Option<Arc<PluginResult>> {
        match self {
            Slot::Ready(result) => Some(result),
            Slot::Pending(_) => None,
        }
    }
}

impl Plugins {
    /// Reads and checks `plugins.toml`, finds each tool and asks its version (or takes it from
    /// the cache, keyed by the program's size and mtime, so a restart starts no process).
    pub async fn load(path: &Path) -> Result<Plugins, PluginsError> {
        Self::loaded(Registry::load(path)?).await
    }

    /// Reads plugins from `text`, a `plugins.toml` that is not a file (a program's built-in
    /// table), as [`Plugins::load`] reads the file `path`: relative paths such as `cache-dir`
    /// are taken from `path`'s folder, and errors name `path`.
    pub async fn from_text(path: &Path, text: &str) -> Result<Plugins, PluginsError> {
        Self::loaded(Registry::from_text(path, text)?).await
    }

    /// Reads `plugins.toml` as [`Plugins::load`] does, but keeps results in `cache_dir`
    /// instead of the file's `cache-dir` (a program's own cache of the same tools).
    pub async fn load_with_cache(path: &Path, cache_dir: &Path) -> Result<Plugins, PluginsError> {
        let mut registry = Registry::load(path)?;
        registry.cache_dir = cache_dir.to_owned();
        Self::loaded(registry).await
    }

    async fn loaded(registry: Registry) -> Result<Plugins, PluginsError> {
        let Registry {
            plugins,
            max_processes,
            cache_dir,
            path,
            isolation,
            ..
        } = registry;
        let cache = Cache::new(cache_dir);
        let dispatcher = Dispatcher::new(isolation, max_processes);
        let versions = probe::versions(
            &plugins,
            dispatcher.isolation(),
            &cache,
            dispatcher.permits(),
        )
        .await;
        let plugins = LoadedPlugins::new(plugins, versions, dispatcher.isolation(), max_processes);
        let inner = Inner {
            path,
            max_processes,
            plugins,
            cache,
            hot: Hot::new(),
            dispatcher,
            metrics: OnceLock::new(),
        };
        Ok(Plugins {
            inner: Arc::new(inner),
        })
    }

    /// The file the plugins came from.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The folder where results are cached.
    pub fn cache_dir(&self) -> &Path {
        self.inner.cache.dir()
    }

    /// Tool processes started for analyses so far (ExifTool and FIDO workers included; version
    /// probes not).
    pub fn processes_started(&self) -> usize {
        let workers: usize = self.inner.plugins.kept().map(Kept::starts).sum();
        self.inner.dispatcher.processes() + workers
    }

    /// A report of every plugin: program, version, health (`modoai plugins check`).
    pub fn check_report(&self) -> String {
        let inner = &self.inner;
        let settings = report::Settings {
            path: &inner.path,
            cache_dir: inner.cache.dir(),
            max_processes: inner.max_processes,
            isolation: inner.dispatcher.isolation(),
        };
        report::check(&settings, &inner.plugins)
    }

    /// Every plugin's program, version and health, in `plugins.toml` order (`modoai plugins check
    /// --json`).
    pub fn check_entries(&self) -> Vec<PluginCheck> {
        report::check_entries(&self.inner.plugins)
    }

    /// True if every plugin's program was found and answered its version command.
    pub fn all_healthy(&self) -> bool {
        report::all_healthy(&self.inner.plugins)
    }

    /// One line on the plugins' health: "7 plugins, all healthy", or "7 plugins: 6 healthy, 1
    /// missing (fido)".
    pub fn health_line(&self) -> String {
        report::health_line(&self.inner.plugins)
    }

    /// The ids of the plugins that analyse a file of type `mime` and `size` bytes, in
    /// `plugins.toml` order (those whose `max-input-bytes` it exceeds are left out).
    pub fn running_for(&self, mime: &str, size: u64) -> Vec<String> {
        self.inner
            .plugins
            .applicable(mime)
            .filter(|(_, l)| l.plugin.max_input.is_none_or(|max| size <= max))
            .map(|(_, l)| l.plugin.label.clone())
            .collect()
    }

    /// Which plugins apply to a file of type `mime` and `size`, and why (`modoai plugins explain`).
    pub fn explain(&self, mime: &str, size: u64) -> String {
        report::explain(&self.inner.plugins, mime, size)
    }

    /// Counts tool runs and cache lookups into `observer` from now on (the first observer given
    /// stays).
    pub fn observe_with(&self, observer: Arc<dyn PluginObserver>) {
        let _ = self.inner.metrics.set(observer);
    }

    /// The results of every applicable plugin for each subject, in `plugins.toml` order.
    pub async fn analyse(&self, subjects: &[Subject]) -> Vec<Vec<Arc<PluginResult>>> {
        let identities: Vec<Vec<u8>> = subjects.iter().map(Subject::identity).collect();
        let (mut rows, pending) = self.plan(subjects, &identities);
        if !pending.is_empty() {
            let inner = &*self.inner;
            let keep = |fresh: &[Fresh]| self.keep(fresh, &identities);
            let fresh = inner
                .dispatcher
                .run_pending(&inner.plugins, subjects, pending, keep)
                .await;
            self.fill(&mut rows, fresh, &identities);
        }
        rows.into_iter()
            .map(|row| row.into_iter().filter_map(Slot::ready).collect())
            .collect()
    }

    /// The result of every applicable plugin for `subject` when each is known without a run
    /// (in memory, in the persistent cache, or skipped for its size); `None` when one would
    /// have to run. Reads no file (`subject.abs` is not used), so a caller asks before it
    /// writes the file at all. An answer counts its cache hits; `None` counts nothing (the
    /// [`Plugins::analyse`] that follows does).
    pub fn lookup(&self, subject: &Subject) -> Option<Vec<Arc<PluginResult>>> {
        let inner = &*self.inner;
        let identity = subject.identity();
        let row = inner
            .plugins
            .applicable(&subject.mime)
            .map(|(_, l)| known(&inner.cache, &inner.hot, l, subject, &identity))
            .collect::<Option<Vec<_>>>()?;
        if let Some(m) = inner.metrics.get() {
            row.iter()
                .filter(|r| r.cached)
                .for_each(|r| m.cache(&r.label, true));
        }
        Some(row)
    }

    /// For each subject, a slot per applicable plugin, and the files each plugin has to run on.
    fn plan(&self, subjects: &[Subject], identities: &[Vec<u8>]) -> (Vec<Vec<Slot>>, Pending) {
        let inner = &*self.inner;
        let mut pending = Pending::new();
        let mut rows = Vec::with_capacity(subjects.len());
        for (i, (s, identity)) in subjects.iter().zip(identities).enumerate() {
            let mut row = Vec::new();
            for (id, l) in inner.plugins.applicable(&s.mime) {
                let metrics = inner.metrics.get();
                match known(&inner.cache, &inner.hot, l, s, identity) {
                    Some(result) => {
                        if let (Some(m), true) = (metrics, result.cached) {
                            m.cache(&l.plugin.label, true);
                        }
                        row.push(Slot::Ready(result));
                    }
                    None => {
                        if let Some(m) = metrics {
                            m.cache(&l.plugin.label, false);
                        }
                        pending.entry(id).or_default().push(i);
                        row.push(Slot::Pending(id));
                    }
                }
            }
            rows.push(row);
        }
        (rows, pending)
    }

    /// Writes the results worth keeping of one plugin's run to the persistent cache, on a
    /// blocking thread: a file each, so the page's other tools go on meanwhile and the server's
    /// own threads never wait on the disk.
    fn keep(
        &self,
        fresh: &[Fresh],
        identities: &[Vec<u8>],
    ) -> impl std::future::Future<Output = ()> {
        let entries: Vec<(cache::Key, status::Cached)> = fresh
            .iter()
            .filter(|f| f.run.status.is_cacheable())
            .map(|f| {
                let key = self.inner.plugins[f.plugin].key(&identities[f.subject]);
                (key, f.run.clone())
            })
            .collect();
        let inner = Arc::clone(&self.inner);
        async move {
            if entries.is_empty() {
                return;
            }
            let written = tokio::task::spawn_blocking(move || {
                for (key, run) in &entries {
                    inner.cache.put(key, run);
                }
            });
            if let Err(err) = written.await {
                tracing::warn!(error = %err, "the plugin cache writer stopped");
            }
        }
    }

    /// Puts each fresh result in its slot, and in the memory cache if it is worth keeping (the
    /// persistent cache has it from [`Self::keep`]).
    fn fill(&self, rows: &mut [Vec<Slot>], fresh: Vec<Fresh>, identities: &[Vec<u8>]) {
        let inner = &*self.inner;
        for f in fresh {
            let l = &inner.plugins[f.plugin];
            if let Some(m) = inner.metrics.get() {
                m.run(&l.plugin.label, f.run.status.as_str(), f.run.duration_ms);
            }
            if f.run.status.is_cacheable() {
                let key = l.key(&identities[f.subject]);
                inner.hot.put(key, l.result(f.run.clone(), true));
            }
            let slot = rows[f.subject]
                .iter_mut()
                .find(|s| matches!(s, Slot::Pending(id) if *id == f.plugin))
                .expect("each fresh result fills a pending slot");
            *slot = Slot::Ready(l.result(f.run, false));
        }
    }

    /// The MD5 of `subject` if a built-in `md5` plugin for its type has already computed it
    /// (memory or the persistent cache); never reads the file (ResourceSync lists give a hash
    /// only when it costs nothing).
    pub fn known_md5(&self, subject: &Subject) -> Option<String> {
        let inner = &*self.inner;
        let (_, l) = inner
            .plugins
            .applicable(&subject.mime)
            .find(|(_, l)| l.plugin.kind == registry::Kind::Builtin(registry::Digest::Md5))?;
        let key = l.key(&subject.identity());
        let run = match inner.hot.get(&key) {
            Some(r) => r.run.clone(),
            None => inner.cache.get(&key)?,
        };
        let hex = std::str::from_utf8(&run.stdout).ok()?.trim();
        (run.status == status::Status::Ok && hex.len() == 32).then(|| hex.to_owned())
    }

    /// Starts the tools that are kept running (ExifTool, FIDO) now, so that the first page does
    /// not wait for their start. The server calls it when its site index starts.
    pub fn start_workers(&self) {
        self.inner.plugins.kept().for_each(Kept::start_now);
    }

    /// Ends every tool run in progress (killing its process group), makes later runs end at
    /// once, and stops the idle ExifTool and FIDO workers. The server calls it when it shuts
    /// down.
    pub fn shutdown(&self) {
        self.inner.dispatcher.stop();
        self.inner.plugins.kept().for_each(Kept::shutdown);
    }
}

/// Plugin `l`'s result for subject `s` if it needs no run: cached, or skipped (and then cached)
/// because the file is larger than the plugin takes.
fn known(
    cache: &Cache,
    hot: &Hot,
    l: &Loaded,
    s: &Subject,
    identity: &[u8],
) -> Option<Arc<PluginResult>> {
    let key = l.key(identity);
    if let Some(r) = hot.get(&key) {
        return Some(r);
    }
    match (cache.get(&key), l.plugin.max_input) {
        (Some(c), _) => {
            let r = l.result(c, true);
            hot.put(key, r.clone());
            Some(r)
        }
        (None, Some(max)) if s.size > max => {
            let c = note(
                Status::Skipped,
                format!("larger than max-input-bytes ({max})"),
            );
            cache.put(&key, &c);
            Some(l.result(c, false))
        }
        _ => None,
    }
}

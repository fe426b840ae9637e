//! Metadata tools run at dissemination time for `oai_crate`, per MIME type, as `plugins.toml`
//! configures them: the CRATE model of mod_oai.
//!
//! [`Plugins::load`] reads and checks the file once. For a page of records, [`Plugins::analyse`]
//! answers from the persistent cache where it can and runs the rest: built-in digests in-process,
//! ExifTool through one persistent worker, JHOVE and FIDO with many files per process, other
//! tools one process per file; never more than `max-processes` at once, each with a timeout
//! that kills its whole process group. Tools see neutral paths (`f000001.jpg` in a private
//! temporary folder), never the server's paths or file names that are not UTF-8. Every tool
//! process runs niced and under CPU-time and memory limits ([`isolate`]). Failures are data: a
//! missing tool, an error exit, a timeout, a limit each become that plugin's status.

mod batch;
mod cache;
mod config;
mod digest;
pub(crate) mod exiftool;
mod isolate;
mod program;
mod registry;
pub(crate) mod run;

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

pub use config::PluginsError;
pub(crate) use registry::OutputKind;

use cache::{Cache, Cached};
use exiftool::ExifTool;
use registry::{Kind, Plugin, Registry};
use run::{Ended, Limits, Outcome};

/// Files per JHOVE or FIDO process.
const BATCH: usize = 64;
/// Longest a version command may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(30);
/// stderr kept per run.
const MAX_STDERR: usize = 64 * 1024;

/// What became of one plugin for one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Status {
    Ok,
    Error,
    Timeout,
    Missing,
    ConfigError,
    Skipped,
    Failed,
    Limit,
}

impl Status {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Timeout => "timeout",
            Status::Missing => "missing",
            Status::ConfigError => "config-error",
            Status::Skipped => "skipped",
            Status::Failed => "failed",
            Status::Limit => "limit",
        }
    }

    /// Outcomes that depend only on the file and the tool, so worth keeping.
    fn is_cacheable(self) -> bool {
        matches!(self, Status::Ok | Status::Error | Status::Skipped)
    }
}

/// One plugin's output for one file, labelled as the CRATE records it.
#[derive(Debug)]
pub(crate) struct PluginResult {
    pub(crate) label: String,
    pub(crate) version: String,
    pub(crate) command: String,
    pub(crate) output_kind: OutputKind,
    pub(crate) cached: bool,
    pub(crate) run: Cached,
}

/// A file to analyse.
#[derive(Clone, Debug)]
pub(crate) struct Subject {
    pub(crate) abs: PathBuf,
    pub(crate) rel: PathBuf,
    pub(crate) mime: String,
    pub(crate) size: u64,
    pub(crate) mtime_ns: i128,
    pub(crate) inode: u64,
}

impl Subject {
    /// What identifies this version of the file for the cache.
    fn identity(&self) -> Vec<u8> {
        let mut id = self.rel.as_os_str().as_bytes().to_vec();
        id.push(0);
        id.extend_from_slice(format!("{}:{}:{}", self.size, self.mtime_ns, self.inode).as_bytes());
        id
    }
}

/// The configured metadata tools. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Plugins {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    registry: Registry,
    versions: Vec<String>,
    fingerprints: Vec<String>,
    cache: Cache,
    permits: Semaphore,
    exiftools: Vec<Option<ExifTool>>,
    processes: AtomicUsize,
    /// Cancelled when the server shuts down: runs in progress end, their tools killed.
    stop: CancellationToken,
}

impl Plugins {
    /// Reads and checks `plugins.toml`, finds each tool and asks its version (or takes it from
    /// the cache, keyed by the program's size and mtime, so a restart starts no process).
    pub async fn load(path: &Path) -> Result<Plugins, PluginsError> {
        let registry = Registry::load(path)?;
        let cache = Cache::new(registry.cache_dir.clone());
        let permits = Semaphore::new(registry.max_processes);
        let versions = probe_versions(&registry, &cache, &permits).await;
        let fingerprints = registry
            .plugins
            .iter()
            .zip(&versions)
            .map(|(p, v)| fingerprint(p, v))
            .collect();
        let exiftools = registry
            .plugins
            .iter()
            .map(|p| match (&p.kind, &p.program) {
                (Kind::ExifTool(_), Some(prog)) => Some(
                    ExifTool::new(prog.clone().into_os_string(), p.timeout, p.max_output)
                        .isolation(registry.isolation.clone()),
                ),
                _ => None,
            })
            .collect();
        let inner = Inner {
            registry,
            versions,
            fingerprints,
            cache,
            permits,
            exiftools,
            processes: AtomicUsize::new(0),
            stop: CancellationToken::new(),
        };
        Ok(Plugins {
            inner: Arc::new(inner),
        })
    }

    /// The file the plugins came from.
    pub fn path(&self) -> &Path {
        &self.inner.registry.path
    }

    /// Tool processes started for analyses so far (ExifTool workers included; version probes not).
    pub fn processes_started(&self) -> usize {
        let workers: usize = self
            .inner
            .exiftools
            .iter()
            .flatten()
            .map(ExifTool::starts)
            .sum();
        self.inner.processes.load(Ordering::Relaxed) + workers
    }

    /// A report of every plugin: program, version, health (`modoai plugins check`).
    pub fn check_report(&self) -> String {
        let r = &self.inner.registry;
        let mut out = format!(
            "plugins from {} (cache {}, at most {} tool processes)\ntools start through: {}\n",
            r.path.display(),
            self.inner.cache.dir().display(),
            r.max_processes,
            r.isolation.describe(),
        );
        for (p, v) in r.plugins.iter().zip(&self.inner.versions) {
            let patterns: Vec<String> = p.patterns.iter().map(ToString::to_string).collect();
            let (program, health) = match (&p.kind, &p.program) {
                (Kind::Builtin(_), _) => ("(in-process)".to_owned(), "ok"),
                (_, Some(prog)) if !v.starts_with("unknown") => (prog.display().to_string(), "ok"),
                (_, Some(prog)) => (
                    prog.display().to_string(),
                    "UNHEALTHY: the version command failed",
                ),
                (_, None) => (
                    p.kind.argv().map(|a| a[0].clone()).unwrap_or_default(),
                    "MISSING: not found on PATH",
                ),
            };
            out.push_str(&format!(
                "{label:<10} line {line:<4} {health}\n    mime {mime}; runner {runner}; output {output:?}; timeout {t} s\n    program {program}\n    version {v}\n    command {cmd}\n",
                label = p.label,
                line = p.line,
                mime = patterns.join(", "),
                runner = p.kind.runner(),
                output = p.output,
                t = p.timeout.as_secs(),
                cmd = p.command_line(),
            ));
        }
        out
    }

    /// True if every plugin's program was found and answered its version command.
    pub fn all_healthy(&self) -> bool {
        self.inner
            .registry
            .plugins
            .iter()
            .zip(&self.inner.versions)
            .all(|(p, v)| {
                matches!(p.kind, Kind::Builtin(_))
                    || (p.program.is_some() && !v.starts_with("unknown"))
            })
    }

    /// Which plugins apply to a file of type `mime` and `size`, and why (`modoai plugins explain`).
    pub fn explain(&self, mime: &str, size: u64) -> String {
        let mut out = format!("type {mime}, {size} bytes\n");
        for p in &self.inner.registry.plugins {
            let line = match (p.applies(mime), p.max_input) {
                (None, _) => format!("  no   {:<10} none of its patterns matches ({})", p.label, p.patterns.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")),
                (Some(pat), Some(max)) if size > max => format!("  skip {:<10} {pat} matches, but the file is larger than max-input-bytes ({max})", p.label),
                (Some(pat), _) => format!("  yes  {:<10} {pat} matches: {}", p.label, p.command_line()),
            };
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// The results of every applicable plugin for each subject, in `plugins.toml` order.
    pub(crate) async fn analyse(&self, subjects: &[Subject]) -> Vec<Vec<Arc<PluginResult>>> {
        let inner = &self.inner;
        let plugins = &inner.registry.plugins;
        let mut slots: Vec<Vec<(usize, Option<Arc<PluginResult>>)>> =
            Vec::with_capacity(subjects.len());
        let mut pending: HashMap<usize, Vec<usize>> = HashMap::new();
        let identities: Vec<Vec<u8>> = subjects.iter().map(Subject::identity).collect();
        for (i, s) in subjects.iter().enumerate() {
            let mut row = Vec::new();
            for (j, p) in plugins
                .iter()
                .enumerate()
                .filter(|(_, p)| p.applies(&s.mime).is_some())
            {
                let key = Cache::key(&inner.fingerprints[j], &identities[i]);
                let known = match (inner.cache.get(&key), p.max_input) {
                    (Some(c), _) => Some(self.result(j, c, true)),
                    (None, Some(max)) if s.size > max => {
                        let c = note(
                            Status::Skipped,
                            format!("larger than max-input-bytes ({max})"),
                        );
                        inner.cache.put(&key, &c);
                        Some(self.result(j, c, false))
                    }
                    _ => None,
                };
                if known.is_none() {
                    pending.entry(j).or_default().push(i);
                }
                row.push((j, known));
            }
            slots.push(row);
        }
        if !pending.is_empty() {
            let fresh = self.run_pending(subjects, pending).await;
            for ((i, j), c) in fresh {
                if c.status.is_cacheable() {
                    inner
                        .cache
                        .put(&Cache::key(&inner.fingerprints[j], &identities[i]), &c);
                }
                let slot = slots[i]
                    .iter_mut()
                    .find(|(pj, r)| *pj == j && r.is_none())
                    .expect("a pending slot");
                slot.1 = Some(self.result(j, c, false));
            }
        }
        slots
            .into_iter()
            .map(|row| row.into_iter().filter_map(|(_, r)| r).collect())
            .collect()
    }

    fn result(&self, j: usize, run: Cached, cached: bool) -> Arc<PluginResult> {
        let p = &self.inner.registry.plugins[j];
        Arc::new(PluginResult {
            label: p.label.clone(),
            version: self.inner.versions[j].clone(),
            command: p.command_line(),
            output_kind: p.output,
            cached,
            run,
        })
    }

    /// Runs every (plugin, files) group; groups run concurrently, bounded by the process permits.
    async fn run_pending(
        &self,
        subjects: &[Subject],
        pending: HashMap<usize, Vec<usize>>,
    ) -> Vec<((usize, usize), Cached)> {
        let stage = match Stage::new(subjects) {
            Ok(s) => s,
            Err(err) => {
                let why = format!("cannot prepare the file for the tool: {err}");
                return pending
                    .into_iter()
                    .flat_map(|(j, is)| is.into_iter().map(move |i| (i, j)))
                    .map(|(i, j)| ((i, j), note(Status::Failed, why.clone())))
                    .collect();
            }
        };
        let groups = pending.into_iter().map(|(j, files)| {
            let stage = &stage;
            async move {
                let outs = self.run_group(j, &files, subjects, stage).await;
                files
                    .into_iter()
                    .zip(outs)
                    .map(|(i, c)| ((i, j), c))
                    .collect::<Vec<_>>()
            }
        });
        futures_util::future::join_all(groups)
            .await
            .into_iter()
            .flatten()
            .collect()
    }

    async fn run_group(
        &self,
        j: usize,
        files: &[usize],
        subjects: &[Subject],
        stage: &Stage,
    ) -> Vec<Cached> {
        let p = &self.inner.registry.plugins[j];
        if let (Some(argv), None) = (p.kind.argv(), &p.program) {
            return files
                .iter()
                .map(|_| {
                    note(
                        Status::Missing,
                        format!("program {:?} not found on PATH", argv[0]),
                    )
                })
                .collect();
        }
        match &p.kind {
            Kind::Builtin(d) => {
                let jobs = files.iter().map(|&i| {
                    let (path, d) = (subjects[i].abs.clone(), *d);
                    async move {
                        let t = Instant::now();
                        match tokio::task::spawn_blocking(move || digest::file_digest(&path, d))
                            .await
                        {
                            Ok(Ok(hex)) => Cached {
                                stdout: hex.into_bytes(),
                                duration_ms: t.elapsed().as_millis() as u64,
                                ..note(Status::Ok, None)
                            },
                            Ok(Err(err)) => {
                                note(Status::Failed, format!("cannot read the file: {err}"))
                            }
                            Err(err) => note(Status::Failed, err.to_string()),
                        }
                    }
                });
                futures_util::future::join_all(jobs).await
            }
            Kind::Process(argv) => {
                let jobs = files
                    .iter()
                    .map(|&i| self.run_once(p, expand(argv, &[stage.path(i)])));
                futures_util::future::join_all(jobs).await
            }
            Kind::ExifTool(argv) => {
                let worker = self.inner.exiftools[j]
                    .as_ref()
                    .expect("an ExifTool plugin has a worker");
                let mut out = Vec::new();
                for &i in files {
                    let args = expand(&argv[1..], &[stage.path(i)]);
                    let _permit = self
                        .inner
                        .permits
                        .acquire()
                        .await
                        .expect("the process-limit semaphore is never closed");
                    let outcome = self.unless_stopped(worker.analyse(&args)).await;
                    out.push(self.to_cached(p, outcome));
                }
                out
            }
            Kind::JhoveBatch(argv) | Kind::FidoBatch(argv) => {
                let mut out = Vec::new();
                for chunk in files.chunks(BATCH) {
                    out.extend(self.run_batch(p, argv, chunk, stage).await);
                }
                out
            }
        }
    }

    async fn run_once(&self, p: &Plugin, argv: Vec<OsString>) -> Cached {
        let limits = Limits {
            timeout: p.timeout,
            max_stdout: p.max_output,
            max_stderr: MAX_STDERR,
        };
        self.inner.processes.fetch_add(1, Ordering::Relaxed);
        let argv = self.inner.registry.isolation.wrap(&argv);
        let run = run::run(&argv, None, &limits, &self.inner.permits);
        self.to_cached(p, self.unless_stopped(run).await)
    }

    /// One process for many files; split its output per file. If the batch times out, each file
    /// is tried on its own, so one pathological file cannot cost the others their metadata.
    async fn run_batch(
        &self,
        p: &Plugin,
        argv: &[String],
        files: &[usize],
        stage: &Stage,
    ) -> Vec<Cached> {
        let paths: Vec<PathBuf> = files.iter().map(|&i| stage.path(i)).collect();
        let names: Vec<String> = files.iter().map(|&i| stage.name(i)).collect();
        let limits = Limits {
            timeout: p.timeout * files.len().min(8) as u32,
            max_stdout: p.max_output * files.len(),
            max_stderr: MAX_STDERR,
        };
        self.inner.processes.fetch_add(1, Ordering::Relaxed);
        let wrapped = self.inner.registry.isolation.wrap(&expand(argv, &paths));
        let run = run::run(&wrapped, None, &limits, &self.inner.permits);
        let outcome = self.unless_stopped(run).await;
        // Past a limit, one file may be to blame: each is tried on its own.
        let over = |e: &Ended| matches!(e, Ended::TimedOut | Ended::Killed(SIGXCPU | SIGKILL));
        if files.len() > 1 && over(&outcome.ended) {
            let mut out = Vec::new();
            for path in paths {
                out.push(self.run_once(p, expand(argv, &[path])).await);
            }
            return out;
        }
        let per_ms = outcome.duration.as_millis() as u64 / files.len() as u64;
        // The status of the whole run (from its exit code), without its output.
        let mut whole = self.to_cached(
            p,
            Outcome {
                ended: outcome.ended.clone(),
                stdout: outcome.stdout.clone(),
                stderr: Vec::new(),
                truncated: outcome.truncated,
                duration: outcome.duration,
            },
        );
        whole.stdout.clear();
        let (stdouts, stderrs): (Vec<Option<Vec<u8>>>, Vec<Vec<u8>>) = match &p.kind {
            Kind::JhoveBatch(_) => (
                batch::split_jhove(&outcome.stdout, &names),
                vec![outcome.stderr.clone(); names.len()],
            ),
            _ => (
                batch::split_lines(&outcome.stdout, &names)
                    .into_iter()
                    .map(Some)
                    .collect(),
                batch::split_lines(&outcome.stderr, &names),
            ),
        };
        stdouts
            .into_iter()
            .zip(stderrs)
            .map(|(stdout, stderr)| match stdout {
                Some(stdout) => Cached {
                    stdout,
                    stderr,
                    duration_ms: per_ms,
                    truncated: outcome.truncated,
                    ..whole.clone()
                },
                None if whole.status != Status::Ok => Cached {
                    stderr,
                    duration_ms: per_ms,
                    ..whole.clone()
                },
                None => Cached {
                    stderr,
                    ..note(
                        Status::Failed,
                        "the batch output has no part for this file".to_owned(),
                    )
                },
            })
            .collect()
    }
}

/// A result with no output, only a status and a reason.
fn note(status: Status, why: impl Into<Option<String>>) -> Cached {
    Cached {
        status,
        exit_code: None,
        duration_ms: 0,
        truncated: false,
        note: why.into(),
        stdout: Vec::new(),
        stderr: Vec::new(),
    }
}

impl Plugins {
    /// Ends every tool run in progress (killing its process group), makes later runs end at
    /// once, and stops the idle ExifTool workers. Called by the server when it shuts down.
    pub(crate) fn shutdown(&self) {
        self.inner.stop.cancel();
        for worker in self.inner.exiftools.iter().flatten() {
            worker.shutdown();
        }
    }

    /// The outcome of `run`, unless the server shuts down first: then `run` is dropped, which
    /// kills its tool's process group.
    async fn unless_stopped(&self, run: impl std::future::Future<Output = Outcome>) -> Outcome {
        tokio::select! {
            outcome = run => outcome,
            () = self.inner.stop.cancelled() => {
                let why = "the server is shutting down".to_owned();
                Outcome::without_output(Ended::Failed(why), Duration::ZERO)
            }
        }
    }

    fn to_cached(&self, p: &Plugin, o: Outcome) -> Cached {
        let isolation = &self.inner.registry.isolation;
        let mut cached = to_cached(p, isolation, o);
        if matches!(cached.status, Status::Error | Status::Failed) {
            if let Some(why) = isolation.memory_note(&cached.stderr) {
                cached.status = Status::Limit;
                cached.note = Some(why);
            }
        }
        cached
    }
}

/// SIGXCPU: the soft CPU-time limit (`cpu-secs`) was reached.
const SIGXCPU: i32 = 24;
/// SIGKILL: the hard CPU-time limit, the kernel's out-of-memory killer, or an administrator.
const SIGKILL: i32 = 9;

fn to_cached(p: &Plugin, isolation: &isolate::Isolation, o: Outcome) -> Cached {
    let (status, exit_code, why) = match o.ended {
        Ended::Exited(Some(c)) if p.ok_exit.contains(&c) => (Status::Ok, Some(c), None),
        // JHOVE: 255 with no output is a configuration or usage error (the paper's JhoveException).
        Ended::Exited(Some(255)) if o.stdout.iter().all(u8::is_ascii_whitespace) => (
            Status::ConfigError,
            Some(255),
            Some("the tool reported a configuration or usage error".to_owned()),
        ),
        Ended::Exited(Some(c)) => (Status::Error, Some(c), Some(format!("exit code {c}"))),
        Ended::Exited(None) => (Status::Failed, None, Some("ended abnormally".to_owned())),
        Ended::Killed(SIGXCPU) if isolation.cpu_secs.is_some() => (
            Status::Limit,
            None,
            Some(format!(
                "exceeded its CPU-time limit (cpu-secs = {}): killed by SIGXCPU",
                isolation.cpu_secs.unwrap_or_default()
            )),
        ),
        Ended::Killed(SIGKILL) if isolation.cpu_secs.is_some() => (
            Status::Limit,
            None,
            Some("killed by SIGKILL: the hard CPU-time limit (cpu-secs + 5 s) or the kernel's out-of-memory killer".to_owned()),
        ),
        Ended::Killed(signal) => (
            Status::Failed,
            None,
            Some(format!("killed by signal {signal}")),
        ),
        Ended::TimedOut => (
            Status::Timeout,
            None,
            Some(format!(
                "no answer within {} s; its process group was killed",
                p.timeout.as_secs()
            )),
        ),
        Ended::NotFound => (Status::Missing, None, Some("program not found".to_owned())),
        Ended::Failed(why) => (Status::Failed, None, Some(why)),
    };
    Cached {
        status,
        exit_code,
        duration_ms: o.duration.as_millis() as u64,
        truncated: o.truncated,
        note: why,
        stdout: o.stdout,
        stderr: o.stderr,
    }
}

/// The argv with `{path}`/`{paths}` replaced by the staged paths.
fn expand(argv: &[String], paths: &[PathBuf]) -> Vec<OsString> {
    let mut out = Vec::with_capacity(argv.len() + paths.len());
    for a in argv {
        match a.as_str() {
            "{path}" | "{paths}" => out.extend(paths.iter().map(|p| p.clone().into_os_string())),
            _ => out.push(OsString::from(a)),
        }
    }
    out
}

/// Neutral names for the tools: `f000001.EXT` symlinks in a private temporary folder.
struct Stage {
    dir: tempfile::TempDir,
    names: Vec<String>,
}

impl Stage {
    fn new(subjects: &[Subject]) -> std::io::Result<Stage> {
        let dir = tempfile::Builder::new().prefix("modoai-").tempdir()?;
        let names: Vec<String> = subjects
            .iter()
            .enumerate()
            .map(|(i, s)| neutral_name(i, &s.rel))
            .collect();
        for (s, name) in subjects.iter().zip(&names) {
            std::os::unix::fs::symlink(&s.abs, dir.path().join(name))?;
        }
        Ok(Stage { dir, names })
    }

    fn path(&self, i: usize) -> PathBuf {
        self.dir.path().join(&self.names[i])
    }

    fn name(&self, i: usize) -> String {
        self.names[i].clone()
    }
}

/// `f000001.jpg`: a counter, and the extension when it is short ASCII (tools such as FIDO use it).
fn neutral_name(i: usize, rel: &Path) -> String {
    let ext = rel
        .extension()
        .and_then(|e| e.to_str())
        .filter(|e| e.len() <= 10 && e.bytes().all(|b| b.is_ascii_alphanumeric()));
    match ext {
        Some(e) => format!("f{:06}.{}", i + 1, e.to_ascii_lowercase()),
        None => format!("f{:06}", i + 1),
    }
}

fn fingerprint(p: &Plugin, version: &str) -> String {
    let parts = [
        p.label.as_str(),
        version,
        p.kind.runner(),
        &p.command_line(),
        if p.output == OutputKind::Xml {
            "xml"
        } else {
            "text"
        },
    ];
    Cache::key(&parts.join("\u{0}"), b"plugin")
}

/// Each plugin's version: built-ins are modoai's; tools answer their version command, which is
/// cached under the program's path, size and mtime.
async fn probe_versions(r: &Registry, cache: &Cache, permits: &Semaphore) -> Vec<String> {
    let mut seen: HashMap<Vec<String>, String> = HashMap::new();
    let mut out = Vec::new();
    for p in &r.plugins {
        let v = match (&p.kind, &p.program) {
            (Kind::Builtin(_), _) => format!("modoai {}", env!("CARGO_PKG_VERSION")),
            (_, None) => "unknown (program not found)".to_owned(),
            (_, Some(_)) if seen.contains_key(&p.version_command) => {
                seen[&p.version_command].clone()
            }
            (_, Some(_)) => {
                let v = version_of(&p.version_command, &r.isolation, cache, permits).await;
                seen.insert(p.version_command.clone(), v.clone());
                v
            }
        };
        out.push(v);
    }
    out
}

async fn version_of(
    argv: &[String],
    isolation: &isolate::Isolation,
    cache: &Cache,
    permits: &Semaphore,
) -> String {
    let program = program::find_program(&argv[0]);
    let meta = program.as_ref().and_then(|p| std::fs::metadata(p).ok());
    let identity = match (&program, &meta) {
        (Some(p), Some(m)) => {
            use std::os::unix::fs::MetadataExt;
            format!(
                "{}\0{}\0{}\0{}",
                p.display(),
                m.len(),
                m.mtime_nsec() as i128 + m.mtime() as i128 * 1_000_000_000,
                argv.join("\0")
            )
        }
        _ => return "unknown (program not found)".to_owned(),
    };
    let key = Cache::key("version", identity.as_bytes());
    if let Some(v) = cache.get_text(&key) {
        return v;
    }
    let argv_os: Vec<OsString> = argv.iter().map(OsString::from).collect();
    let argv_os = isolation.wrap(&argv_os);
    let limits = Limits {
        timeout: VERSION_TIMEOUT,
        max_stdout: 64 * 1024,
        max_stderr: 64 * 1024,
    };
    let o = run::run(&argv_os, None, &limits, permits).await;
    let first = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_owned)
    };
    match (&o.ended, first(&o.stdout).or_else(|| first(&o.stderr))) {
        (Ended::Exited(Some(_)), Some(v)) => {
            cache.put_text(&key, &v);
            v
        }
        _ => "unknown (the version command failed)".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neutral_names() {
        assert_eq!(neutral_name(0, Path::new("a/Photo.JPG")), "f000001.jpg");
        assert_eq!(neutral_name(9, Path::new("README")), "f000010");
        assert_eq!(
            neutral_name(1, Path::new(std::ffi::OsStr::from_bytes(b"caf\xe9.t\xfft"))),
            "f000002"
        );
    }

    #[test]
    fn placeholders() {
        let argv = vec!["t".to_owned(), "-x".to_owned(), "{paths}".to_owned()];
        let out = expand(&argv, &[PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(out, ["t", "-x", "/a", "/b"].map(OsString::from));
    }
}

//! Running what the cache could not answer: for each plugin, its files of the page. Plugins run
//! concurrently; within one, built-in digests run in parallel on blocking threads, process tools
//! one process per file, ExifTool a page's requests written ahead to its worker, JHOVE [`BATCH`]
//! files per process, the identifiers' (Siegfried's, FIDO's) files split over their workers (one
//! per permit) at once ([`split`]: a batch's output per file). Every tool process and worker
//! request holds a permit of the process limit (the identifiers' and then JHOVE's batches ask
//! first), and every run ends when the server shuts down.

mod split;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::digest;
use super::exiftool::ExifTool;
use super::isolate::Isolation;
use super::loaded::{Loaded, LoadedPlugins, PluginId};
use super::registry::{Digest, Kind, Plugin};
use super::run::{self, Ended, Limits, Outcome, MAX_STDERR};
use super::siegfried;
use super::stage::{expand, Stage};
use super::status::{note, Cached, Status};
use super::subject::Subject;

/// Files per batch process (JHOVE, Siegfried, FIDO, `file`): a whole default page of 100 in one.
const BATCH: usize = 128;
/// Fewest files per part when an identifier's batch is split over its workers: below that, a
/// second part would save less than it costs to hand out.
const MIN_PART: usize = 16;
/// The contract of the process-limit semaphore, for its `expect`.
const NEVER_CLOSED: &str = "the process-limit semaphore is never closed";

/// Files of the page, by their index in its subjects, that each plugin still has to analyse.
pub(crate) type Pending = BTreeMap<PluginId, Vec<usize>>;

/// A result just computed: plugin `plugin` on subject `subject`.
#[derive(Debug)]
pub(crate) struct Fresh {
    pub(crate) subject: usize,
    pub(crate) plugin: PluginId,
    pub(crate) run: Cached,
}

/// What all tool runs share: isolation, the process limit, a count, the shutdown signal.
#[derive(Debug)]
pub(crate) struct Dispatcher {
    isolation: Isolation,
    permits: Semaphore,
    /// Tool processes started for analyses so far (not the ExifTool workers, which count their
    /// own starts).
    processes: AtomicUsize,
    /// Cancelled when the server shuts down: runs in progress end, their tools killed.
    stop: CancellationToken,
}

impl Dispatcher {
    /// Runs tools under `isolation`, at most `max_processes` at once.
    pub(crate) fn new(isolation: Isolation, max_processes: usize) -> Self {
        Dispatcher {
            isolation,
            permits: Semaphore::new(max_processes),
            processes: AtomicUsize::new(0),
            stop: CancellationToken::new(),
        }
    }

    /// How tools are started.
    pub(crate) fn isolation(&self) -> &Isolation {
        &self.isolation
    }

    /// The process limit; never closed.
    pub(crate) fn permits(&self) -> &Semaphore {
        &self.permits
    }

    /// Tool processes started so far, ExifTool workers not included.
    pub(crate) fn processes(&self) -> usize {
        self.processes.load(Ordering::Relaxed)
    }

    /// Ends every run in progress and makes later runs end at once.
    pub(crate) fn stop(&self) {
        self.stop.cancel();
    }

    /// Runs every pending (plugin, files) group; groups run concurrently, bounded by the permits.
    /// Each group's results go to `keep` as soon as that group ends, while the others still run
    /// (the persistent cache writes them then, not after the page's longest tool).
    pub(crate) async fn run_pending<K, F>(
        &self,
        plugins: &LoadedPlugins,
        subjects: &[Subject],
        pending: Pending,
        keep: K,
    ) -> Vec<Fresh>
    where
        K: Fn(&[Fresh]) -> F,
        F: std::future::Future<Output = ()>,
    {
        // Only the files that a found program will open are linked: built-in digests read the
        // file itself, and a missing program opens nothing (a page that is warm but for a
        // missing tool links no file at all).
        let staged: Vec<usize> = pending
            .iter()
            .filter(|(&plugin, _)| plugins[plugin].plugin.opens_staged_files())
            .flat_map(|(_, files)| files.iter().copied())
            .collect();
        let stage = match Stage::new(subjects, &staged) {
            Ok(s) => s,
            Err(err) => {
                let why = format!("cannot prepare the file for the tool: {err}");
                return pending
                    .into_iter()
                    .flat_map(|(plugin, files)| files.into_iter().map(move |i| (plugin, i)))
                    .map(|(plugin, subject)| Fresh {
                        subject,
                        plugin,
                        run: note(Status::Failed, why.clone()),
                    })
                    .collect();
            }
        };
        // The process limit's permits go in the order the groups ask for them, and a page takes
        // as long as its longest run once it has started (`Kind::turn`).
        let mut pending: Vec<_> = pending.into_iter().collect();
        pending.sort_by_key(|(plugin, _)| plugins[*plugin].plugin.kind.turn());
        let groups = pending.into_iter().map(|(plugin, files)| {
            let (stage, keep) = (&stage, &keep);
            async move {
                let runs = self
                    .run_group(&plugins[plugin], &files, subjects, stage)
                    .await;
                let fresh = files
                    .into_iter()
                    .zip(runs)
                    .map(|(subject, run)| Fresh {
                        subject,
                        plugin,
                        run,
                    })
                    .collect::<Vec<_>>();
                keep(&fresh).await;
                fresh
            }
        });
        join_all(groups).await.into_iter().flatten().collect()
    }

    /// One plugin on `files`: one result per file, in order.
    async fn run_group(
        &self,
        l: &Loaded,
        files: &[usize],
        subjects: &[Subject],
        stage: &Stage,
    ) -> Vec<Cached> {
        let p = &l.plugin;
        if let (Some(argv), None) = (p.kind.argv(), &p.program) {
            let why = format!("program {:?} not found on PATH", argv[0]);
            return files
                .iter()
                .map(|_| note(Status::Missing, why.clone()))
                .collect();
        }
        match &p.kind {
            Kind::Builtin(d) => join_all(files.iter().map(|&i| digest_of(&subjects[i], *d))).await,
            Kind::Process(argv) => {
                let jobs = files
                    .iter()
                    .map(|&i| self.run_once(p, expand(argv, &[stage.path(i)])));
                join_all(jobs).await
            }
            Kind::ExifTool(argv) => {
                let worker = l
                    .exiftool
                    .as_ref()
                    .expect("an ExifTool plugin whose program was found has a worker");
                let requests: Vec<Vec<OsString>> = files
                    .iter()
                    .map(|&i| expand(&argv[1..], &[stage.path(i)]))
                    .collect();
                self.ask_worker(p, worker, &requests).await
            }
            Kind::FidoBatch(argv) | Kind::Siegfried(argv) => {
                let workers = l
                    .identifier_workers()
                    .expect("an identifier whose program was found has workers");
                // One part per worker, at once, unless the parts would be small.
                let parts = (files.len() / MIN_PART).clamp(1, workers);
                let size = files.len().div_ceil(parts).min(BATCH);
                let runs = files
                    .chunks(size)
                    .enumerate()
                    .map(|(part, chunk)| self.run_batch(l, argv, chunk, stage, part));
                join_all(runs).await.into_iter().flatten().collect()
            }
            Kind::JhoveBatch(argv) | Kind::LinesBatch(argv) => {
                let mut out = Vec::with_capacity(files.len());
                for chunk in files.chunks(BATCH) {
                    out.extend(self.run_batch(l, argv, chunk, stage, 0).await);
                }
                out
            }
        }
    }

    /// The requests of a page to the ExifTool worker, written ahead, holding one permit while
    /// they run.
    async fn ask_worker(
        &self,
        p: &Plugin,
        worker: &ExifTool,
        requests: &[Vec<OsString>],
    ) -> Vec<Cached> {
        let _permit = self.permits.acquire().await.expect(NEVER_CLOSED);
        let outcomes = self
            .or_stopped(worker.analyse_all(requests))
            .await
            .unwrap_or_else(|| requests.iter().map(|_| stopped()).collect());
        outcomes.into_iter().map(|o| self.to_cached(p, o)).collect()
    }

    /// One process for one file.
    async fn run_once(&self, p: &Plugin, argv: Vec<OsString>) -> Cached {
        let limits = Limits {
            timeout: p.timeout,
            max_stdout: p.max_output,
            max_stderr: MAX_STDERR,
        };
        self.to_cached(p, self.run(&argv, &limits).await)
    }

    /// Starts `argv` under the isolation, counted, until it ends or the server stops.
    async fn run(&self, argv: &[OsString], limits: &Limits) -> Outcome {
        self.processes.fetch_add(1, Ordering::Relaxed);
        let argv = self.isolation.wrap(argv);
        self.unless_stopped(run::run(&argv, None, limits, &self.permits))
            .await
    }

    /// The outcome of `run`, unless the server shuts down first: then `run` is dropped, which
    /// kills its tool's process group, and the outcome says so.
    async fn unless_stopped(&self, run: impl std::future::Future<Output = Outcome>) -> Outcome {
        self.or_stopped(run).await.unwrap_or_else(stopped)
    }

    /// What `run` gives, or `None` if the server shuts down first (then `run` is dropped).
    async fn or_stopped<T>(&self, run: impl std::future::Future<Output = T>) -> Option<T> {
        tokio::select! {
            done = run => Some(done),
            () = self.stop.cancelled() => None,
        }
    }

    /// The result of `p`'s run `o`. A Siegfried answer that says the file could not be read or
    /// identified (its `errors`) is an error, though the worker answered as it should.
    fn to_cached(&self, p: &Plugin, o: Outcome) -> Cached {
        let failed = match (&p.kind, &o.ended) {
            (Kind::Siegfried(_), Ended::Exited(Some(0))) if !o.truncated => {
                siegfried::file_error(&o.stdout)
            }
            _ => None,
        };
        let mut cached = Cached::from_outcome(p, &self.isolation, o);
        if let (Some(why), Status::Ok) = (failed, cached.status) {
            cached.status = Status::Error;
            cached.exit_code = None;
            cached.note = Some(why);
        }
        cached
    }
}

/// The outcome of a run that the server's shutdown ended.
fn stopped() -> Outcome {
    let why = "the server is shutting down".to_owned();
    Outcome::without_output(Ended::Failed(why), Duration::ZERO)
}

/// A built-in digest of `subject`'s file, computed on a blocking thread.
async fn digest_of(subject: &Subject, d: Digest) -> Cached {
    let path = subject.abs.clone();
    let t = Instant::now();
    match tokio::task::spawn_blocking(move || digest::file_digest(&path, d)).await {
        Ok(Ok(hex)) => Cached {
            stdout: hex.into_bytes(),
            duration_ms: t.elapsed().as_millis() as u64,
            ..note(Status::Ok, None)
        },
        Ok(Err(err)) => note(Status::Failed, format!("cannot read the file: {err}")),
        Err(err) => note(Status::Failed, err.to_string()),
    }
}

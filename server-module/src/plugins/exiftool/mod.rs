//! One persistent ExifTool process for all requests.
//!
//! Perl and ExifTool take 85–95 ms to start; a running `exiftool -stay_open True -@ -` answers in
//! 2–2.5 ms per file (`docs/plugins.md`, "Tool facts"). It reads arguments from stdin, one per
//! line, runs them as one command at each `-execute<N>`, and then prints `{ready<N>}` on stdout.
//! [`worker`] speaks that protocol (and pairs stderr with its request); [`argfile`] turns a
//! request's arguments into argument-file lines; this module keeps one worker alive.
//!
//! **Failures.** If a request times out, or the worker dies or breaks the protocol, the worker's
//! whole process group is killed and the next request starts a fresh one. If the caller drops the
//! request before it ends, the worker (holding a half-read answer) is dropped and killed too.

mod argfile;
mod worker;

use std::ffi::OsString;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use super::isolate::Isolation;
use super::run::{Capture, Ended, Outcome};
use argfile::argfile_lines;
use worker::Worker;

/// Bytes of stderr kept per request, as for any plugin (`plugins.toml`: "stderr capped at 64 KiB").
const MAX_STDERR: usize = 64 * 1024;

/// One persistent `exiftool -stay_open True -@ -` process shared by all requests, started lazily
/// and restarted when it dies or times out.
///
/// ExifTool handles one command at a time, so requests are serialized.
#[derive(Debug)]
pub(crate) struct ExifTool {
    /// The `exiftool` program.
    program: OsString,
    /// Wall-clock limit for one request, from the moment it has the worker.
    timeout: Duration,
    /// Bytes of stdout kept per request.
    max_stdout: usize,
    /// The running worker, if any; taken out for the length of a request.
    worker: Mutex<Option<Worker>>,
    /// Worker processes started so far.
    starts: AtomicUsize,
    /// Priority and limits of the worker process.
    isolation: Isolation,
}

impl ExifTool {
    /// An ExifTool runner; no process starts until the first request.
    pub(crate) fn new(program: OsString, timeout: Duration, max_stdout: usize) -> Self {
        ExifTool {
            program,
            timeout,
            max_stdout,
            worker: Mutex::new(None),
            starts: AtomicUsize::new(0),
            isolation: Isolation::default(),
        }
    }

    /// Starts workers with this priority and these limits. Defaults to none.
    pub(crate) fn isolation(mut self, isolation: Isolation) -> Self {
        self.isolation = isolation;
        self
    }

    /// Stops the idle worker, if any (a request in progress owns its worker, which is killed
    /// when that request is dropped).
    pub(crate) fn shutdown(&self) {
        if let Ok(mut slot) = self.worker.try_lock() {
            // Dropping the worker kills its process group.
            slot.take();
        }
    }

    /// Analyses one file: sends `args` (the file's path among them) as one command and returns
    /// what ExifTool wrote for it on stdout and stderr.
    ///
    /// The exit code is the one a one-shot `exiftool` would have returned. Arguments that `-@`
    /// cannot carry unchanged, or that would break the worker's protocol, give
    /// [`Ended::Failed`] and are not sent. On timeout the worker is killed and
    /// [`Ended::TimedOut`] returned; the next call starts a fresh worker.
    pub(crate) async fn analyse(&self, args: &[OsString]) -> Outcome {
        self.analyse_within(args, self.timeout).await
    }

    /// How many worker processes were started so far.
    pub(crate) fn starts(&self) -> usize {
        self.starts.load(Ordering::Relaxed)
    }

    /// [`Self::analyse`] with another timeout.
    async fn analyse_within(&self, args: &[OsString], timeout: Duration) -> Outcome {
        let lines = match argfile_lines(args) {
            Ok(lines) => lines,
            Err(reason) => return Outcome::without_output(Ended::Failed(reason), Duration::ZERO),
        };
        let mut slot = self.worker.lock().await;
        let started = Instant::now();
        // Taken out of the slot: if this future is dropped mid-request, the worker drops with it.
        // `RLIMIT_CPU` counts the worker's whole life, so a worker that has used half of it is
        // replaced: every request gets at least half the limit, and only a file that alone burns
        // that much CPU meets it.
        let half = self.isolation.cpu_secs.map(|s| Duration::from_secs(s) / 2);
        let alive = slot
            .take()
            .and_then(|mut w| (w.is_alive() && !w.used_cpu(half)).then_some(w));
        let mut worker = match alive {
            Some(worker) => worker,
            None => match self.start() {
                Ok(worker) => worker,
                Err(ended) => return Outcome::without_output(ended, started.elapsed()),
            },
        };
        let mut out = Capture::new(self.max_stdout);
        let mut err = Capture::new(MAX_STDERR);
        let exchanged = worker.exchange(&lines, &mut out, &mut err);
        let result = tokio::time::timeout(timeout, exchanged).await;
        let ended = match result {
            Ok(Ok(status)) => {
                *slot = Some(worker);
                Ended::Exited(Some(status))
            }
            Ok(Err(e)) => match worker.stop().await.map(Ended::of) {
                Some(killed @ Ended::Killed(_)) => killed,
                Some(_) | None => Ended::Failed(format!("exiftool worker: {e}")),
            },
            Err(_elapsed) => {
                worker.stop().await;
                Ended::TimedOut
            }
        };
        Outcome::captured(ended, out, err, started)
    }

    /// Starts a worker process.
    fn start(&self) -> Result<Worker, Ended> {
        let argv = self.isolation.wrap(&[
            self.program.clone(),
            "-stay_open".into(),
            "True".into(),
            "-@".into(),
            "-".into(),
        ]);
        let worker = Worker::spawn(&argv)?;
        self.starts.fetch_add(1, Ordering::Relaxed);
        Ok(worker)
    }
}

#[cfg(test)]
mod tests;

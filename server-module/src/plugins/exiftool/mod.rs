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
use std::time::Duration;

use super::isolate::Isolation;
use super::resident::Resident;
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
    /// Wall-clock limit for one request, from the moment it has the worker.
    timeout: Duration,
    /// Bytes of stdout kept per request.
    max_stdout: usize,
    /// The worker process.
    resident: Resident<Worker>,
}

impl ExifTool {
    /// An ExifTool runner, its worker started under `isolation`; no process starts until the
    /// first request or [`Self::start_now`].
    pub(crate) fn new(
        program: OsString,
        timeout: Duration,
        max_stdout: usize,
        isolation: Isolation,
    ) -> Self {
        let argv = vec![
            program,
            "-stay_open".into(),
            "True".into(),
            "-@".into(),
            "-".into(),
        ];
        ExifTool {
            timeout,
            max_stdout,
            resident: Resident::new("exiftool", argv, isolation),
        }
    }

    /// Starts the worker now, if it is not running.
    pub(crate) fn start_now(&self) {
        self.resident.start_now();
    }

    /// Stops the idle worker, if any.
    pub(crate) fn shutdown(&self) {
        self.resident.shutdown();
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
        self.resident.starts()
    }

    /// [`Self::analyse`] with another timeout.
    async fn analyse_within(&self, args: &[OsString], timeout: Duration) -> Outcome {
        let lines = match argfile_lines(args) {
            Ok(lines) => lines,
            Err(reason) => return Outcome::without_output(Ended::Failed(reason), Duration::ZERO),
        };
        let mut out = Capture::new(self.max_stdout);
        let mut err = Capture::new(MAX_STDERR);
        let (answer, started) = self
            .resident
            .exchange(timeout, async |w: &mut Worker| {
                w.exchange(&lines, &mut out, &mut err).await
            })
            .await;
        let ended = match answer {
            Ok(status) => Ended::Exited(Some(status)),
            Err(ended) => ended,
        };
        Outcome::captured(ended, out, err, started)
    }
}

#[cfg(test)]
mod tests;

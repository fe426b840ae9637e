//! Kept-running workers of one tool, one process per permit of the process limit, so that work
//! is split over them and done on every core at once: the identifiers FIDO and Siegfried, and
//! MuPDF's PDF text ([`super::pdftext`]).
//!
//! The identifiers read paths on stdin and answer each batch as soon as it is read; the protocol
//! of each (how a batch is sent, how its answer ends) is its [`Batches`] worker. The workers start
//! with the server (or at the first request) and are replaced like ExifTool's
//! ([`super::resident`]); [`Pool::ask`] is how any request to one of them becomes an
//! [`Outcome`].

use std::ffi::OsString;
use std::io;
use std::path::PathBuf;

use super::isolate::Isolation;
use super::resident::{Kept, Resident, Worker};
use super::run::{Capture, Ended, Limits, Outcome};

/// A kept-running tool that answers batches of paths.
pub(crate) trait Batches: Worker {
    /// Sends `paths` as one batch and reads its whole answer: what the tool wrote for them to
    /// `out`, its messages to `err`. An error leaves the process out of step (it is replaced).
    fn exchange(
        &mut self,
        paths: &[PathBuf],
        out: &mut Capture,
        err: &mut Capture,
    ) -> impl std::future::Future<Output = io::Result<()>> + Send;
}

/// A plugin's workers: one per permit of the process limit.
#[derive(Debug)]
pub(crate) struct Pool<W> {
    residents: Vec<Resident<W>>,
}

impl<W: Worker> Pool<W> {
    /// `workers` workers (at least one) of the tool `name`, each run as `argv` under
    /// `isolation`; nothing starts until the first batch or [`Kept::start_now`].
    pub(crate) fn with_argv(
        name: &'static str,
        argv: Vec<OsString>,
        isolation: Isolation,
        workers: usize,
    ) -> Self {
        let residents = (0..workers.max(1))
            .map(|_| Resident::new(name, argv.clone(), isolation.clone()))
            .collect();
        Pool { residents }
    }

    /// How many workers there are.
    pub(crate) fn workers(&self) -> usize {
        self.residents.len()
    }

    /// Worker `i`, modulo the number of workers.
    pub(crate) fn resident(&self, i: usize) -> &Resident<W> {
        &self.residents[i % self.residents.len()]
    }

    /// Worker `i`'s (modulo the number of workers) answer to `ask` within `limits`, what it
    /// writes kept in an output and an error capture at most as long as the limits allow: `then`
    /// tells how an answer ended (and may add to the error capture); a timeout, an error or a
    /// worker that cannot start ends as [`Resident::exchange`] says, and the worker is replaced.
    pub(crate) async fn ask<T>(
        &self,
        i: usize,
        limits: &Limits,
        ask: impl AsyncFnOnce(&mut W, &mut Capture, &mut Capture) -> io::Result<T>,
        then: impl FnOnce(T, &mut Capture) -> Ended,
    ) -> Outcome {
        let mut out = Capture::new(limits.max_stdout);
        let mut err = Capture::new(limits.max_stderr);
        let (answer, started) = self
            .resident(i)
            .exchange(limits.timeout, async |w: &mut W| {
                ask(w, &mut out, &mut err).await
            })
            .await;
        let ended = match answer {
            Ok(answer) => then(answer, &mut err),
            Err(ended) => ended,
        };
        Outcome::captured(ended, out, err, started)
    }
}

impl<W: Batches> Pool<W> {
    /// Sends `paths` as one batch to worker `part` (modulo the number of workers), within
    /// `limits`: what a one-shot run of the tool on `paths` would have written, its exit code 0.
    /// On a timeout the worker is killed and [`Ended::TimedOut`] returned, like a batch
    /// process's; the next batch starts a fresh worker.
    pub(crate) async fn analyse(&self, part: usize, paths: &[PathBuf], limits: &Limits) -> Outcome {
        let ask = async |w: &mut W, out: &mut Capture, err: &mut Capture| {
            w.exchange(paths, out, err).await
        };
        self.ask(part, limits, ask, |(), _| Ended::Exited(Some(0)))
            .await
    }
}

impl<W: Worker> Kept for Pool<W> {
    fn start_now(&self) {
        self.residents.iter().for_each(Resident::start_now);
    }

    fn starts(&self) -> usize {
        self.residents.iter().map(Resident::starts).sum()
    }

    fn shutdown(&self) {
        self.residents.iter().for_each(Resident::shutdown);
    }
}

//! Persistent FIDO processes: one per permit of the process limit, for each FIDO plugin.
//!
//! FIDO is Python: its start (the interpreter, then PRONOM's signatures) costs about as much as
//! identifying 30 to 40 photos, and more than the rest of a cold page's FIDO work on small files
//! (`docs/plugins.md`, "Tool facts"). `fido … -input -` reads paths on stdin and answers each as
//! soon as it has read it, so one process serves every batch; [`worker`] speaks that protocol.
//! The workers start with the server (or at the first batch) and are replaced like ExifTool's
//! ([`super::resident`]); a page's files are split over them, and a batch answered by one is
//! split per file exactly as a one-shot batch's output.

mod worker;

use std::path::{Path, PathBuf};

use super::isolate::Isolation;
use super::resident::{Kept, Resident};
use super::run::{Capture, Ended, Limits, Outcome};
use super::stage::expand;
use worker::Worker;

/// A FIDO plugin's persistent processes: one per permit of the process limit, so that a page's
/// files can be split over them and identified on every core at once.
#[derive(Debug)]
pub(crate) struct Fido {
    residents: Vec<Resident<Worker>>,
}

impl Fido {
    /// `workers` workers (at least one) of the `fido-batch` command `argv` (its `{paths}`
    /// becomes `-input -`), run as `program` under `isolation`; nothing starts until the first
    /// batch or [`Kept::start_now`].
    pub(crate) fn new(
        program: &Path,
        argv: &[String],
        isolation: Isolation,
        workers: usize,
    ) -> Self {
        let mut argv = expand(argv, &[PathBuf::from("-input"), PathBuf::from("-")]);
        argv[0] = program.as_os_str().to_owned();
        let residents = (0..workers.max(1))
            .map(|_| Resident::new("fido", argv.clone(), isolation.clone()))
            .collect();
        Fido { residents }
    }

    /// How many workers there are.
    pub(crate) fn workers(&self) -> usize {
        self.residents.len()
    }

    /// Identifies `paths` as one batch on worker `part` (modulo the number of workers), within
    /// `limits`: what a one-shot `fido … PATHS` would have written, its exit code 0. On a
    /// timeout the worker is killed and [`Ended::TimedOut`] returned, like a batch process's;
    /// the next batch starts a fresh worker.
    pub(crate) async fn analyse(&self, part: usize, paths: &[PathBuf], limits: &Limits) -> Outcome {
        let resident = &self.residents[part % self.residents.len()];
        let mut out = Capture::new(limits.max_stdout);
        let mut err = Capture::new(limits.max_stderr);
        let (answer, started) = resident
            .exchange(limits.timeout, async |w: &mut Worker| {
                w.exchange(paths, &mut out, &mut err).await
            })
            .await;
        let ended = match answer {
            Ok(()) => Ended::Exited(Some(0)),
            Err(ended) => ended,
        };
        Outcome::captured(ended, out, err, started)
    }
}

impl Kept for Fido {
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

#[cfg(test)]
mod tests;

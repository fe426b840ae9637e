//! One persistent FIDO process per FIDO plugin.
//!
//! FIDO is Python: its start (the interpreter, then PRONOM's signatures) costs about as much as
//! identifying 30 to 40 photos, and more than the rest of a cold page's FIDO work on small files
//! (`docs/plugins.md`, "Tool facts"). `fido … -input -` reads paths on stdin and answers each as
//! soon as it has read it, so one process serves every batch; [`worker`] speaks that protocol.
//! The worker starts with the server (or at the first batch) and is replaced like ExifTool's
//! ([`super::resident`]); a batch answered by it is split per file exactly as a one-shot
//! batch's output.

mod worker;

use std::path::{Path, PathBuf};

use super::isolate::Isolation;
use super::resident::Resident;
use super::run::{Capture, Ended, Limits, Outcome};
use super::stage::expand;
use worker::Worker;

/// A FIDO plugin's persistent process.
#[derive(Debug)]
pub(crate) struct Fido {
    resident: Resident<Worker>,
}

impl Fido {
    /// The worker of the `fido-batch` command `argv` (its `{paths}` becomes `-input -`), run as
    /// `program` under `isolation`; nothing starts until the first batch or
    /// [`Self::start_now`].
    pub(crate) fn new(program: &Path, argv: &[String], isolation: Isolation) -> Self {
        let mut argv = expand(argv, &[PathBuf::from("-input"), PathBuf::from("-")]);
        argv[0] = program.as_os_str().to_owned();
        Fido {
            resident: Resident::new("fido", argv, isolation),
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

    /// How many worker processes were started so far.
    pub(crate) fn starts(&self) -> usize {
        self.resident.starts()
    }

    /// Identifies `paths` as one batch, within `limits`: what a one-shot `fido … PATHS` would
    /// have written, its exit code 0. On a timeout the worker is killed and [`Ended::TimedOut`]
    /// returned, like a batch process's; the next batch starts a fresh worker.
    pub(crate) async fn analyse(&self, paths: &[PathBuf], limits: &Limits) -> Outcome {
        let mut out = Capture::new(limits.max_stdout);
        let mut err = Capture::new(limits.max_stderr);
        let (answer, started) = self
            .resident
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

#[cfg(test)]
mod tests;

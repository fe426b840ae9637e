//! PDF text from kept-running MuPDF processes: `mutool run` (Debian: mupdf-tools) with our script
//! (`pdftext.js`), one process per permit of the process limit.
//!
//! A program started for each PDF costs more than reading a small one: `pdftotext` takes about
//! 5 ms to start and link poppler, then well under a millisecond on a one-page PDF, and the
//! isolation programs before it (`chrt`, `nice`, `ionice`, `prlimit`) add 3 ms more. A worker
//! pays that once and then reads PDF after PDF, under the same isolation, timeout and output cap
//! as any tool, replaced when it dies, breaks its protocol, times out or has used half of its CPU
//! limit ([`super::resident`]).

mod worker;

use std::ffi::OsString;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::isolate::Isolation;
use super::pool::Pool;
use super::program::find_program;
use super::run::{Capture, Ended, Limits, Outcome};
use worker::{Answer, Worker};

/// The worker's script, written to a private folder when the first worker is made.
const SCRIPT: &str = include_str!("pdftext.js");

/// Kept-running `mutool run` processes that read PDF text.
#[derive(Debug)]
pub(crate) struct PdfText {
    workers: Pool<Worker>,
    /// Which worker the next request goes to (in turn).
    next: AtomicUsize,
    /// The folder holding the script; removed when the workers go.
    _script: tempfile::TempDir,
}

impl PdfText {
    /// `workers` workers (at least one) under `isolation`; none starts before its first request.
    /// `None` when `mutool` is not on `PATH`; an error when the script cannot be written or
    /// `stdbuf` is missing.
    pub(crate) fn new(isolation: &Isolation, workers: usize) -> std::io::Result<Option<Self>> {
        let Some(mutool) = find_program("mutool") else {
            return Ok(None);
        };
        // mutool writes through C's stdio, which holds a pipe's output until its buffer fills:
        // `stdbuf` (coreutils) has each line written at once, so an answer arrives whole.
        let stdbuf = find_program("stdbuf").ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "stdbuf (coreutils) is not on PATH",
            )
        })?;
        let dir = super::scratch::tempdir("modoai-pdftext-")?;
        let script = dir.path().join("pdftext.js");
        std::fs::write(&script, SCRIPT)?;
        let argv: Vec<OsString> = vec![
            stdbuf.into(),
            "-oL".into(),
            mutool.into(),
            "run".into(),
            script.into(),
        ];
        Ok(Some(PdfText {
            workers: Pool::with_argv("mutool", argv, isolation.clone(), workers),
            next: AtomicUsize::new(0),
            _script: dir,
        }))
    }

    /// The text of the first `pages` pages of the PDF at `path`, within `limits` (its text is
    /// stdout): exit code 0 when MuPDF read it, 1 with the reason on stderr when it could not.
    pub(crate) async fn text(&self, path: &Path, pages: u32, limits: &Limits) -> Outcome {
        let request = match worker::request(path, pages) {
            Ok(request) => request,
            Err(e) => return Outcome::without_output(Ended::Failed(e.to_string()), Duration::ZERO),
        };
        let turn = self.next.fetch_add(1, Ordering::Relaxed);
        let ask =
            async |w: &mut Worker, out: &mut Capture, _: &mut Capture| w.text(&request, out).await;
        let then = |answer, err: &mut Capture| match answer {
            Answer::Read { failed, .. } => {
                if failed > 0 {
                    err.push(format!("{failed} pages could not be read\n").as_bytes());
                }
                Ended::Exited(Some(0))
            }
            Answer::Unreadable(why) => {
                err.push(why.as_bytes());
                Ended::Exited(Some(1))
            }
        };
        self.workers.ask(turn, limits, ask, then).await
    }

    /// Worker processes started so far.
    #[cfg(test)]
    pub(crate) fn starts(&self) -> usize {
        use super::resident::Kept;
        self.workers.starts()
    }
}

#[cfg(test)]
mod tests;

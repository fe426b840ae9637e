//! Persistent Siegfried processes (`modoai-siegfried --stdin`): one per permit of the process
//! limit, for each plugin with `runner = "siegfried"`.
//!
//! Siegfried's engine and signatures come in the `pygfried` Python package, which has no command
//! line; `modoai-siegfried` (`tools/python/modoai_siegfried.py`, installed by `scripts/setup`)
//! is ours. Its start (Python, then the signature file) costs 0.15 to 0.25 s; a running worker
//! identifies a photo in about a third of a millisecond (`docs/plugins.md`, "Tool facts"). The
//! workers are a [`Pool`]; [`worker`] speaks their protocol. Each file's answer is one line,
//! Siegfried's JSON document for it, and [`file_error`] reads from it whether Siegfried could
//! identify the file.

mod document;
mod worker;

use std::path::{Path, PathBuf};

use super::isolate::Isolation;
use super::pool::Pool;
use super::stage::expand;
use worker::Worker;

pub use document::{SiegfriedDocument, SiegfriedFile, SiegfriedMatch};

/// A Siegfried plugin's persistent processes.
pub(crate) type Siegfried = Pool<Worker>;

impl Pool<Worker> {
    /// `workers` workers (at least one) of the `siegfried` command `argv` (its `{paths}`
    /// becomes `--stdin`), run as `program` under `isolation`; nothing starts until the first
    /// batch or [`super::resident::Kept::start_now`].
    pub(crate) fn new(
        program: &Path,
        argv: &[String],
        isolation: Isolation,
        workers: usize,
    ) -> Self {
        let mut argv = expand(argv, &[PathBuf::from("--stdin")]);
        argv[0] = program.as_os_str().to_owned();
        Pool::with_argv("siegfried", argv, isolation, workers)
    }
}

/// Why Siegfried could not identify the file of `answer` (one answer line): the `errors` it
/// reported (`empty source`, `open: no such file or directory`, `not a regular file: a FIFO`),
/// or that the line is not its document for one file. `None` when it identified the file,
/// `UNKNOWN` and extension-only matches included: those are answers, their warning says so.
pub(crate) fn file_error(answer: &[u8]) -> Option<String> {
    match serde_json::from_slice::<SiegfriedDocument>(answer) {
        Ok(doc) => match doc.files.as_slice() {
            [one] if one.errors.is_empty() => None,
            [one] => Some(format!("siegfried: {}", one.errors)),
            _ => Some("the answer is not about one file".to_owned()),
        },
        Err(_) => Some("the answer is not Siegfried's JSON document".to_owned()),
    }
}

#[cfg(test)]
mod tests;

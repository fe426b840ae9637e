//! Persistent FIDO processes: one per permit of the process limit, for each FIDO plugin.
//!
//! FIDO is Python: its start (the interpreter, then PRONOM's signatures) costs about as much as
//! identifying 30 to 40 photos, and more than the rest of a cold page's FIDO work on small files
//! (`docs/plugins.md`, "Tool facts"). `fido … -input -` reads paths on stdin and answers each as
//! soon as it has read it, so one process serves every batch; [`worker`] speaks that protocol.
//! The workers are a [`Pool`]; a batch answered by one is split per file exactly as a one-shot
//! batch's output.

mod worker;

use std::path::{Path, PathBuf};

use super::isolate::Isolation;
use super::pool::Pool;
use super::stage::expand;
use worker::Worker;

/// A FIDO plugin's persistent processes.
pub(crate) type Fido = Pool<Worker>;

impl Pool<Worker> {
    /// `workers` workers (at least one) of the `fido-batch` command `argv` (its `{paths}`
    /// becomes `-input -`), run as `program` under `isolation`; nothing starts until the first
    /// batch or [`super::resident::Kept::start_now`].
    pub(crate) fn new(
        program: &Path,
        argv: &[String],
        isolation: Isolation,
        workers: usize,
    ) -> Self {
        let mut argv = expand(argv, &[PathBuf::from("-input"), PathBuf::from("-")]);
        argv[0] = program.as_os_str().to_owned();
        Pool::with_argv("fido", argv, isolation, workers)
    }
}

#[cfg(test)]
mod tests;

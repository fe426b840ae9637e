//! What both index builds (an archive's ledger, a foreign collection's files) hand to their
//! loading threads: planned captures, numbered in the order they are to be added, with what the
//! build does after adding them (`T`: a ledger entry's deletions and position, or how far a file
//! is read).

use std::io;
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Mutex, PoisonError};

use crate::capture::{Capture, Loader, Planned};

/// Planned captures, numbered in the order they are added.
pub(super) struct Job<T> {
    pub(super) seq: u64,
    pub(super) planned: Vec<Planned>,
    /// What the build records once they are added.
    pub(super) then: T,
}

/// A job done: its number, its captures loaded, and its `then`.
pub(super) type Done<T> = (u64, io::Result<Vec<Capture>>, T);

/// Loads the captures of jobs until there are none, or nobody waits for them.
pub(super) fn work<T>(
    loader: &Loader<'_>,
    jobs: &Mutex<Receiver<Job<T>>>,
    done: &SyncSender<Done<T>>,
) {
    loop {
        let job = jobs.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(job) = job else { return };
        let captures = job
            .planned
            .into_iter()
            .map(|p| loader.load(p))
            .collect::<io::Result<Vec<_>>>();
        if done.send((job.seq, captures, job.then)).is_err() {
            return;
        }
    }
}

//! [`Stats`]: what a [`Client`](super::Client) and its clones have done so far.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// A snapshot of a client's counters, shared by all its clones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Requests sent, retries and redirects included.
    pub requests: u64,
    /// Requests that were retries of a failed one.
    pub retries: u64,
    /// Redirects followed.
    pub redirects: u64,
    /// Body bytes received (through [`Response::bytes`](super::Response::bytes) or a
    /// [`BodyReader`](super::BodyReader)).
    pub bytes_received: u64,
    /// Waits imposed by a `Retry-After` header.
    pub retry_after_waits: u64,
    /// Their total length, after capping.
    pub retry_after_total: Duration,
}

#[derive(Debug, Default)]
pub(crate) struct Counters {
    requests: AtomicU64,
    retries: AtomicU64,
    redirects: AtomicU64,
    bytes_received: AtomicU64,
    retry_after_waits: AtomicU64,
    retry_after_nanos: AtomicU64,
}

impl Counters {
    pub(crate) fn request(&self) {
        self.requests.fetch_add(1, Relaxed);
    }

    pub(crate) fn retry(&self) {
        self.retries.fetch_add(1, Relaxed);
    }

    pub(crate) fn redirect(&self) {
        self.redirects.fetch_add(1, Relaxed);
    }

    pub(crate) fn received(&self, bytes: usize) {
        self.bytes_received.fetch_add(bytes as u64, Relaxed);
    }

    pub(crate) fn retry_after(&self, wait: Duration) {
        self.retry_after_waits.fetch_add(1, Relaxed);
        let nanos = u64::try_from(wait.as_nanos()).unwrap_or(u64::MAX);
        self.retry_after_nanos.fetch_add(nanos, Relaxed);
    }

    pub(crate) fn snapshot(&self) -> Stats {
        Stats {
            requests: self.requests.load(Relaxed),
            retries: self.retries.load(Relaxed),
            redirects: self.redirects.load(Relaxed),
            bytes_received: self.bytes_received.load(Relaxed),
            retry_after_waits: self.retry_after_waits.load(Relaxed),
            retry_after_total: Duration::from_nanos(self.retry_after_nanos.load(Relaxed)),
        }
    }
}

//! [`Clock`]: the moments the index dates with, which never go backwards.
//!
//! Datestamps of versions seen after the first index, of deletions, of records regrouped into
//! other sets, and response dates all come from one clock (see the datestamp rule in
//! `write.rs`). The wall clock can be stepped back (NTP, a mis-set clock corrected, a VM
//! restored): a version stored then would get a datestamp before the response date of a harvest
//! that could not see it, and the next incremental harvest would miss it. So the clock keeps the
//! highest moment it gave, stored with the index (`meta` key [`KEY`], written with every batch
//! and when the index is synced), and gives that moment again until the wall clock passes it.

use std::sync::atomic::{AtomicI64, Ordering};

use modoai_protocol::Datestamp;

/// The key of the highest moment given, in `meta`: Unix seconds, big-endian.
pub(super) const KEY: &[u8] = b"latest";

/// A wall clock that never goes backwards.
pub(super) struct Clock {
    read: Box<dyn Fn() -> Datestamp + Send + Sync>,
    /// The highest moment given, in Unix seconds.
    latest: AtomicI64,
}

impl Clock {
    /// The system clock.
    pub(super) fn system() -> Clock {
        Clock::new(Datestamp::now)
    }

    /// A clock that reads `read` (tests step it back).
    pub(super) fn new(read: impl Fn() -> Datestamp + Send + Sync + 'static) -> Clock {
        Clock {
            read: Box::new(read),
            latest: AtomicI64::new(i64::MIN),
        }
    }

    /// The current moment: the wall clock, or the highest moment given if that is later.
    pub(super) fn now(&self) -> Datestamp {
        let read = (self.read)().unix();
        let before = self.latest.fetch_max(read, Ordering::AcqRel);
        Datestamp::from_unix(read.max(before))
    }

    /// The highest moment given (or restored), if any.
    pub(super) fn latest(&self) -> Option<Datestamp> {
        let secs = self.latest.load(Ordering::Acquire);
        (secs != i64::MIN).then(|| Datestamp::from_unix(secs))
    }

    /// The stored form of [`Clock::latest`], if any.
    pub(super) fn encode(&self) -> Option<[u8; 8]> {
        self.latest().map(|d| d.unix().to_be_bytes())
    }

    /// Takes a moment stored by [`Clock::encode`] as given.
    pub(super) fn restore(&self, bytes: &[u8]) {
        if let Ok(b) = <[u8; 8]>::try_from(bytes) {
            self.latest
                .fetch_max(i64::from_be_bytes(b), Ordering::AcqRel);
        }
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clock")
            .field("latest", &self.latest())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_clock_stepped_back_gives_its_highest_moment_until_it_passes_it() {
        let wall = Arc::new(AtomicI64::new(1_000));
        let w = wall.clone();
        let clock = Clock::new(move || Datestamp::from_unix(w.load(Ordering::SeqCst)));
        assert_eq!(clock.latest(), None);
        assert_eq!(clock.now().unix(), 1_000);
        wall.store(400, Ordering::SeqCst);
        assert_eq!(clock.now().unix(), 1_000);
        wall.store(1_200, Ordering::SeqCst);
        assert_eq!(clock.now().unix(), 1_200);
        let restored = Clock::new(|| Datestamp::from_unix(5));
        restored.restore(&clock.encode().unwrap());
        assert_eq!(restored.now().unix(), 1_200);
    }
}

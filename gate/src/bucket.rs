//! Token buckets per client, in a map of bounded size.
//!
//! Written here rather than taken from `governor`, the field's crate for keyed rate limiting,
//! because its keyed limiters cannot give these semantics:
//! - **Bounded state.** Its keyed stores (`DashMap`, `HashMap`) grow by one entry per new key and
//!   are only trimmed when the caller runs `retain_recent`; there is no bound at which a new
//!   client is refused. Here at most `max` clients are kept, idle (full) buckets are dropped
//!   first, and a new client beyond the bound is told to wait until the soonest bucket is full
//!   again (the server's 503 with Retry-After), which its store interface cannot report (its
//!   `NotUntil` cannot be built outside the crate).
//! - **One bound for several rates.** A governor limiter has one `Quota`; a format's own limit
//!   and the global one would be separate limiters with separate maps, while here one map keyed
//!   by group and client holds them all under the server's single `max-clients` bound, and a reload that
//!   changes a rate applies it to the buckets already there.
//! - **Tokio's clock.** The buckets use `tokio::time::Instant`, so tests run on paused time;
//!   governor would need a clock adapter of our own.
//!
//! The bucket itself is the textbook one (`burst` tokens, refilled at `per_sec`), about forty
//! lines; its users derive Retry-After from the wait it reports (the server in its
//! `flow/state.rs`, the explorer in its `keys/limits.rs`).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use tokio::time::{Duration, Instant};

/// A sustained rate and a burst: a client may send `burst` requests at once, then one every
/// `1 / per_sec` seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Tokens added per second.
    pub per_sec: f64,
    /// Tokens a full bucket holds: requests that may come at once.
    pub burst: u32,
}

/// One client's bucket: `tokens` as of `at`.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn full(rate: Rate, now: Instant) -> Self {
        Bucket {
            tokens: f64::from(rate.burst),
            at: now,
        }
    }

    fn refill(&mut self, rate: Rate, now: Instant) {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + elapsed * rate.per_sec).min(f64::from(rate.burst));
        self.at = now;
    }

    /// Takes a token, or says how long until one is there.
    fn take(&mut self, rate: Rate, now: Instant) -> Result<(), Duration> {
        self.refill(rate, now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(seconds((1.0 - self.tokens) / rate.per_sec))
        }
    }

    /// How long until the bucket is full again, when it is as good as a new one.
    fn until_idle(&self, rate: Rate, now: Instant) -> Duration {
        let mut b = *self;
        b.refill(rate, now);
        seconds((f64::from(rate.burst) - b.tokens) / rate.per_sec)
    }
}

/// A wait in seconds as a `Duration`; a wait too long to represent (a rate so small that one
/// token takes longer than `Duration::MAX`) is `Duration::MAX`, which Retry-After caps anyway.
fn seconds(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX)
}

/// The buckets of all clients, at most `max` of them. Full buckets are dropped when room is
/// needed (a full bucket is the same as none); if every bucket is in use, new clients wait.
/// A poisoned lock is recovered: each change of the map is one `insert`, `retain` or update of
/// one bucket, never left half done.
///
/// ```
/// use modoai_gate::{Buckets, Rate};
/// use tokio::time::Instant;
/// let buckets = Buckets::new(1000);
/// let rate = Rate { per_sec: 1.0, burst: 2 };
/// let now = Instant::now();
/// assert!(buckets.take("alice", rate, now).is_ok());
/// assert!(buckets.take("alice", rate, now).is_ok());
/// let wait = buckets.take("alice", rate, now).unwrap_err();
/// assert_eq!(wait.as_secs(), 1);
/// assert!(buckets.take("bob", rate, now).is_ok());
/// ```
#[derive(Debug)]
pub struct Buckets {
    max: usize,
    map: Mutex<HashMap<String, (Bucket, Rate)>>,
}

impl Buckets {
    /// A map of at most `max` buckets.
    ///
    /// # Panics
    ///
    /// If `max` is 0 (the server's `max-clients` setting refuses 0).
    pub fn new(max: usize) -> Self {
        assert!(max > 0, "a rate-limit map must hold at least one client");
        Buckets {
            max,
            map: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token from `key`'s bucket, or says how long to wait.
    pub fn take(&self, key: &str, rate: Rate, now: Instant) -> Result<(), Duration> {
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((bucket, r)) = map.get_mut(key) {
            *r = rate;
            return bucket.take(rate, now);
        }
        if map.len() >= self.max {
            map.retain(|_, (b, r)| !b.until_idle(*r, now).is_zero());
            if map.len() >= self.max {
                let soonest = map.values().map(|(b, r)| b.until_idle(*r, now)).min();
                return Err(soonest.unwrap_or(Duration::from_secs(1)));
            }
        }
        let mut bucket = Bucket::full(rate, now);
        let taken = bucket.take(rate, now);
        map.insert(key.to_owned(), (bucket, rate));
        taken
    }

    /// The tokens left in `key`'s bucket now (a full bucket for a client not seen), without
    /// taking one.
    pub fn remaining(&self, key: &str, rate: Rate, now: Instant) -> f64 {
        let map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        match map.get(key) {
            Some((bucket, _)) => {
                let mut b = *bucket;
                b.refill(rate, now);
                b.tokens
            }
            None => f64::from(rate.burst),
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: Rate = Rate {
        per_sec: 2.0,
        burst: 3,
    };

    #[tokio::test(start_paused = true)]
    async fn a_vanishingly_small_rate_waits_the_longest_time_instead_of_panicking() {
        let b = Buckets::new(10);
        let tiny = Rate {
            per_sec: 1e-300,
            burst: 1,
        };
        assert_eq!(b.take("a", tiny, Instant::now()), Ok(()));
        assert_eq!(b.take("a", tiny, Instant::now()), Err(Duration::MAX));
        // The bounded map still finds which client frees up soonest.
        assert!(b.take("b", tiny, Instant::now()).is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn burst_then_rate() {
        let b = Buckets::new(10);
        let now = Instant::now;
        for _ in 0..3 {
            assert_eq!(b.take("a", RATE, now()), Ok(()));
        }
        assert_eq!(b.take("a", RATE, now()), Err(Duration::from_millis(500)));
        tokio::time::advance(Duration::from_millis(250)).await;
        assert_eq!(b.take("a", RATE, now()), Err(Duration::from_millis(250)));
        tokio::time::advance(Duration::from_millis(250)).await;
        assert_eq!(b.take("a", RATE, now()), Ok(()));
        assert!(b.take("a", RATE, now()).is_err());
        // Other clients have their own buckets.
        assert_eq!(b.take("b", RATE, now()), Ok(()));
        // Idle time refills to the burst, no further.
        tokio::time::advance(Duration::from_secs(60)).await;
        for _ in 0..3 {
            assert_eq!(b.take("a", RATE, now()), Ok(()));
        }
        assert!(b.take("a", RATE, now()).is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn the_map_stays_bounded() {
        let b = Buckets::new(2);
        let now = Instant::now;
        assert!(b.take("a", RATE, now()).is_ok());
        assert!(b.take("b", RATE, now()).is_ok());
        // Both buckets are in use: a third client waits until one of them is full again.
        assert_eq!(b.take("c", RATE, now()), Err(Duration::from_millis(500)));
        assert_eq!(b.len(), 2);
        tokio::time::advance(Duration::from_millis(500)).await;
        assert!(b.take("c", RATE, now()).is_ok());
        assert_eq!(b.len(), 1, "the idle buckets were dropped");
        for i in 0..100 {
            let _ = b.take(&format!("k{i}"), RATE, now());
            assert!(b.len() <= 2);
        }
    }
}

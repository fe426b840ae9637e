//! Per-key limits: a quota of requests per hour (a fixed window from the key's first request,
//! reset each hour, as PrEV's "reset each cycle") and a rate (the token buckets of `modoai_gate`,
//! the server's too).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use modoai_gate::{Buckets, Rate};
use tokio::time::{Duration, Instant};

use super::store::ApiKey;

/// The quota window.
pub const WINDOW: Duration = Duration::from_secs(3600);

/// Where a key stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Usage {
    /// Requests per hour allowed, if there is a quota.
    pub quota: Option<u64>,
    /// Requests left in this window.
    pub remaining: Option<u64>,
    /// Seconds until the window resets.
    pub reset: u64,
    /// Requests made in this window.
    pub used: u64,
}

/// Whether a request may go on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    /// Yes; the usage after counting it.
    Allowed(Usage),
    /// The hour's quota is spent: retry after the reset.
    QuotaSpent(Usage),
    /// Too fast: retry after this many seconds.
    TooFast(Usage, u64),
}

/// The quota windows and rate buckets of every key.
#[derive(Debug)]
pub struct Limits {
    windows: Mutex<HashMap<String, (Instant, u64)>>,
    buckets: Buckets,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            windows: Mutex::new(HashMap::new()),
            buckets: Buckets::new(100_000),
        }
    }
}

impl Limits {
    /// Counts a request of `key` if it may be made. The check and the count are one step under
    /// one lock, so concurrent requests cannot pass the quota together.
    pub fn admit(&self, key: &ApiKey) -> Decision {
        let now = Instant::now();
        let mut windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        let usage = usage_in(&windows, key, now);
        if usage.remaining == Some(0) {
            return Decision::QuotaSpent(usage);
        }
        if let Some(per_sec) = key.rate_per_sec {
            let rate = Rate {
                per_sec,
                burst: per_sec.ceil().max(1.0) as u32,
            };
            if let Err(wait) = self.buckets.take(&key.name, rate, now) {
                return Decision::TooFast(usage, wait.as_secs_f64().ceil().max(1.0) as u64);
            }
        }
        let w = windows.entry(key.name.clone()).or_insert((now, 0));
        if now.duration_since(w.0) >= WINDOW {
            *w = (now, 0);
        }
        w.1 += 1;
        Decision::Allowed(usage_in(&windows, key, now))
    }

    /// Counts one more request of `key`'s quota for work a request goes on doing (an export's
    /// next thousand captures, `docs/explorer.md`), without its rate: the usage after, or
    /// `Err` with the usage when the quota is spent.
    pub fn spend(&self, key: &ApiKey) -> Result<Usage, Usage> {
        let now = Instant::now();
        let mut windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        let usage = usage_in(&windows, key, now);
        if usage.remaining == Some(0) {
            return Err(usage);
        }
        let w = windows.entry(key.name.clone()).or_insert((now, 0));
        if now.duration_since(w.0) >= WINDOW {
            *w = (now, 0);
        }
        w.1 += 1;
        Ok(usage_in(&windows, key, now))
    }

    /// Takes back one request of `key`'s quota in the current window: a request the server could
    /// not answer (`503`) is not counted, since its client is told to retry and the retry is the
    /// request that counts. Nothing is taken back from a window that has ended, nor below zero.
    pub fn refund(&self, key: &ApiKey) {
        let now = Instant::now();
        let mut windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(w) = windows.get_mut(&key.name) {
            if now.duration_since(w.0) < WINDOW {
                w.1 = w.1.saturating_sub(1);
            }
        }
    }

    /// Where `key` stands now, without counting a request.
    pub fn usage(&self, key: &ApiKey) -> Usage {
        let windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        usage_in(&windows, key, Instant::now())
    }
}

/// Where `key` stands at `now` in `windows`.
fn usage_in(windows: &HashMap<String, (Instant, u64)>, key: &ApiKey, now: Instant) -> Usage {
    let (start, used) = match windows.get(&key.name) {
        Some(&(start, used)) if now.duration_since(start) < WINDOW => (start, used),
        _ => (now, 0),
    };
    let reset = (WINDOW - now.duration_since(start)).as_secs_f64().ceil() as u64;
    Usage {
        quota: key.quota_per_hour,
        remaining: key.quota_per_hour.map(|q| q.saturating_sub(used)),
        reset,
        used,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(quota: Option<u64>, rate: Option<f64>) -> ApiKey {
        ApiKey {
            name: "k".into(),
            digest: String::new(),
            quota_per_hour: quota,
            rate_per_sec: rate,
            allow: vec![],
            created: String::new(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_quota_is_spent_then_reset_after_an_hour() {
        let limits = Limits::default();
        let k = key(Some(2), None);
        assert!(matches!(limits.admit(&k), Decision::Allowed(u) if u.remaining == Some(1)));
        assert!(matches!(limits.admit(&k), Decision::Allowed(u) if u.remaining == Some(0)));
        match limits.admit(&k) {
            Decision::QuotaSpent(u) => assert_eq!(u.reset, 3600),
            other => panic!("{other:?}"),
        }
        tokio::time::advance(Duration::from_secs(1800)).await;
        assert!(matches!(limits.admit(&k), Decision::QuotaSpent(u) if u.reset == 1800));
        tokio::time::advance(Duration::from_secs(1800)).await;
        assert!(matches!(limits.admit(&k), Decision::Allowed(u) if u.used == 1));
    }

    #[tokio::test(start_paused = true)]
    async fn a_rate_limits_bursts() {
        let limits = Limits::default();
        let k = key(None, Some(1.0));
        assert!(matches!(limits.admit(&k), Decision::Allowed(_)));
        assert!(matches!(limits.admit(&k), Decision::TooFast(_, 1)));
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(matches!(limits.admit(&k), Decision::Allowed(u) if u.remaining.is_none()));
    }

    #[tokio::test(start_paused = true)]
    async fn work_spends_the_quota_but_not_the_rate() {
        let limits = Limits::default();
        let k = key(Some(3), Some(1.0));
        assert!(matches!(limits.admit(&k), Decision::Allowed(_)));
        assert_eq!(limits.spend(&k).map(|u| u.remaining), Ok(Some(1)));
        assert_eq!(limits.spend(&k).map(|u| u.remaining), Ok(Some(0)));
        assert_eq!(limits.spend(&k).map_err(|u| u.used), Err(3));
        assert!(matches!(limits.admit(&k), Decision::QuotaSpent(_)));
    }

    #[tokio::test(start_paused = true)]
    async fn a_refund_gives_back_one_request_of_the_current_window_only() {
        let limits = Limits::default();
        let k = key(Some(2), None);
        limits.refund(&k);
        assert_eq!(limits.usage(&k).used, 0, "nothing to give back yet");
        assert!(matches!(limits.admit(&k), Decision::Allowed(_)));
        assert!(matches!(limits.admit(&k), Decision::Allowed(u) if u.remaining == Some(0)));
        limits.refund(&k);
        assert!(matches!(limits.admit(&k), Decision::Allowed(u) if u.remaining == Some(0)));
        assert!(matches!(limits.admit(&k), Decision::QuotaSpent(_)));
        tokio::time::advance(WINDOW).await;
        limits.refund(&k);
        assert!(matches!(limits.admit(&k), Decision::Allowed(u) if u.used == 1));
        limits.refund(&k);
        limits.refund(&k);
        assert_eq!(limits.usage(&k).used, 0, "never below zero");
    }

    /// Many threads at once against a small quota: exactly the quota is admitted, never more.
    #[test]
    fn concurrent_requests_never_pass_the_quota_together() {
        const QUOTA: u64 = 200;
        const THREADS: usize = 8;
        const EACH: usize = 2_000;
        for round in 0..20 {
            let limits = Limits::default();
            let k = key(Some(QUOTA), None);
            let start = std::sync::Barrier::new(THREADS);
            let allowed: usize = std::thread::scope(|s| {
                let handles: Vec<_> = (0..THREADS)
                    .map(|_| {
                        s.spawn(|| {
                            start.wait();
                            (0..EACH)
                                .filter(|_| matches!(limits.admit(&k), Decision::Allowed(_)))
                                .count()
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).sum()
            });
            assert_eq!(allowed as u64, QUOTA, "round {round}: {allowed} admitted");
            assert_eq!(limits.usage(&k).used, QUOTA);
        }
    }
}

//! Per-host politeness: at most `per_host` requests in flight to one authority, a pause of
//! `delay` after each, and a host-wide hold while a `Retry-After` runs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use url::Url;

/// The authority politeness is kept per: `host:port`, the port being the scheme's default when
/// `url` gives none (`None` for a URL without a host or a known port). Shards of a harvest list
/// are split by the same key (`crate::shard`).
///
/// ```
/// use url::Url;
/// let key = |u: &str| modoai_harvester::client::host_key(&Url::parse(u).unwrap());
/// assert_eq!(key("https://Example.org/modoai").as_deref(), Some("example.org:443"));
/// assert_eq!(key("http://[::1]:81/oai").as_deref(), Some("[::1]:81"));
/// ```
pub fn host_key(url: &Url) -> Option<String> {
    let host = url.host_str()?;
    let port = url.port_or_known_default()?;
    Some(format!("{host}:{port}"))
}

/// The politeness state of every host a [`Client`](super::Client) has talked to.
#[derive(Debug)]
pub(crate) struct Hosts {
    hosts: Mutex<HashMap<String, Arc<Host>>>,
    per_host: usize,
    delay: Duration,
}

#[derive(Debug)]
struct Host {
    slots: Arc<Semaphore>,
    /// No request to this host starts before this instant.
    next_start: Mutex<Instant>,
}

/// One request's slot at a host. Dropping it ends the request for politeness: the host's next
/// request may start `delay` later.
#[derive(Debug)]
pub(crate) struct HostPermit {
    host: Arc<Host>,
    delay: Duration,
    _slot: OwnedSemaphorePermit,
}

impl Hosts {
    pub(crate) fn new(per_host: usize, delay: Duration) -> Self {
        // A semaphore of no permits would make every request wait forever.
        assert!(per_host > 0, "ClientConfig::per_host must be at least 1");
        Self {
            hosts: Mutex::default(),
            per_host,
            delay,
        }
    }

    /// Waits for a free slot at `key`, then until the host's pause is over.
    pub(crate) async fn acquire(&self, key: &str) -> HostPermit {
        let host = self.host(key);
        let slot = Arc::clone(&host.slots)
            .acquire_owned()
            .await
            .expect("host semaphores are never closed");
        // Loop: a Retry-After seen by another request may push the start back while we sleep.
        loop {
            let at = *lock(&host.next_start);
            if at <= Instant::now() {
                break;
            }
            tokio::time::sleep_until(at).await;
        }
        HostPermit {
            host,
            delay: self.delay,
            _slot: slot,
        }
    }

    /// Holds every request to `key` back until `until` (a `Retry-After` applies to the host,
    /// not only to the request that received it).
    pub(crate) fn defer(&self, key: &str, until: Instant) {
        let host = self.host(key);
        let mut next = lock(&host.next_start);
        *next = (*next).max(until);
    }

    fn host(&self, key: &str) -> Arc<Host> {
        let mut hosts = lock(&self.hosts);
        let host = hosts.entry(key.to_owned()).or_insert_with(|| {
            Arc::new(Host {
                slots: Arc::new(Semaphore::new(self.per_host)),
                next_start: Mutex::new(Instant::now()),
            })
        });
        Arc::clone(host)
    }
}

impl Drop for HostPermit {
    fn drop(&mut self) {
        let mut next = lock(&self.host.next_start);
        *next = (*next).max(Instant::now() + self.delay);
    }
}

/// The guarded data stays consistent whatever a panicking holder did (plain assignments), so a
/// poisoned lock is used as is.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn pause_after_release_and_hosts_independent() {
        let hosts = Hosts::new(1, Duration::from_millis(50));
        let first = hosts.acquire("a:80").await;
        let other = hosts.acquire("b:80").await; // another host does not wait
        drop(first);
        let released = Instant::now();
        let _second = hosts.acquire("a:80").await;
        assert!(released.elapsed() >= Duration::from_millis(50));
        drop(other);
    }

    #[tokio::test]
    async fn defer_holds_the_host() {
        let hosts = Hosts::new(2, Duration::ZERO);
        let start = Instant::now();
        hosts.defer("a:80", start + Duration::from_millis(60));
        let _permit = hosts.acquire("a:80").await;
        assert!(start.elapsed() >= Duration::from_millis(60));
    }
}

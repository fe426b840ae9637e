//! [`Index`]: the holdings behind a lock that many requests read at once, and the readiness of
//! the first scan.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::SystemTime;

use modoai_protocol::Datestamp;
use tokio::sync::Notify;

use super::holdings::Holdings;
use super::{Entry, Filter, Key};

/// The shared, concurrently readable index of one document root.
#[derive(Default)]
pub(crate) struct Index {
    holdings: RwLock<Holdings>,
    ready: AtomicBool,
    ready_notify: Notify,
    last_scan: Mutex<Option<SystemTime>>,
}

impl Index {
    /// True once the first full scan has finished.
    pub(crate) fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// Waits for the first full scan.
    pub(crate) async fn ready(&self) {
        loop {
            let notified = self.ready_notify.notified();
            if self.is_ready() {
                return;
            }
            notified.await;
        }
    }

    pub(super) fn set_ready(&self) {
        self.ready.store(true, Ordering::Release);
        self.ready_notify.notify_waiters();
    }

    /// When the last full scan of the root ended.
    pub(crate) fn last_scan(&self) -> Option<SystemTime> {
        *self
            .last_scan
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A full scan has ended now.
    pub(super) fn scanned(&self) {
        *self
            .last_scan
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(SystemTime::now());
    }

    pub(super) fn read(&self) -> std::sync::RwLockReadGuard<'_, Holdings> {
        self.holdings.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn write(&self) -> std::sync::RwLockWriteGuard<'_, Holdings> {
        self.holdings
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The record whose URL path (relative to the site root, percent-encoded) is `path`.
    pub(crate) fn get(&self, path: &str) -> Option<Arc<Entry>> {
        self.read().get(path)
    }

    /// Up to `limit` records matching `filter` that follow `after` in the stable order.
    pub(crate) fn page(
        &self,
        filter: &Filter,
        after: Option<&Key>,
        limit: usize,
    ) -> Vec<Arc<Entry>> {
        self.read().page(filter, after, limit)
    }

    /// How many records match `filter`.
    pub(crate) fn count(&self, filter: &Filter) -> u64 {
        self.read().count(filter)
    }

    /// Every set spec with at least one current record, sorted, the root first.
    pub(crate) fn set_specs(&self) -> Vec<String> {
        self.read().set_specs()
    }

    /// The lowest datestamp of any record, deleted ones included.
    pub(crate) fn earliest(&self) -> Option<Datestamp> {
        self.read().earliest()
    }

    /// Number of current (not deleted) records.
    pub(crate) fn len(&self) -> usize {
        self.read().live()
    }
}

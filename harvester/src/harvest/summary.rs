//! What a harvest did: [`Summary`], and the [`Progress`] it reports on the way.

use std::time::Duration;

use super::HarvestError;

/// Figures of one harvest.
#[derive(Debug, Default)]
pub struct Summary {
    /// The list harvested.
    pub endpoint: String,
    /// Its format.
    pub prefix: String,
    /// Its set.
    pub set: Option<String>,
    /// `from` asked (incremental or given).
    pub from: Option<String>,
    /// Pages completed.
    pub pages: u64,
    /// Items seen in the pages.
    pub items: u64,
    /// Items newly archived.
    pub archived: u64,
    /// Items already in the archive (same identifier and datestamp).
    pub skipped: u64,
    /// Deleted records archived as such.
    pub deleted: u64,
    /// Payloads stored as revisits (identical payload already archived).
    pub revisits: u64,
    /// Payload bytes archived.
    pub bytes: u64,
    /// Fixity mismatches found (each recorded in the archive).
    pub fixity_errors: u64,
    /// Records that could not be archived (no identifier, a `ref` that could not be fetched).
    pub bad_records: u64,
    /// Pages fetched again after a broken body.
    pub page_retries: u64,
    /// Fresh starts after `badResumptionToken`.
    pub restarts: u32,
    /// HTTP requests and retries.
    pub requests: u64,
    /// HTTP retries (network errors, 5xx, 503).
    pub http_retries: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Continued an interrupted harvest.
    pub resumed: bool,
    /// Why it stopped early; `None` when the list was harvested to its end.
    pub error: Option<HarvestError>,
}

/// The figures of what is archived, to put back when a batch of items is not.
#[derive(Clone, Copy)]
pub(super) struct Archived {
    archived: u64,
    deleted: u64,
    revisits: u64,
    bytes: u64,
    fixity_errors: u64,
}

impl Archived {
    pub(super) fn of(s: &Summary) -> Self {
        Archived {
            archived: s.archived,
            deleted: s.deleted,
            revisits: s.revisits,
            bytes: s.bytes,
            fixity_errors: s.fixity_errors,
        }
    }

    pub(super) fn restore(self, s: &mut Summary) {
        s.archived = self.archived;
        s.deleted = self.deleted;
        s.revisits = self.revisits;
        s.bytes = self.bytes;
        s.fixity_errors = self.fixity_errors;
    }
}

impl Summary {
    /// The list was harvested to its end.
    pub fn is_complete(&self) -> bool {
        self.error.is_none()
    }

    /// The harvest was interrupted at a safe point (its cancellation token was cancelled).
    pub fn is_interrupted(&self) -> bool {
        matches!(self.error, Some(HarvestError::Interrupted))
    }
}

/// Receives progress, e.g. for a progress bar. Every method has an empty default.
pub trait Progress {
    /// A page arrived: the list's size and the cursor, when the endpoint gives them.
    fn page(&self, _pages: u64, _list_size: Option<u64>, _cursor: Option<u64>) {}
    /// An item was handled; `bytes` archived (0 if skipped).
    fn item(&self, _bytes: u64) {}
    /// A warning worth showing (a retry, a fixity mismatch).
    fn warn(&self, _message: &str) {}
}

/// A [`Progress`] that ignores everything.
#[derive(Debug, Default)]
pub struct Quiet;

impl Progress for Quiet {}

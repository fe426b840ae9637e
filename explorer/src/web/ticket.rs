//! Export tickets: how a person's browser downloads an export with a key. A link cannot carry
//! an `Authorization` header, and a key in a URL would end up in histories and logs; so the
//! search page asks `POST /api/v1/export/ticket` with the key (JavaScript sends the header), and
//! gets a ticket: a random token that stands for that key in **one** export's URL
//! (`/api/v1/export?…&ticket=T`), within a minute. The browser then downloads as from any link,
//! and the page follows the export's progress at `/api/v1/export/progress/T` (captures written
//! of the total, and how it ended) (`docs/explorer.md`, "Exports from the search page").
//!
//! A ticket is the key's, not a copy of it: the key is looked up again when the ticket is used,
//! so a key revoked in between admits nothing. Tickets live in memory only; a restart forgets
//! them (the page asks again).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;

/// How long a ticket waits to be used.
pub(crate) const TICKET_LIFE: Duration = Duration::from_secs(60);
/// How long an export's progress can be read after the ticket was used (it ends, or the page
/// stops asking, well before).
const PROGRESS_LIFE: Duration = Duration::from_secs(6 * 3600);
/// Tickets and progresses kept at most: past it, a new ticket waits for old ones to expire.
const MOST: usize = 4096;

/// Who a ticket admits: the digest of the key it stands for, or nobody in particular where the
/// API answers without a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Holder {
    /// A caller without a key, at a door open to them.
    Anonymous,
    /// The key of this digest (`sha256:…`).
    Key(String),
}

/// Where an export stands, as its ticket's progress tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Stage {
    /// The ticket is not used yet.
    Waiting,
    /// The export is being written.
    Running,
    /// Every capture was written.
    Complete,
    /// It stopped before the end (a spent quota, a changed index, the client gone).
    Stopped,
}

impl Stage {
    const ALL: [Stage; 4] = [
        Stage::Waiting,
        Stage::Running,
        Stage::Complete,
        Stage::Stopped,
    ];

    /// Whether the export has ended.
    fn is_over(self) -> bool {
        matches!(self, Stage::Complete | Stage::Stopped)
    }
}

/// An export's progress, shared by the export's work (which counts) and the progress route
/// (which reads).
#[derive(Debug, Default)]
pub(crate) struct Progress {
    stage: AtomicU8,
    total: AtomicU64,
    written: AtomicU64,
    /// Why it stopped.
    reason: Mutex<Option<String>>,
}

/// What `/api/v1/export/progress/T` answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Seen {
    /// Where the export stands.
    pub(crate) stage: Stage,
    /// Captures written so far.
    pub(crate) written: u64,
    /// Captures the export holds.
    pub(crate) total: u64,
    /// Why it stopped, and what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
}

impl Progress {
    /// The export has begun: `total` captures to write.
    pub(crate) fn start(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
        self.stage.store(Stage::Running as u8, Ordering::Release);
    }

    /// `n` more captures were written.
    pub(crate) fn wrote(&self, n: u64) {
        self.written.fetch_add(n, Ordering::Relaxed);
    }

    /// The export ended: complete, or stopped before its end for the reason given. The first
    /// end is the one that stays.
    pub(crate) fn end(&self, ended: Result<(), String>) {
        if self.seen().stage.is_over() {
            return;
        }
        let stage = match ended {
            Ok(()) => Stage::Complete,
            Err(reason) => {
                *self.reason.lock().unwrap_or_else(PoisonError::into_inner) = Some(reason);
                Stage::Stopped
            }
        };
        self.stage.store(stage as u8, Ordering::Release);
    }

    /// Where it stands.
    pub(crate) fn seen(&self) -> Seen {
        let stage = Stage::ALL[usize::from(self.stage.load(Ordering::Acquire)).min(3)];
        Seen {
            stage,
            written: self.written.load(Ordering::Relaxed),
            total: self.total.load(Ordering::Relaxed),
            reason: self
                .reason
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
        }
    }
}

/// An export's progress that ends as stopped if the export's work goes away without saying how
/// it ended (an error before it began, a client that left, a panic).
#[derive(Debug)]
pub(crate) struct Tracked(Arc<Progress>);

impl Tracked {
    /// The progress it reports to.
    pub(crate) fn progress(&self) -> &Arc<Progress> {
        &self.0
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0
            .end(Err("the export ended before its last capture".into()));
    }
}

/// A ticket not used yet, or the progress of the export that used it.
#[derive(Debug)]
struct Entry {
    /// Whom it admits; none once used.
    holder: Option<Holder>,
    /// When it is forgotten.
    until: Instant,
    progress: Arc<Progress>,
}

/// The tickets of a server.
#[derive(Debug, Default)]
pub(crate) struct Tickets {
    entries: Mutex<HashMap<String, Entry>>,
}

/// Why no ticket is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("too many exports are waiting to start; try again in a minute")]
pub(crate) struct Full;

impl Tickets {
    /// A new ticket for `holder`: its token.
    pub(crate) fn issue(&self, holder: Holder) -> Result<String, Full> {
        self.issue_at(holder, Instant::now())
    }

    fn issue_at(&self, holder: Holder, now: Instant) -> Result<String, Full> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.retain(|_, e| e.until > now);
        if entries.len() >= MOST {
            return Err(Full);
        }
        let token = hex(&rand::random::<[u8; 16]>());
        entries.insert(
            token.clone(),
            Entry {
                holder: Some(holder),
                until: now + TICKET_LIFE,
                progress: Arc::default(),
            },
        );
        Ok(token)
    }

    /// Uses the ticket `token`: whom it admits and the progress its export reports to; none if
    /// it is unknown, expired or used already.
    pub(crate) fn redeem(&self, token: &str) -> Option<(Holder, Tracked)> {
        self.redeem_at(token, Instant::now())
    }

    fn redeem_at(&self, token: &str, now: Instant) -> Option<(Holder, Tracked)> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = entries.get_mut(token).filter(|e| e.until > now)?;
        let holder = entry.holder.take()?;
        entry.until = now + PROGRESS_LIFE;
        Some((holder, Tracked(Arc::clone(&entry.progress))))
    }

    /// Where the export of ticket `token` stands; none for an unknown or forgotten ticket.
    pub(crate) fn progress(&self, token: &str) -> Option<Seen> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = entries.get(token).filter(|e| e.until > Instant::now())?;
        Some(entry.progress.seen())
    }
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticket_admits_once_within_its_life_and_reports_progress() {
        let tickets = Tickets::default();
        let now = Instant::now();
        let t = tickets
            .issue_at(Holder::Key("sha256:ab".into()), now)
            .unwrap();
        assert_eq!(t.len(), 32);
        assert_eq!(tickets.progress(&t).unwrap().stage, Stage::Waiting);
        let (holder, tracked) = tickets.redeem_at(&t, now).unwrap();
        assert_eq!(holder, Holder::Key("sha256:ab".into()));
        assert!(tickets.redeem_at(&t, now).is_none(), "used once only");
        tracked.progress().start(10);
        tracked.progress().wrote(4);
        let seen = tickets.progress(&t).unwrap();
        assert_eq!(
            (seen.stage, seen.written, seen.total),
            (Stage::Running, 4, 10)
        );
        drop(tracked);
        let seen = tickets.progress(&t).unwrap();
        assert_eq!(
            seen.stage,
            Stage::Stopped,
            "work gone without an end is stopped"
        );
        assert!(seen.reason.unwrap().contains("before its last capture"));

        let late = tickets.issue_at(Holder::Anonymous, now).unwrap();
        assert!(tickets.redeem_at(&late, now + TICKET_LIFE).is_none());
        assert!(tickets.redeem_at("0123", now).is_none());
    }

    #[test]
    fn a_complete_export_stays_complete_and_tickets_are_bounded() {
        let tickets = Tickets::default();
        let now = Instant::now();
        let t = tickets.issue_at(Holder::Anonymous, now).unwrap();
        let (_, tracked) = tickets.redeem_at(&t, now).unwrap();
        tracked.progress().start(2);
        tracked.progress().wrote(2);
        tracked.progress().end(Ok(()));
        drop(tracked);
        let seen = tickets.progress(&t).unwrap();
        assert_eq!((seen.stage, seen.reason), (Stage::Complete, None));

        for _ in 1..MOST {
            tickets.issue_at(Holder::Anonymous, now).unwrap();
        }
        assert_eq!(tickets.issue_at(Holder::Anonymous, now), Err(Full));
        assert!(
            tickets
                .issue_at(Holder::Anonymous, now + TICKET_LIFE)
                .is_ok(),
            "expired tickets make room"
        );
    }
}

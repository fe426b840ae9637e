//! An archive directory: rotating WARC files, a sorted CDXJ index, the ledger of harvested items
//! and the harvest state, behind an exclusive lock.
//!
//! ```text
//! ARCHIVE/warcs/*.warc.gz   WARC 1.1, one gzip member per record (`.open` while written)
//! ARCHIVE/index.cdxj        CDXJ, SURT-keyed, sorted (pywb reads it as is)
//! ARCHIVE/ledger.jsonl      one line per harvested item, written after its records
//! ARCHIVE/state.json        per list: the next resumption token, the incremental `from`
//! ARCHIVE/spool/            payloads being received (cleared on open)
//! ARCHIVE/lock              held (flock) while a harvester uses the archive
//! ```
//!
//! [`Reader`] reads an archive without writing it or taking the lock: while a harvest runs, on a
//! read-only copy, or after a crash (it shows what the ledger lists as complete).
//!
//! Opening an archive for writing finishes whatever a crashed run left: `.open` WARC files are cut back to the
//! end of the last item the ledger knows (an item written without its ledger line is harvested
//! again), then checked and closed; ledger lines not yet in the index are indexed.

mod compact;
mod error;
mod history;
mod layout;
mod ledger;
mod open;
mod options;
mod parts;
mod pending;
mod reader;
mod recovery;
mod report;
mod state;

pub use compact::get_record_url;
pub use error::ArchiveError;
pub use history::{names_key, Deletion, Timeline};
pub use layout::{ArchiveLayout, NotAnArchive};
pub use ledger::{record_ref, timestamp14, written, Entry, EntryKind, Written};
pub use open::{Archive, Original};
pub use options::ArchiveOptions;
pub use parts::{parts_of, Part, ResolveError, Resolved};
pub use reader::{Entries, ReadError, Reader, WarcFile};
pub use recovery::Recovery;
pub use report::{ArchiveReport, HarvestReport, ListReport};
pub use state::{ListKey, ListState, Run, Running, State};

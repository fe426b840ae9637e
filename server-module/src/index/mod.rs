//! The site index: every record of the site in the stable `(datestamp, path)` order that
//! resumption tokens page through, with lookups by path and by set, and a log of changes; kept on
//! disk (the state folder) and current in the background.
//!
//! | file | job |
//! |---|---|
//! | `store.rs` | the store and its keyspaces, readiness, the state folder |
//! | `codec.rs` | the byte layouts of keys and values |
//! | `catalog.rs` | MIME types and counts, stored with the records |
//! | `read.rs` | consistent, dated views: records, pages, counts, changes |
//! | `write.rs` | atomic batches and the datestamp rule |
//! | `clock.rs` | the moments of datestamps and response dates, never going backwards |
//! | `regroup.rs` | a change of set definitions applied to every record it concerns |
//! | `retain.rs` | the change log's retention, and where its history starts |
//! | `bulk.rs`, `sort.rs` | the first index of a site, loaded in bulk |
//! | `walk.rs`, `compare.rs` | the walk in key order, and its merge with the stored records |
//! | `walk_par.rs` | the same walk on parallel workers, for the first index |
//! | `watcher.rs` | the file-system watcher, each folder added by the walk that reads it |
//! | `scan.rs` | what may be a record at all; the survey of `modoai records` |
//! | `watch.rs` | the maintenance task: first index or reconcile, events, rescans |
//!
//! Three walks of the root, one per job, all deciding what may be a record with the same
//! `scan::classify`: `walk.rs` emits candidates in the byte order of their URL paths, the key
//! order a rescan merges with the stored records; `walk_par.rs` emits the same sequence from a
//! pool of workers, because the first index of a large site is bound by reading folders and
//! `stat`ing files; `scan::survey` (walkdir), the dry run of `modoai records`, reports every path
//! that is *not* a record with its reason and lists folders in file-name order, the order a
//! person compares with `ls`. Merging the survey into the key-order walk would change what
//! `modoai records` prints and give the index walks a reporting path they do not need.

mod bulk;
mod catalog;
mod clock;
mod codec;
mod compare;
mod entry;
mod filter;
mod read;
mod regroup;
mod retain;
mod scan;
mod sort;
mod store;
pub(crate) mod url_path;
mod walk;
mod walk_par;
mod watch;
mod watcher;
mod write;

pub use codec::ChangeKind;
pub(crate) use entry::{Entry, Key};
pub(crate) use filter::Filter;
pub use read::Change;
pub(crate) use read::View;
pub(crate) use scan::{is_visible, regular_file_meta};
#[cfg(feature = "cli")]
pub(crate) use scan::{survey, Candidate, Skip};
pub(crate) use store::Index;
pub use store::IndexError;
pub(crate) use watch::{maintain, Maintenance, Types};

#[cfg(test)]
mod clock_tests;
#[cfg(test)]
mod sets_tests;
#[cfg(test)]
mod tests;

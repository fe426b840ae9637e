//! The site index: every record of the site in the stable `(datestamp, path)` order that
//! resumption tokens page through, with lookups by path and by set, kept current in the background.

mod entry;
mod filter;
mod holdings;
mod scan;
mod store;
pub(crate) mod url_path;
mod watch;

pub(crate) use entry::{Entry, Key};
pub(crate) use filter::Filter;
pub(crate) use scan::{is_visible, regular_file_meta, survey, Candidate, Order, Skip};
pub(crate) use store::Index;
pub(crate) use watch::{maintain, Maintenance};

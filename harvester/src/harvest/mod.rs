//! The harvest loop: one list (endpoint, format, set) page by page into an
//! [`Archive`](modoai_archive::archive::Archive).
//!
//! Pages are parsed as they arrive and every record is stored as soon as it is parsed; a
//! checkpoint after a page, at most once a second (WARC and ledger synced, then the next token
//! saved), lets a killed harvest continue from there, skipping the items it stored since. The
//! next page is requested as soon as a page is parsed, so the endpoint makes it while this one
//! is made durable. A page that fails to arrive or parse is fetched again with the
//! client's backoff, then reported; items it delivered before failing are not stored twice, since
//! the archive knows every (identifier, datestamp) it holds.
//!
//! A harvest given a cancellation token ([`Harvester::cancellation`]) stops at the next safe
//! point once it is cancelled: after the item being stored, or at once while it waits for an
//! answer or a retry. Its state is saved as after a failure, so the same harvest continues.

mod collect;
mod context;
pub mod endpoint;
mod error;
mod fixity;
mod harvester;
mod item;
mod net;
mod options;
mod origin;
mod page;
mod parsing;
mod prefetch;
mod refs;
mod root;
mod store;
mod summary;

pub use endpoint::{Format, SetInfo};
pub use error::HarvestError;
pub use harvester::Harvester;
pub use options::HarvestOptions;
pub use summary::{Progress, Quiet, Summary};

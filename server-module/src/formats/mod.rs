//! The metadata formats modoai disseminates, each a writer of one record's `<metadata>` content.

mod crate_meta;
mod dc;
mod didl;
mod format;

pub(crate) use dc::write_dc;
pub(crate) use didl::{write_didl, Fetched};
pub(crate) use format::Format;

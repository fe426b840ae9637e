//! Memento (RFC 7089) and PWID resolution over HTTP, at the paths archives conventionally use:
//!
//! ```text
//! /timemap/link/{URI-R}   TimeMap, application/link-format (§5)
//! /timemap/json/{URI-R}   the same as JSON
//! /timegate/{URI-R}       TimeGate: Accept-Datetime → 302 to the closest memento (§4.2.1)
//! /memento/{YYYYMMDDhhmmss}/{URI-R}   the memento: the payload byte-exact from the WARC
//! /pwid/urn:pwid:…        302 to the memento a PWID names
//! ```
//!
//! No rewriting: pywb stays the rewriting replay.

mod datetime;
mod lookup;
mod routes;
mod timemap;

pub use datetime::{http_date, parse_http_date, parse_timestamp14, timestamp14};
pub use lookup::{closest, mementos, Memento};
pub use routes::routes;
pub use timemap::{json as timemap_json, link_format, link_header, rel_of, Urls};

/// Mementos listed for a URI-R at most.
pub const MAX_MEMENTOS: usize = 100_000;

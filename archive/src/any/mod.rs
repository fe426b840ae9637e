//! Reading any web archive: WARC 1.0 and 1.1, ARC v1 and WACZ, from any crawler.
//!
//! TODO docs
mod block;
mod body;
mod buf;
mod chunked;
mod digest;
mod fields;
mod head;
mod http;
mod input;
mod kind;
mod location;
mod open;
mod record;
mod scan;
mod stream;
mod summary;
mod wacz;
mod warcinfo;

pub use body::{decode_body, read_body, Body, BodyError, BodyLimits};
pub use digest::{Algorithm, Digest, DigestCheck};
pub use fields::{parse_date, Fields};
pub use http::{HttpHead, MAX_HTTP_HEAD};
pub use input::{Input, InputError, ListOptions, Listing, WaitReason, Waiting};
pub use kind::{RecordKind, RevisitProfile};
pub use location::{Framing, Location, Source, ZipEntry};
pub use open::{open, Opened};
pub use record::{Format, Record, Truncation};
pub use scan::{Found, ReadOptions, Records, SkipReason, Skipped};
pub use stream::GzipError;
pub use summary::Summary;
pub use warcinfo::Warcinfo;

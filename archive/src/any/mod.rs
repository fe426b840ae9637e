//! Reading any web archive: WARC 1.0 and 1.1, ARC v1 and WACZ, from any crawler.
//!
//! - [`Input::detect`] tells what a path is (a modoai archive, a folder of WARC/ARC files, one
//!   such file, a WACZ package) and [`Input::list`] gives its files ready to read as
//!   [`Source`]s, leaving `*.open` files and files still growing for the next run.
//! - [`Records`] reads a source's records in file order, whatever its framing (gzip per record,
//!   one gzip stream, uncompressed), and yields each as a [`Record`] (type, typed fields, HTTP
//!   head, the first bytes of its block, digests checked as the bytes stream by) with its
//!   [`Location`], or as [`Skipped`] bytes with the reason: bad input never stops it.
//! - [`open`] reads one record again from its location; [`Summary`] counts what a collection
//!   held. What is read and skipped, and why, is in `docs/explorer.md`.
//!
//! ```no_run
//! use modoai_archive::any::{open, Found, Input, ListOptions, ReadOptions, Records, Summary};
//! use std::path::Path;
//!
//! let input = Input::detect(Path::new("crawl/"))?;
//! let mut summary = Summary::default();
//! let mut locations = Vec::new();
//! for source in input.list(&ListOptions::default())?.ready {
//!     for found in Records::open(&source, ReadOptions::default())? {
//!         summary.add(&found);
//!         if let Found::Record(record) = found {
//!             locations.push(record.location);
//!         }
//!     }
//! }
//! let again = open(&locations[0])?;
//! println!("{} {:?}", again.kind, again.fields.target_uri);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
mod block;
mod body;
mod buf;
mod chunked;
mod digest;
mod fields;
mod head;
mod http;
mod input;
mod input_error;
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
pub use input::{Input, ListOptions, Listing, WaitReason, Waiting};
pub use input_error::InputError;
pub use kind::{RecordKind, RevisitProfile};
pub use location::{Framing, Location, Source, ZipEntry};
pub use open::{open, Opened};
pub use record::{Format, Record, Truncation};
pub use scan::{Found, ReadOptions, Records, SkipReason, Skipped};
pub use stream::GzipError;
pub use summary::Summary;
pub use warcinfo::Warcinfo;

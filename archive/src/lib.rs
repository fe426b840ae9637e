//! The archive both modoai programs share: the harvester writes it, the explorer reads it.
//!
//! ```
//! use modoai_archive::archive::{
//!     parts_of, written, Archive, ArchiveOptions, Entry, EntryKind, Reader,
//! };
//! use modoai_archive::warc::{warc_date, RecordType, WarcFields};
//! use time::OffsetDateTime;
//!
//! let dir = tempfile::tempdir()?;
//! let (url, now) = ("http://example.org/a.txt", OffsetDateTime::now_utc());
//!
//! // A harvest writes each item's WARC records, then its ledger line.
//! let options = ArchiveOptions {
//!     archive_id: Some("archive.example.org".to_owned()),
//!     ..ArchiveOptions::default()
//! };
//! let mut archive = Archive::open(dir.path(), options)?;
//! let records = archive.write_group(WarcFields::new, |w| {
//!     let r = w.write_resource(url, "text/plain", now, &[], &b"hello"[..])?;
//!     Ok(vec![written(&r, RecordType::Resource, "text/plain", true)])
//! })?;
//! archive.commit(&Entry {
//!     endpoint: "http://example.org/oai".into(),
//!     prefix: "oai_didl".into(),
//!     identifier: url.into(),
//!     datestamp: warc_date(now),
//!     deleted: false,
//!     sets: Vec::new(),
//!     harvested: warc_date(now),
//!     bytes: 5,
//!     fixity_errors: Vec::new(),
//!     records,
//!     kind: EntryKind::Item,
//! })?;
//! archive.close()?;
//!
//! // A reader lists the ledger's items, names their parts by PWID and resolves them.
//! let reader = Reader::open(dir.path())?;
//! let entry = reader.entries()?.next().expect("one item")?;
//! let part = parts_of(&entry, "archive.example.org").remove(0);
//! let mut bytes = Vec::new();
//! reader.extract(&reader.resolve(&part.pwid)?, &mut bytes)?;
//! assert_eq!(bytes, b"hello");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The archive folder ([`archive`]) holds WARC 1.1 files ([`warc`]), the ledger of harvested
//! items, the harvest state and a sorted CDXJ index ([`cdxj`]) keyed by SURT ([`surt`]); its
//! parts are named by PWIDs ([`pwid`]). On top of it: corpus definitions ([`corpus`]), MementoMap
//! profiles ([`profile`]), WACZ packages ([`wacz`]), merges of archives harvested in shards
//! ([`merge`]), and what a record's CRATE metadata says ([`facts`]). The formats are described in
//! `docs/archivists.md` ("Formats"). This crate knows nothing of HTTP: the harvester brings the
//! client and the harvest loop, the explorer the search index.

pub mod any;
pub mod archive;
pub mod cdxj;
pub mod corpus;
pub mod facts;
#[doc(hidden)]
pub mod fuzzing;
pub mod merge;
pub mod profile;
pub mod pwid;
pub mod surt;
pub mod wacz;
pub mod warc;

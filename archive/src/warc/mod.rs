//! WARC 1.1 (ISO 28500:2017) writing: `resource`, `metadata`, `revisit` and `warcinfo` records,
//! one gzip member each, in rotating `.warc.gz` files, with crash recovery.
//!
//! ```
//! use modoai_archive::warc::{WarcFields, Writer, WriterConfig};
//! use time::OffsetDateTime;
//!
//! let dir = tempfile::tempdir()?;
//! let mut writer = Writer::new(WriterConfig::new(dir.path(), "oai").host("example"));
//! let date = OffsetDateTime::now_utc();
//! let pdf = writer.write_resource("http://example.org/a.pdf", "application/pdf", date, &[],
//!     &b"%PDF-1.7 ..."[..])?;
//! let mut fields = WarcFields::new();
//! fields.field("oai-identifier", "oai:example.org:a")?;
//! writer.write_metadata(&pdf, &fields, &[])?;
//! let files = writer.close()?;
//! assert!(files[0].to_string_lossy().ends_with("-00000-example.warc.gz"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Every file starts with a `warcinfo` record and is written as `….warc.gz.open`, renamed at
//! close. Digests are SHA-1 in Base32 (`sha1:…`), computed over the bytes written. Payloads of
//! unknown size are spooled (in memory up to a threshold, then in a temporary file), because the
//! digest fields precede the block (§4). Already-compressed media types are stored rather than
//! deflated ([`Compression`]). [`Writer::sync`] gives durable checkpoints, and [`recover`] cuts a
//! left-over `.open` file back to its last complete record after a crash.

mod compress;
mod digest;
mod file;
mod member;
mod read;
mod record;
mod recover;
mod small;
mod spool;
mod writer;

pub use compress::Compression;
pub use digest::{base32, sha1_digest, Hasher, EMPTY_SHA1};
pub(crate) use file::default_host;
pub use file::OPEN_SUFFIX;
pub use read::{read_record, StoredRecord};
pub use record::{
    new_record_id, validate_field, warc_date, RecordRef, RecordType, WarcFields,
    IDENTICAL_PAYLOAD_DIGEST,
};
pub use recover::{recover, Recovered};
pub use spool::{Spool, SpoolReader, DEFAULT_SPOOL_THRESHOLD};
pub use writer::{Position, Writer, WriterConfig};

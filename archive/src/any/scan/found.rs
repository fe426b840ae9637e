//! What reading a file yields: records and skipped bytes, and how it reads.

use serde::{Deserialize, Serialize};

use crate::any::location::Source;
use crate::any::record::Record;

/// How records are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Bytes of each block kept in [`Record::block`] (besides the HTTP head); the rest streams
    /// through the digests and is dropped, so memory stays bounded whatever a record weighs.
    /// Defaults to 1 MiB.
    pub keep: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions { keep: 1 << 20 }
    }
}

impl ReadOptions {
    /// Keeps `bytes` of each block. Defaults to 1 MiB; 0 keeps only the HTTP head.
    pub fn keep(mut self, bytes: usize) -> Self {
        self.keep = bytes;
        self
    }
}

/// Bytes the reader could not read as records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The file (or WACZ entry).
    pub source: Source,
    /// Where the skipped bytes start in the file: the byte offset of a plain file, or the
    /// offset of the gzip member that holds their start.
    pub start: u64,
    /// Where reading went on: the byte offset, or the offset of the gzip member holding it.
    pub end: u64,
    /// Skipped bytes (decompressed).
    pub bytes: u64,
    /// Why.
    pub reason: SkipReason,
}

/// Why bytes were skipped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "detail")]
pub enum SkipReason {
    /// A damaged gzip member (bad header, bad deflate data, CRC mismatch, cut short).
    Gzip(String),
    /// A record head that cannot be read (a bad header line, no `Content-Length`, a bad ARC
    /// line, no end).
    Head(String),
    /// Bytes between records that start no record.
    Garbage,
    /// The file could not be read further (an I/O error).
    Unreadable(String),
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::Gzip(e) => write!(f, "bad gzip member: {e}"),
            SkipReason::Head(e) => write!(f, "bad record head: {e}"),
            SkipReason::Garbage => f.write_str("bytes that start no record"),
            SkipReason::Unreadable(e) => write!(f, "unreadable: {e}"),
        }
    }
}

/// What reading a file yields, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A record.
    Record(Box<Record>),
    /// Bytes that were skipped.
    Skipped(Skipped),
}

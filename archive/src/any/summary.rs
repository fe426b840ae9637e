//! What reading a collection found, to print at the end of a run.

use std::collections::BTreeMap;
use std::fmt;

use super::location::Framing;
use super::record::{Record, Truncation};
use super::scan::{Found, SkipReason, Skipped};

/// Skips kept with their details; beyond this only counted.
const KEEP_SKIPS: usize = 100;

/// Counts of what the reader found in a collection's files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Files read.
    pub files: u64,
    /// Files compressed as one gzip stream (their records are read again by decompressing what
    /// precedes them).
    pub gzip_streams: u64,
    /// Files left for a later run.
    pub waiting: u64,
    /// Records by `WARC-Type`.
    pub records: BTreeMap<String, u64>,
    /// Skipped byte ranges by reason (`gzip`, `head`, `garbage`, `unreadable`): how many, and
    /// their (decompressed) bytes.
    pub skipped: BTreeMap<&'static str, (u64, u64)>,
    /// The first skipped ranges, with their details.
    pub skips: Vec<Skipped>,
    /// Records whose block or payload digest does not match.
    pub digest_mismatches: u64,
    /// Records that say `WARC-Truncated`.
    pub truncated: u64,
    /// Records cut short by the end of their file or a damaged member.
    pub cut: u64,
}

impl Summary {
    /// Counts one thing a reader found.
    pub fn add(&mut self, found: &Found) {
        match found {
            Found::Record(r) => self.add_record(r),
            Found::Skipped(s) => self.add_skip(s),
        }
    }

    /// Counts a record.
    pub fn add_record(&mut self, record: &Record) {
        *self
            .records
            .entry(record.kind.as_str().to_owned())
            .or_default() += 1;
        if record.block_digest.is_failed() || record.payload_digest.is_failed() {
            self.digest_mismatches += 1;
        }
        match record.truncated {
            Some(Truncation::Declared(_)) => self.truncated += 1,
            Some(Truncation::Cut) => self.cut += 1,
            None => {}
        }
    }

    /// Counts a skipped range.
    pub fn add_skip(&mut self, skip: &Skipped) {
        let reason = match skip.reason {
            SkipReason::Gzip(_) => "gzip",
            SkipReason::Head(_) => "head",
            SkipReason::Garbage => "garbage",
            SkipReason::Unreadable(_) => "unreadable",
        };
        let entry = self.skipped.entry(reason).or_default();
        entry.0 += 1;
        entry.1 += skip.bytes;
        if self.skips.len() < KEEP_SKIPS {
            self.skips.push(skip.clone());
        }
    }

    /// Counts a file read to its end; `framings` are those of its records.
    pub fn add_file(&mut self, gzip_stream: bool) {
        self.files += 1;
        self.gzip_streams += u64::from(gzip_stream);
    }

    /// Whether a record's framing shows a file compressed as one gzip stream.
    pub fn is_gzip_stream(framing: &Framing) -> bool {
        matches!(framing, Framing::GzipStream { .. })
    }

    /// All records counted.
    pub fn record_count(&self) -> u64 {
        self.records.values().sum()
    }
}

/// One line: `3 files, 120 records (60 response, …), 2 skipped (garbage 1, gzip 1), …`.
impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |m: Vec<String>| m.join(", ");
        let types = list(
            self.records
                .iter()
                .map(|(k, v)| format!("{v} {k}"))
                .collect(),
        );
        let skipped: u64 = self.skipped.values().map(|(n, _)| n).sum();
        let reasons = list(
            self.skipped
                .iter()
                .map(|(k, (n, _))| format!("{k} {n}"))
                .collect(),
        );
        write!(
            f,
            "{} files, {} records ({types})",
            self.files,
            self.record_count()
        )?;
        write!(f, ", {skipped} skipped")?;
        if skipped > 0 {
            write!(f, " ({reasons})")?;
        }
        write!(
            f,
            ", {} digest mismatches, {} truncated, {} cut short",
            self.digest_mismatches, self.truncated, self.cut
        )?;
        if self.gzip_streams > 0 {
            write!(f, ", {} files in one gzip stream", self.gzip_streams)?;
        }
        if self.waiting > 0 {
            write!(f, ", {} files left for the next run", self.waiting)?;
        }
        Ok(())
    }
}

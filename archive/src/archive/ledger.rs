//! The ledger: one JSON line per harvested item (its form: `compact.rs`), appended right after
//! the item's WARC records.
//!
//! It is the archive's memory of what it holds. A line is written only after every record of its
//! item is in the WARC file, so after a crash the WARC bytes past the last line's records belong
//! to an item that must be harvested again ([`super::recovery`]). A line cut short by the crash is
//! dropped when the ledger is opened.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::cdxj::CdxjLine;
use crate::surt::surt;
use crate::warc::{RecordRef, RecordType};

/// One harvested item: an OAI record of one endpoint and format, at one datestamp.
///
/// Its ledger line is JSON without the fields the rest of the line gives again (see
/// `compact.rs`); lines with every field, written before, read the same.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(from = "super::compact::StoredEntry")]
pub struct Entry {
    /// The endpoint's base URL.
    pub endpoint: String,
    /// The metadata format harvested.
    pub prefix: String,
    /// The OAI identifier.
    pub identifier: String,
    /// The datestamp as the endpoint sent it.
    pub datestamp: String,
    /// `status="deleted"`.
    pub deleted: bool,
    /// The record's setSpecs.
    pub sets: Vec<String>,
    /// When it was harvested (`WARC-Date`).
    pub harvested: String,
    /// Payload bytes archived for the item (decoded files, or the metadata XML).
    pub bytes: u64,
    /// Fixity problems found (digest mismatches); empty when every check passed or none applied.
    pub fixity_errors: Vec<String>,
    /// The WARC records written for the item, in file order, all in one file.
    pub records: Vec<Written>,
    /// An OAI record, or a page of the endpoint's site (written only when not an item).
    pub kind: EntryKind,
}

/// What a ledger entry archived.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum EntryKind {
    /// A record of the OAI-PMH list (its `identifier` and `datestamp`).
    #[default]
    Item,
    /// A page of the endpoint's own site captured for replay (its root `/`, at `identifier`),
    /// not an OAI record: no datestamp, no PWID, not counted as an item.
    SitePage,
}

impl EntryKind {
    /// Whether this is an OAI record.
    pub fn is_item(&self) -> bool {
        *self == EntryKind::Item
    }
}

/// One WARC record of an item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Written {
    /// `WARC-Type`.
    #[serde(rename = "type")]
    pub kind: RecordType,
    /// The WARC file (final name).
    pub file: String,
    /// Offset of the record's gzip member.
    pub offset: u64,
    /// Compressed length of the member.
    pub length: u64,
    /// `WARC-Record-ID`.
    pub id: String,
    /// `WARC-Target-URI`.
    pub uri: String,
    /// `Content-Type` (`warc/revisit` for revisits, as CDXJ writes it).
    pub mime: String,
    /// `WARC-Payload-Digest` (`sha1:…`).
    pub digest: String,
    /// `WARC-Date`, 14 digits.
    pub date: String,
    /// Whether the record belongs in the CDXJ index (not warc-fields metadata).
    pub indexed: bool,
}

impl Written {
    /// The record's CDXJ line, as cdxj-indexer writes it.
    pub fn cdxj(&self) -> Option<CdxjLine> {
        if !self.indexed {
            return None;
        }
        let key = surt(&self.uri).ok()?;
        let s = |v: &str| serde_json::Value::String(v.to_owned());
        Some(CdxjLine {
            surt: key,
            timestamp: self.date.clone(),
            fields: vec![
                ("url".into(), s(&self.uri)),
                ("mime".into(), s(&self.mime)),
                ("digest".into(), s(&self.digest)),
                ("length".into(), s(&self.length.to_string())),
                ("offset".into(), s(&self.offset.to_string())),
                ("filename".into(), s(&self.file)),
            ],
        })
    }
}

impl Entry {
    /// Where the item's last record ends in its file.
    pub fn end(&self) -> Option<(&str, u64)> {
        let last = self.records.iter().max_by_key(|r| r.offset)?;
        Some((&last.file, last.offset + last.length))
    }
}

/// The append-only ledger file.
#[derive(Debug)]
pub(crate) struct Ledger {
    path: PathBuf,
    file: File,
    /// Bytes in the file.
    len: u64,
    /// Lines staged in memory, to follow the file's `len` bytes: [`Ledger::write_staged`].
    staged: Vec<u8>,
}

impl Ledger {
    /// Opens (or creates) the ledger, cuts off a partial last line, and shows `visit` every
    /// entry with its byte offset, one at a time.
    pub(crate) fn open(path: &Path, mut visit: impl FnMut(u64, Entry)) -> io::Result<Ledger> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)?;
        let mut good = 0u64;
        let mut reader = BufReader::new(&mut file);
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line)?;
            if n == 0 || line.last() != Some(&b'\n') {
                break;
            }
            match serde_json::from_slice::<Entry>(&line) {
                Ok(entry) => visit(good, entry),
                Err(e) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "{}: line at byte {good} is not a ledger entry ({e})",
                            path.display()
                        ),
                    ))
                }
            }
            good += n as u64;
        }
        drop(reader);
        if file.metadata()?.len() != good {
            tracing::warn!(ledger = %path.display(), kept = good, "cutting a partial ledger line left by a crash");
            file.set_len(good)?;
            file.sync_all()?;
        }
        file.seek(SeekFrom::End(0))?;
        let ledger = Ledger {
            path: path.to_owned(),
            file,
            len: good,
            staged: Vec::new(),
        };
        Ok(ledger)
    }

    /// The entry at byte `offset` (in the file, or staged).
    pub(crate) fn read_at(&self, offset: u64) -> io::Result<Entry> {
        let mut line = Vec::new();
        match offset.checked_sub(self.len) {
            Some(at) => {
                let staged = self.staged.get(at as usize..).unwrap_or_default();
                let end = memchr::memchr(b'\n', staged).unwrap_or(staged.len());
                line.extend_from_slice(&staged[..end]);
            }
            None => {
                let mut reader = BufReader::new(File::open(&self.path)?);
                reader.seek(SeekFrom::Start(offset))?;
                reader.read_until(b'\n', &mut line)?;
            }
        }
        serde_json::from_slice(&line).map_err(io::Error::other)
    }

    /// Adds one entry's line to those staged in memory; returns the offset it will have.
    pub(crate) fn stage(&mut self, entry: &Entry) -> io::Result<u64> {
        let offset = self.len + self.staged.len() as u64;
        let start = self.staged.len();
        if let Err(e) = serde_json::to_writer(&mut self.staged, entry) {
            self.staged.truncate(start);
            return Err(io::Error::other(e));
        }
        self.staged.push(b'\n');
        Ok(offset)
    }

    /// Writes the staged lines with a single `write`, so a crash leaves the last one whole or
    /// partial, never mixed (a partial line is cut off on opening). If that fails (a full
    /// disk), what was written of them is cut back off the file and they are dropped.
    pub(crate) fn write_staged(&mut self) -> io::Result<()> {
        if self.staged.is_empty() {
            return Ok(());
        }
        let result = self.file.write_all(&self.staged);
        if result.is_ok() {
            self.len += self.staged.len() as u64;
        } else {
            // The file is in append mode: cutting it is enough to write on from `len`.
            let _ = self.file.set_len(self.len);
        }
        self.staged.clear();
        result
    }

    /// Drops the staged lines unwritten.
    pub(crate) fn drop_staged(&mut self) {
        self.staged.clear();
    }

    /// Makes every appended entry durable.
    pub(crate) fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }

    /// Bytes in the ledger.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Entries from byte `from` to the end (used to index what the CDXJ does not cover yet).
    pub(crate) fn entries_from(&self, from: u64) -> io::Result<Vec<Entry>> {
        let mut reader = BufReader::new(File::open(&self.path)?);
        reader.seek(SeekFrom::Start(from.min(self.len)))?;
        let mut out = Vec::new();
        let mut line = Vec::new();
        let mut pos = from;
        while pos < self.len {
            line.clear();
            let n = reader.read_until(b'\n', &mut line)?;
            if n == 0 {
                break;
            }
            pos += n as u64;
            out.push(serde_json::from_slice(&line).map_err(io::Error::other)?);
        }
        Ok(out)
    }
}

/// The [`RecordRef`] of a ledger record.
pub fn record_ref(r: &Written) -> RecordRef {
    let date = time::PrimitiveDateTime::parse(
        &r.date,
        time::macros::format_description!("[year][month][day][hour][minute][second]"),
    )
    .map(|d| d.assume_utc())
    .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    RecordRef {
        file_name: r.file.clone(),
        offset: r.offset,
        length: r.length,
        record_id: r.id.clone(),
        target_uri: Some(r.uri.clone()),
        date,
        payload_digest: r.digest.clone(),
    }
}

/// The ledger form of a record just written.
pub fn written(r: &RecordRef, kind: RecordType, mime: &str, indexed: bool) -> Written {
    Written {
        kind,
        file: r.file_name.clone(),
        offset: r.offset,
        length: r.length,
        id: r.record_id.clone(),
        uri: r.target_uri.clone().unwrap_or_default(),
        mime: mime.to_owned(),
        digest: r.payload_digest.clone(),
        date: timestamp14(r.date),
        indexed,
    }
}

/// `yyyyMMddHHmmss` in UTC.
pub fn timestamp14(date: OffsetDateTime) -> String {
    let d = date.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}{:02}{:02}{:02}{:02}{:02}",
        d.year(),
        u8::from(d.month()),
        d.day(),
        d.hour(),
        d.minute(),
        d.second()
    )
}

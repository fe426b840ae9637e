//! The archived parts and their PWIDs: listing them from the ledger, resolving a PWID to its WARC
//! record through the CDXJ index ([`Reader::resolve`]), and extracting its bytes.

use std::io::{self, Write};
use std::path::PathBuf;

use time::macros::format_description;
use time::PrimitiveDateTime;

use super::{Entry, Reader, Written};
use crate::cdxj::{CdxjError, CdxjIndex, CdxjLine};
use crate::pwid::Pwid;
use crate::surt::surt;
use crate::warc::{read_record, RecordType, StoredRecord};

/// One archived part: a `resource` or `revisit` record of a harvested item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Its PWID (`part` coverage, the record's target URI at its WARC-Date).
    pub pwid: Pwid,
    /// The record.
    pub record: Written,
}

/// The parts of one ledger entry, in file order (none for a deleted item, nor for a site page
/// captured besides the items).
pub fn parts_of(entry: &Entry, archive_id: &str) -> Vec<Part> {
    if !entry.kind.is_item() {
        return Vec::new();
    }
    entry
        .records
        .iter()
        .filter(|r| matches!(r.kind, RecordType::Resource | RecordType::Revisit))
        .filter_map(|r| {
            let at = parse14(&r.date)?;
            let pwid = Pwid::part(archive_id, at, &r.uri).ok()?;
            Some(Part {
                pwid,
                record: r.clone(),
            })
        })
        .collect()
}

/// Why a PWID did not resolve.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// The PWID names another archive.
    #[error("the PWID names the archive {asked:?}; this archive is {have:?}")]
    OtherArchive {
        /// The PWID's archive id.
        asked: String,
        /// This archive's.
        have: String,
    },
    /// No capture of the item at that second.
    #[error("no capture of {item} at {time} in this archive")]
    NotFound {
        /// The archived URI.
        item: String,
        /// The 14-digit time.
        time: String,
    },
    /// Several captures of the item within that second.
    #[error("{count} captures of {item} at {time}: {records}")]
    Ambiguous {
        /// The archived URI.
        item: String,
        /// The 14-digit time.
        time: String,
        /// How many.
        count: usize,
        /// `file:offset` of each.
        records: String,
    },
    /// Files or the index could not be read.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The index is damaged.
    #[error(transparent)]
    Index(#[from] CdxjError),
}

/// Where a PWID's record is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The WARC file.
    pub file: PathBuf,
    /// Offset of its gzip member.
    pub offset: u64,
    /// Compressed length.
    pub length: u64,
    /// `Content-Type` of the payload (`warc/revisit` for a revisit).
    pub mime: String,
    /// Payload digest.
    pub digest: String,
}

impl Reader {
    /// Finds the record a PWID names: the CDXJ line of its item (SURT key, exact URL) at its
    /// second, in the index or among the complete records not merged into it yet.
    pub fn resolve(&self, pwid: &Pwid) -> Result<Resolved, ResolveError> {
        let have = self.archive_id().unwrap_or_default();
        if pwid.archive_id != have {
            return Err(ResolveError::OtherArchive {
                asked: pwid.archive_id.clone(),
                have: have.to_owned(),
            });
        }
        self.find(&pwid.item, &pwid.timestamp14())
    }

    /// Writes the payload of the record at `at` to `out`: for a `resource`, its block; for a
    /// `revisit`, the block of the capture it refers to (`WARC-Refers-To-Target-URI` and
    /// `WARC-Refers-To-Date`). Returns the bytes written.
    pub fn extract(&self, at: &Resolved, out: &mut dyn Write) -> Result<u64, ResolveError> {
        let mut record = self.open_payload(at)?;
        Ok(io::copy(&mut record.block, out)?)
    }

    /// Opens the record holding the payload of the record at `at`: that record itself, or for a
    /// `revisit` the capture it refers to (`WARC-Refers-To-Target-URI` and `WARC-Refers-To-Date`,
    /// WARC 1.1 §6.7). Its `block` reads the payload; nothing is read before it is asked for.
    pub fn open_payload(&self, at: &Resolved) -> Result<StoredRecord, ResolveError> {
        let mut at = at.clone();
        for _ in 0..2 {
            let record = read_record(&at.file, at.offset)?;
            match record.header("WARC-Type") {
                Some("revisit") => {
                    let uri = record
                        .header("WARC-Refers-To-Target-URI")
                        .map(str::to_owned);
                    let date = record.header("WARC-Refers-To-Date").map(digits14);
                    let (Some(uri), Some(date)) = (uri, date) else {
                        return Err(io::Error::other(
                            "revisit without WARC-Refers-To-Target-URI/Date",
                        )
                        .into());
                    };
                    at = self.find(&uri, &date)?;
                }
                _ => return Ok(record),
            }
        }
        Err(io::Error::other("a revisit refers to another revisit").into())
    }

    /// Where a ledger record is on disk (its WARC file closed or still `.open`); `None` when the
    /// file is not in the archive's `warcs/`.
    pub fn locate(&self, record: &Written) -> io::Result<Option<Resolved>> {
        Ok(self.warc_file(&record.file)?.map(|f| Resolved {
            file: f.path,
            offset: record.offset,
            length: record.length,
            mime: record.mime.clone(),
            digest: record.digest.clone(),
        }))
    }

    /// Finds the one record of `uri` at `time` (14 digits), in the index or among the complete
    /// records not merged into it yet: a revisit's original by its `WARC-Refers-To-Target-URI`
    /// and `WARC-Refers-To-Date`.
    pub fn find(&self, uri: &str, time: &str) -> Result<Resolved, ResolveError> {
        let not_found = || ResolveError::NotFound {
            item: uri.to_owned(),
            time: time.to_owned(),
        };
        let key = surt(uri).map_err(|_| not_found())?;
        let index = CdxjIndex::open(self.layout().index());
        let mut lines: Vec<CdxjLine> = index.lookup(&key)?;
        for entry in self.unindexed()? {
            lines.extend(entry?.records.iter().filter_map(Written::cdxj));
        }
        lines.retain(|l| l.surt == key && l.timestamp == time && l.get("url") == Some(uri));
        let field = |l: &CdxjLine, k: &str| l.get(k).unwrap_or_default().to_owned();
        // The index may have been merged after the state was read: one record, twice.
        lines.sort_by_key(|l| (field(l, "filename"), field(l, "offset")));
        lines.dedup_by_key(|l| (field(l, "filename"), field(l, "offset")));
        match lines.as_slice() {
            [] => Err(not_found()),
            [line] => {
                let name = field(line, "filename");
                let file = self.warc_file(&name)?.ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::NotFound,
                        format!("the index names {name}, which is not in the archive's warcs/"),
                    )
                })?;
                Ok(Resolved {
                    file: file.path,
                    offset: field(line, "offset").parse().unwrap_or_default(),
                    length: field(line, "length").parse().unwrap_or_default(),
                    mime: field(line, "mime"),
                    digest: field(line, "digest"),
                })
            }
            many => Err(ResolveError::Ambiguous {
                item: uri.to_owned(),
                time: time.to_owned(),
                count: many.len(),
                records: many
                    .iter()
                    .map(|l| format!("{}:{}", field(l, "filename"), field(l, "offset")))
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }
}

/// `2024-05-01T12:00:00Z` → `20240501120000`.
fn digits14(date: &str) -> String {
    date.chars().filter(char::is_ascii_digit).take(14).collect()
}

fn parse14(date: &str) -> Option<time::OffsetDateTime> {
    PrimitiveDateTime::parse(
        date,
        format_description!("[year][month][day][hour][minute][second]"),
    )
    .ok()
    .map(PrimitiveDateTime::assume_utc)
}

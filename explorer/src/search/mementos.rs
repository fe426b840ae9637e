//! The mementos of a URI-R: from each archive's CDXJ index by SURT key (as pywb finds them) when
//! the caller may see everything, else from the search index within the caller's scope.

use modoai_archive::any::{Framing, Location};
use modoai_archive::archive::{Reader, Written};
use modoai_archive::cdxj::{CdxjIndex, CdxjLine};
use modoai_archive::surt::surt;
use time::macros::format_description;
use time::{OffsetDateTime, PrimitiveDateTime};

use super::item::{Item, Stored};
use super::library::{Library, SearchError};
use super::originals::find_originals;
use super::scope::Scope;
use crate::capture::RecordAt;

/// Mementos listed for a URI-R at most.
pub const MAX_MEMENTOS: usize = 100_000;

/// One memento.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memento {
    /// Its 14-digit time.
    pub timestamp: String,
    /// Its time.
    pub time: OffsetDateTime,
    /// The URL as captured.
    pub url: String,
    /// Which archive of the library.
    pub archive: usize,
    /// Its payload record.
    pub record: RecordAt,
    /// A capture of a foreign collection: its record and where its payload is.
    pub foreign: Option<ForeignAt>,
}

/// Where a foreign memento's records are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignAt {
    /// Its own record (a response, resource or revisit).
    pub record: Location,
    /// The record holding its payload (a revisit's original); `None` when it was not found.
    pub payload: Option<Location>,
}

/// Why the mementos of a URI-R cannot be listed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MementoError {
    /// The URI has no SURT key: no archive holds it.
    #[error("{uri:?} is not a URI an archive holds: {reason}")]
    NotAUri {
        /// The URI asked for.
        uri: String,
        /// Why it has no SURT key.
        reason: String,
    },
    /// An archive's CDXJ index or ledger cannot be read.
    #[error("the archive {archive} cannot be read: {reason}")]
    Unreadable {
        /// The archive's name.
        archive: String,
        /// What failed.
        reason: String,
    },
    /// The search index failed.
    #[error(transparent)]
    Search(#[from] SearchError),
}

/// Mementos of `uri` in `scope`, oldest first.
pub fn mementos(library: &Library, uri: &str, scope: &Scope) -> Result<Vec<Memento>, MementoError> {
    let mut out = if scope.is_all() {
        // Foreign collections have no CDXJ index: their captures come from their search index.
        let mut all = from_cdxj(library, uri)?;
        let foreign = |i: usize| !library.archives()[i].collection.is_archive();
        all.extend(
            from_index(library, uri, scope)?
                .into_iter()
                .filter(|m| foreign(m.archive)),
        );
        all
    } else {
        from_index(library, uri, scope)?
    };
    out.sort_by(|a, b| (&a.timestamp, place(a)).cmp(&(&b.timestamp, place(b))));
    out.dedup_by(|a, b| place(a) == place(b));
    Ok(out)
}

/// The mementos of `uri` in the search indexes within `scope`; a foreign revisit whose original
/// is in another collection within `scope` is replayed from it.
fn from_index(library: &Library, uri: &str, scope: &Scope) -> Result<Vec<Memento>, MementoError> {
    let (archives, mut captures): (Vec<usize>, Vec<(Item, Stored)>) = library
        .captures_at(uri, scope, MAX_MEMENTOS)?
        .into_iter()
        .map(|(archive, item, stored)| (archive, (item, stored)))
        .unzip();
    find_originals(library, scope, &mut captures)?;
    Ok(archives
        .into_iter()
        .zip(captures)
        .filter_map(|(archive, (item, stored))| {
            Some(Memento {
                time: parse_timestamp14(&item.timestamp)?,
                timestamp: item.timestamp,
                url: item.url,
                archive,
                record: stored.record,
                foreign: stored.location.map(|record| ForeignAt {
                    record,
                    payload: stored.payload_at,
                }),
            })
        })
        .collect())
}

/// Which record a memento is: the same one may be found twice (in the index and unindexed).
/// Records of one gzip stream share their offset and differ in where they start inside it.
fn place(m: &Memento) -> (usize, &str, u64, u64) {
    let skip = match m.foreign.as_ref().map(|f| f.record.framing) {
        Some(Framing::GzipStream { skip }) => skip,
        _ => 0,
    };
    (m.archive, &m.record.file, m.record.offset, skip)
}

fn from_cdxj(library: &Library, uri: &str) -> Result<Vec<Memento>, MementoError> {
    let key = surt(uri).map_err(|e| MementoError::NotAUri {
        uri: uri.to_owned(),
        reason: e.to_string(),
    })?;
    let mut out = Vec::new();
    for (i, a) in library.archives().iter().enumerate() {
        // A foreign collection has no CDXJ index: its captures are found in its index only.
        if !a.collection.is_archive() {
            continue;
        }
        let unreadable = |e: &dyn std::fmt::Display| MementoError::Unreadable {
            archive: a.name.clone(),
            reason: e.to_string(),
        };
        let reader = Reader::open(&a.dir).map_err(|e| unreadable(&e))?;
        let mut lines = CdxjIndex::open(reader.layout().index())
            .lookup(&key)
            .map_err(|e| unreadable(&e))?;
        for entry in reader.unindexed().map_err(|e| unreadable(&e))? {
            let entry = entry.map_err(|e| unreadable(&e))?;
            lines.extend(
                entry
                    .records
                    .iter()
                    .filter_map(Written::cdxj)
                    .filter(|l| l.surt == key),
            );
        }
        out.extend(lines.iter().filter_map(|l| memento(i, l)));
    }
    Ok(out)
}

fn memento(archive: usize, l: &CdxjLine) -> Option<Memento> {
    Some(Memento {
        time: parse_timestamp14(&l.timestamp)?,
        timestamp: l.timestamp.clone(),
        url: l.get("url")?.to_owned(),
        archive,
        record: RecordAt {
            file: l.get("filename")?.to_owned(),
            offset: l.get("offset")?.parse().ok()?,
            length: l.get("length")?.parse().ok()?,
        },
        foreign: None,
    })
}

/// The memento closest to `at` (the earlier one of two as close).
pub fn closest(mementos: &[Memento], at: OffsetDateTime) -> Option<&Memento> {
    mementos
        .iter()
        .min_by_key(|m| ((m.time - at).abs(), m.time))
}

/// The `n` mementos nearest to `at` (by distance, the earlier of two as near), in time order:
/// what to offer when none is at `at` exactly.
pub fn nearest(mementos: &[Memento], at: OffsetDateTime, n: usize) -> Vec<&Memento> {
    let mut by_distance: Vec<&Memento> = mementos.iter().collect();
    by_distance.sort_by_key(|m| ((m.time - at).abs(), m.time));
    by_distance.truncate(n);
    by_distance.sort_by_key(|m| m.time);
    by_distance
}

/// A 14-digit timestamp; shorter prefixes (`2024`, `202405`) are the start of their period, as
/// archives read them.
pub fn parse_timestamp14(digits: &str) -> Option<OffsetDateTime> {
    if digits.is_empty() || digits.len() > 14 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let padded = format!("{digits:0<14}");
    // A prefix pads month and day with zeros: make them the first.
    let mut b = padded.into_bytes();
    if &b[4..6] == b"00" {
        b[5] = b'1';
    }
    if &b[6..8] == b"00" {
        b[7] = b'1';
    }
    let s = String::from_utf8(b).ok()?;
    PrimitiveDateTime::parse(
        &s,
        format_description!("[year][month][day][hour][minute][second]"),
    )
    .ok()
    .map(PrimitiveDateTime::assume_utc)
}

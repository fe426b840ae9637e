//! The mementos of a URI-R: from each archive's CDXJ index by SURT key (as pywb finds them) when
//! the caller may see everything, else from the search index within the caller's scope.

use modoai_archive::archive::{Reader, Written};
use modoai_archive::cdxj::{CdxjIndex, CdxjLine};
use modoai_archive::surt::surt;
use time::OffsetDateTime;

use crate::api::ApiError;
use crate::search::{Library, Scope};

use super::datetime::parse_timestamp14;

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
    /// WARC file's final name.
    pub file: String,
    /// Offset of the record.
    pub offset: u64,
    /// Compressed length.
    pub length: u64,
}

/// Mementos of `uri` in `scope`, oldest first.
pub fn mementos(library: &Library, uri: &str, scope: &Scope) -> Result<Vec<Memento>, ApiError> {
    let mut out = if scope.is_all() {
        from_cdxj(library, uri)?
    } else {
        library
            .captures_at(uri, scope, super::MAX_MEMENTOS)?
            .into_iter()
            .filter_map(|(archive, item, stored)| {
                Some(Memento {
                    time: parse_timestamp14(&item.timestamp)?,
                    timestamp: item.timestamp,
                    url: item.url,
                    archive,
                    file: stored.file,
                    offset: stored.offset,
                    length: stored.length,
                })
            })
            .collect()
    };
    out.sort_by(|a, b| {
        (&a.timestamp, a.archive, &a.file, a.offset).cmp(&(
            &b.timestamp,
            b.archive,
            &b.file,
            b.offset,
        ))
    });
    out.dedup_by(|a, b| a.archive == b.archive && a.file == b.file && a.offset == b.offset);
    Ok(out)
}

fn from_cdxj(library: &Library, uri: &str) -> Result<Vec<Memento>, ApiError> {
    let key = surt(uri)
        .map_err(|e| ApiError::bad(format!("{uri:?} is not a URI an archive holds: {e}")))?;
    let mut out = Vec::new();
    for (i, a) in library.archives().iter().enumerate() {
        let reader = Reader::open(&a.dir).map_err(|e| unreadable(&a.name, &e))?;
        let mut lines = CdxjIndex::open(reader.layout().index())
            .lookup(&key)
            .map_err(|e| unreadable(&a.name, &e))?;
        for entry in reader.unindexed().map_err(|e| unreadable(&a.name, &e))? {
            let entry = entry.map_err(|e| unreadable(&a.name, &e))?;
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
        file: l.get("filename")?.to_owned(),
        offset: l.get("offset")?.parse().ok()?,
        length: l.get("length")?.parse().ok()?,
    })
}

fn unreadable(name: &str, e: &dyn std::fmt::Display) -> ApiError {
    tracing::error!(archive = name, error = %e, "an archive's index cannot be read");
    ApiError::unavailable(format!("the archive {name} cannot be read just now"), 5)
}

/// The memento closest to `at` (the earlier one of two as close).
pub fn closest(mementos: &[Memento], at: OffsetDateTime) -> Option<&Memento> {
    mementos
        .iter()
        .min_by_key(|m| ((m.time - at).abs(), m.time))
}

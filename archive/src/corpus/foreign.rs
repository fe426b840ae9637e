//! Checking the parts of a corpus that are captures of WARC, ARC or WACZ files from another tool
//! (a collection the explorer reads, named by the archive id of its PWIDs). Such files have no
//! ledger to resolve a PWID through: their records are read once, in file order, and each part
//! is matched by its URL and capture time (whole seconds, as the PWID has it). A part is there
//! when a `response`, `resource` or `revisit` record of that URL and time has the listed payload
//! digest: the SHA-1 of its payload computed while reading, or a revisit's `WARC-Payload-Digest`.

use std::collections::HashMap;
use std::time::Duration;

use super::verify::Finding;
use crate::any::{Found, Input, InputError, ListOptions, ReadOptions, Record, RecordKind, Records};

/// A collection of WARC, ARC or WACZ files, named by the archive id its PWIDs carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collection {
    /// Its name: the PWIDs' archive id.
    pub name: String,
    /// Its files.
    pub input: Input,
}

/// A part waiting for its collection's files to be read.
#[derive(Debug)]
pub(super) struct Wanted {
    /// Its place in the corpus.
    pub(super) n: u64,
    pub(super) pwid: String,
    pub(super) url: String,
    /// Unix seconds.
    pub(super) at: i64,
    pub(super) listed: String,
}

/// The findings of `wanted`, all parts of `collection`, in any order with their places: reads
/// every record of the collection once.
pub(super) fn check_all(
    collection: &Collection,
    wanted: Vec<Wanted>,
) -> Result<Vec<(u64, Finding)>, InputError> {
    let mut by_key: HashMap<(String, i64), Vec<usize>> = HashMap::new();
    for (i, w) in wanted.iter().enumerate() {
        by_key.entry((w.url.clone(), w.at)).or_default().push(i);
    }
    // Every file, including those still being written: a corpus names what was there.
    let options = ListOptions {
        settle: Duration::ZERO,
    };
    let listing = collection.input.list(&options)?;
    // Per part: whether a record had the listed digest, else the digest a record had.
    let mut seen: Vec<Option<Result<(), String>>> = (0..wanted.len()).map(|_| None).collect();
    for source in &listing.ready {
        // Only what is needed to match: the payload's digest streams by, its bytes are dropped.
        let records = Records::open(source, ReadOptions::default().keep(0)).map_err(|error| {
            InputError::Io {
                path: source.path.clone(),
                error,
            }
        })?;
        for found in records {
            let Found::Record(record) = found else {
                continue;
            };
            let Some(key) = key_of(&record) else {
                continue;
            };
            let Some(parts) = by_key.get(&key) else {
                continue;
            };
            let digest = digest_of(&record);
            for &i in parts {
                if matches!(seen[i], Some(Ok(()))) {
                    continue;
                }
                seen[i] = Some(match digest.as_deref() == Some(wanted[i].listed.as_str()) {
                    true => Ok(()),
                    false => Err(digest.clone().unwrap_or_else(|| "none".to_owned())),
                });
            }
        }
    }
    let name = &collection.name;
    Ok(wanted
        .into_iter()
        .zip(seen)
        .filter_map(|(w, s)| match s {
            Some(Ok(())) => None,
            Some(Err(found)) => Some((
                w.n,
                Finding::Changed {
                    pwid: w.pwid,
                    listed: w.listed,
                    found,
                },
            )),
            None => Some((
                w.n,
                Finding::Missing {
                    pwid: w.pwid,
                    reason: format!("no capture of this URL at this time in collection {name}"),
                },
            )),
        })
        .collect())
}

/// A capture record's URL and time (Unix seconds); none for other records.
fn key_of(record: &Record) -> Option<(String, i64)> {
    if !matches!(
        record.kind,
        RecordKind::Response | RecordKind::Resource | RecordKind::Revisit(_)
    ) {
        return None;
    }
    let url = record.fields.target_uri.clone()?;
    Some((url, record.fields.date?.unix_timestamp()))
}

/// The payload digest a capture record has now, `sha1:BASE32`.
fn digest_of(record: &Record) -> Option<String> {
    match record.kind {
        RecordKind::Revisit(_) => record.fields.payload_digest.as_ref()?.sha1_base32(),
        _ => record.payload_sha1.clone(),
    }
}

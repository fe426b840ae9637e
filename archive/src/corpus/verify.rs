//! Checking a corpus definition against the archives it names: every part's PWID resolved, its
//! record still there, and its payload still the bytes of the digest the corpus lists (the
//! digest is computed again from the WARC record, not only read from the index). Parts of
//! collections of other tools' WARC, ARC or WACZ files are checked by reading those files
//! (`foreign.rs`).

use std::collections::HashMap;
use std::io::{self, BufRead, Read};

use quick_xml::events::Event;
use sha1::{Digest, Sha1};

use super::foreign::{check_all, Collection, Wanted};
use crate::any::InputError;
use crate::archive::{Reader, ResolveError};
use crate::pwid::Pwid;
use crate::warc::base32;

/// What is wrong with one part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// The part cannot be found: its archive is not given, or the PWID resolves to nothing.
    Missing {
        /// The part's PWID.
        pwid: String,
        /// Why.
        reason: String,
    },
    /// The part is there but its payload is not the bytes of the digest listed.
    Changed {
        /// The part's PWID.
        pwid: String,
        /// The digest the corpus lists.
        listed: String,
        /// The digest of the payload now.
        found: String,
    },
}

/// The result of a check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verified {
    /// Parts checked.
    pub parts: u64,
    /// What is missing or changed, in the corpus's order.
    pub findings: Vec<Finding>,
}

/// Why a corpus definition could not be checked at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The file is not a corpus definition's XML.
    #[error("not a corpus definition: {0}")]
    Xml(String),
    /// Reading the file failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A collection's files cannot be listed or opened.
    #[error("collection {name}: {source}")]
    Collection {
        /// The collection.
        name: String,
        /// What failed.
        source: InputError,
    },
}

/// Checks every part of the corpus definition `corpus` against `archives` and `collections`
/// (each found by its archive id, the PWID's first field; a collection's is its name).
pub fn verify(
    corpus: impl BufRead,
    archives: &[Reader],
    collections: &[Collection],
) -> Result<Verified, VerifyError> {
    let by_id: HashMap<&str, &Reader> = archives
        .iter()
        .filter_map(|r| Some((r.archive_id()?, r)))
        .collect();
    let mut out = Verified::default();
    let mut found: Vec<(u64, Finding)> = Vec::new();
    let mut wanted: HashMap<usize, Vec<Wanted>> = HashMap::new();
    let mut xml = quick_xml::Reader::from_reader(corpus);
    let mut buf = Vec::new();
    loop {
        let event = xml
            .read_event_into(&mut buf)
            .map_err(|e| VerifyError::Xml(e.to_string()))?;
        match event {
            Event::Eof => break,
            Event::Empty(e) | Event::Start(e) if e.name().as_ref() == b"part" => {
                let attr = |name: &[u8]| -> Result<String, VerifyError> {
                    let a = e
                        .try_get_attribute(name)
                        .map_err(|err| VerifyError::Xml(err.to_string()))?
                        .ok_or_else(|| {
                            VerifyError::Xml(format!(
                                "a part without {}",
                                String::from_utf8_lossy(name)
                            ))
                        })?;
                    let v = a
                        .unescape_value()
                        .map_err(|err| VerifyError::Xml(err.to_string()))?;
                    Ok(v.into_owned())
                };
                let (pwid, digest) = (attr(b"pwid")?, attr(b"digest")?);
                let n = out.parts;
                out.parts += 1;
                let parsed = pwid.parse::<Pwid>().ok();
                let collection = parsed
                    .as_ref()
                    .and_then(|p| collections.iter().position(|c| c.name == p.archive_id));
                match (parsed, collection) {
                    (Some(p), Some(c)) if !by_id.contains_key(p.archive_id.as_str()) => {
                        wanted.entry(c).or_default().push(Wanted {
                            n,
                            url: p.item,
                            at: p.archived_at.unix_timestamp(),
                            pwid,
                            listed: digest,
                        })
                    }
                    _ => found.extend(check(&by_id, &pwid, &digest).map(|f| (n, f))),
                }
            }
            _ => {}
        }
        buf.clear();
    }
    for (c, parts) in wanted {
        let collection = &collections[c];
        found.extend(
            check_all(collection, parts).map_err(|source| VerifyError::Collection {
                name: collection.name.clone(),
                source,
            })?,
        );
    }
    found.sort_by_key(|(n, _)| *n);
    out.findings = found.into_iter().map(|(_, f)| f).collect();
    Ok(out)
}

/// The finding of one part, if anything is wrong.
fn check(archives: &HashMap<&str, &Reader>, pwid: &str, listed: &str) -> Option<Finding> {
    let missing = |reason: String| {
        Some(Finding::Missing {
            pwid: pwid.to_owned(),
            reason,
        })
    };
    let parsed: Pwid = match pwid.parse() {
        Ok(p) => p,
        Err(e) => return missing(format!("not a PWID: {e}")),
    };
    let Some(reader) = archives.get(parsed.archive_id.as_str()) else {
        return missing(format!("archive {} is not given", parsed.archive_id));
    };
    let found = match reader
        .resolve(&parsed)
        .and_then(|at| payload_digest(reader, &at))
    {
        Ok(d) => d,
        Err(e) => return missing(e.to_string()),
    };
    (found != listed).then(|| Finding::Changed {
        pwid: pwid.to_owned(),
        listed: listed.to_owned(),
        found,
    })
}

/// `sha1:BASE32` of the payload of the record at `at` (of the capture a revisit refers to).
fn payload_digest(reader: &Reader, at: &crate::archive::Resolved) -> Result<String, ResolveError> {
    let mut record = reader.open_payload(at)?;
    let mut hasher = Sha1::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = record.block.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        hasher.update(&chunk[..n]);
    }
    Ok(format!("sha1:{}", base32(&hasher.finalize())))
}

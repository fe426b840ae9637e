//! Checking a corpus definition against the archives it names: every part's PWID resolved, its
//! record still there, and its payload still the bytes of the digest the corpus lists (the
//! digest is computed again from the WARC record, not only read from the index).

use std::collections::HashMap;
use std::io::{self, BufRead, Read};

use quick_xml::events::Event;
use sha1::{Digest, Sha1};

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
}

/// Checks every part of the corpus definition `corpus` against `archives` (each found by its
/// archive id, the PWID's first field).
pub fn verify(corpus: impl BufRead, archives: &[Reader]) -> Result<Verified, VerifyError> {
    let by_id: HashMap<&str, &Reader> = archives
        .iter()
        .filter_map(|r| Some((r.archive_id()?, r)))
        .collect();
    let mut out = Verified::default();
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
                out.parts += 1;
                if let Some(f) = check(&by_id, &pwid, &digest) {
                    out.findings.push(f);
                }
            }
            _ => {}
        }
        buf.clear();
    }
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

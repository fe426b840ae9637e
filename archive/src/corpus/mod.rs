//! Corpus definitions: a selection of an archive's parts, written as XML that lists the PWID of
//! every part and names the whole with a `collection` PWID (schema: `schemas/corpus.xsd`,
//! namespace [`NS`]).
//!
//! No standard format for corpus definitions exists (`docs/archivists.md`, "Formats"); this one
//! is the list of PWIDs the PWID draft describes for collections, plus what selected them.

use std::collections::HashMap;
use std::io::{self, Write};

use modoai_protocol::Datestamp;
use sha1::{Digest, Sha1};
use time::OffsetDateTime;

use crate::archive::{parts_of, Entry, Part, Reader, Timeline};
use crate::pwid::{Coverage, Pwid};
use crate::warc::base32;

mod foreign;
mod verify;
mod writer;

pub use foreign::Collection;
pub use verify::{verify, Finding, Verified, VerifyError};
pub use writer::{CorpusWriter, Head, PartFacts};

/// The namespace of corpus definitions.
pub const NS: &str = "urn:modoai:corpus:2026";

/// Which parts a corpus holds. Every criterion given must match.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Host of the part's URL (ASCII case-insensitive).
    pub host: Option<String>,
    /// A setSpec of the item.
    pub set: Option<String>,
    /// Items with a datestamp at or after this.
    pub from: Option<Datestamp>,
    /// Items with a datestamp at or before this.
    pub until: Option<Datestamp>,
    /// The state at this date: for each item, its last capture with a datestamp at or before
    /// it, unless a deletion at or before it came after that capture (`from` and `until` are
    /// then not used).
    pub at: Option<Datestamp>,
    /// What was deleted: the last capture before each deletion whose datestamp is within
    /// `from` and `until` (the part's `deleted` attribute holds the deletion's datestamp).
    pub deleted: bool,
}

impl Selection {
    fn items(&self, e: &Entry) -> bool {
        if e.deleted || !e.kind.is_item() {
            return false;
        }
        if let Some(set) = &self.set {
            if !e.sets.iter().any(|s| s == set) {
                return false;
            }
        }
        let by_history = self.at.is_some() || self.deleted;
        if !by_history && (self.from.is_some() || self.until.is_some()) {
            let Some(d) = Datestamp::parse_lenient(&e.datestamp) else {
                return false;
            };
            if self.from.is_some_and(|f| d < f) || self.until.is_some_and(|u| d > u) {
                return false;
            }
        }
        true
    }

    fn parts(&self, p: &Part) -> bool {
        let Some(host) = &self.host else { return true };
        url::Url::parse(&p.record.uri)
            .ok()
            .and_then(|u| u.host_str().map(|h| h.eq_ignore_ascii_case(host)))
            .unwrap_or(false)
    }
}

/// Why a corpus could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CorpusError {
    /// The archive has no archive id yet: nothing was harvested into it with this version.
    #[error("the archive has no archive id yet (harvest into it first)")]
    NoArchiveId,
    /// Reading the archive or writing the output failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// What was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corpus {
    /// The corpus's own PWID (`collection` coverage).
    pub pwid: Pwid,
    /// Parts listed.
    pub parts: u64,
    /// Parts selected but left out because their WARC file is not closed yet (a harvest is
    /// writing it, or was killed: `modoai-harvester repair` closes it): a corpus names closed
    /// files only, which keep their name.
    pub left_out: u64,
}

/// Writes the corpus definition of the parts of the archive that `selection` picks, among the
/// complete items in closed WARC files.
///
/// The ledger is read twice, one entry at a time: first to name the corpus (its `collection`
/// PWID's item is `urn:sha1:` of the part PWIDs, so the same selection of the same holdings gets
/// the same name), then to write the parts.
pub fn write_corpus(
    archive: &Reader,
    selection: &Selection,
    description: Option<&str>,
    out: impl Write,
) -> Result<Corpus, CorpusError> {
    let archive_id = archive
        .archive_id()
        .ok_or(CorpusError::NoArchiveId)?
        .to_owned();
    let mut hasher = Sha1::new();
    let mut count = 0u64;
    // Both passes see each file as the first one did, though a harvest may close it meanwhile.
    let mut closed = HashMap::new();
    let chosen = chosen(archive, selection)?;
    let mut each = Each {
        archive,
        selection,
        archive_id: &archive_id,
        chosen: chosen.as_ref(),
        closed: &mut closed,
    };
    let left_out = each.part(|_, p, _| {
        hasher.update(p.pwid.to_string().as_bytes());
        hasher.update(b"\n");
        count += 1;
        Ok(())
    })?;
    let created = OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or_else(|_| OffsetDateTime::now_utc());
    let pwid = Pwid {
        archive_id: archive_id.clone(),
        archived_at: created,
        coverage: Coverage::Collection,
        item: format!("urn:sha1:{}", base32(&hasher.finalize())),
    };
    let head = Head {
        pwid: &pwid,
        archive: &archive_id,
        created,
        description,
        selection,
        count,
    };
    let mut w = CorpusWriter::new(out, &head)?;
    each.part(|entry, p, deleted| {
        let r = &p.record;
        w.part(&PartFacts {
            pwid: &p.pwid,
            url: &r.uri,
            identifier: &entry.identifier,
            datestamp: &entry.datestamp,
            kind: r.kind.as_str(),
            content_type: &r.mime,
            digest: &r.digest,
            warc_file: &r.file,
            offset: r.offset,
            length: r.length,
            deleted,
        })
    })?;
    w.finish()?.flush()?;
    Ok(Corpus {
        pwid,
        parts: count,
        left_out,
    })
}

/// The entries a selection by history keeps (by their ledger position after them), with the
/// deletion's datestamp in `deleted` mode; `None` when the selection is not by history. Memory:
/// one small record per item of the archive.
fn chosen(
    archive: &Reader,
    selection: &Selection,
) -> io::Result<Option<HashMap<u64, Option<String>>>> {
    let within = |d: &str| {
        let Some(d) = Datestamp::parse_lenient(d) else {
            return false;
        };
        selection.from.is_none_or(|f| d >= f) && selection.until.is_none_or(|u| d <= u)
    };
    let mut entries = archive.entries()?;
    let mut out = HashMap::new();
    if selection.deleted {
        let mut timeline = Timeline::new();
        while let Some(entry) = entries.next() {
            if let Some(d) = timeline.see(entries.position(), &entry?) {
                if let (Some(at), true) = (d.last_capture, within(&d.datestamp)) {
                    out.insert(at, Some(d.datestamp));
                }
            }
        }
        return Ok(Some(out));
    }
    let Some(at) = selection.at else {
        return Ok(None);
    };
    // Per item, its last event at or before `at`: a capture (its position) or a deletion.
    let mut last: HashMap<(String, String, String), Option<u64>> = HashMap::new();
    while let Some(entry) = entries.next() {
        let entry = entry?;
        let dated = Datestamp::parse_lenient(&entry.datestamp).is_some_and(|d| d <= at);
        if !entry.kind.is_item() || !dated {
            continue;
        }
        let key = (entry.endpoint, entry.prefix, entry.identifier);
        last.insert(key, (!entry.deleted).then(|| entries.position()));
    }
    out.extend(last.into_values().flatten().map(|p| (p, None)));
    Ok(Some(out))
}

/// Walks the selected parts.
struct Each<'a> {
    archive: &'a Reader,
    selection: &'a Selection,
    archive_id: &'a str,
    chosen: Option<&'a HashMap<u64, Option<String>>>,
    /// WARC files seen, and whether closed: both passes see each file as the first one did.
    closed: &'a mut HashMap<String, bool>,
}

impl Each<'_> {
    /// Calls `f` on every selected part in a closed WARC file (with the deletion's datestamp in
    /// `deleted` mode); returns how many selected parts are in files not closed yet.
    fn part(
        &mut self,
        mut f: impl FnMut(&Entry, &Part, Option<&str>) -> io::Result<()>,
    ) -> io::Result<u64> {
        let mut left_out = 0;
        let mut entries = self.archive.entries()?;
        while let Some(entry) = entries.next() {
            let entry = entry?;
            let deleted = match self.chosen {
                None => None,
                Some(chosen) => match chosen.get(&entries.position()) {
                    None => continue,
                    Some(d) => d.as_deref(),
                },
            };
            if !self.selection.items(&entry) {
                continue;
            }
            for part in parts_of(&entry, self.archive_id) {
                if !self.selection.parts(&part) {
                    continue;
                }
                match self.is_closed(&part.record.file)? {
                    true => f(&entry, &part, deleted)?,
                    false => left_out += 1,
                }
            }
        }
        Ok(left_out)
    }

    fn is_closed(&mut self, name: &str) -> io::Result<bool> {
        if let Some(&c) = self.closed.get(name) {
            return Ok(c);
        }
        let c = self.archive.warc_file(name)?.is_some_and(|f| f.closed);
        self.closed.insert(name.to_owned(), c);
        Ok(c)
    }
}

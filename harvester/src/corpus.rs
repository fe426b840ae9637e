//! Corpus definitions: a selection of an archive's parts, written as XML that lists the PWID of
//! every part and names the whole with a `collection` PWID (schema: `schemas/corpus.xsd`,
//! namespace [`NS`]).
//!
//! No standard format for corpus definitions exists (`docs/archivists.md`, "Formats"); this one
//! is the list of PWIDs the PWID draft describes for collections, plus what selected them.

use std::collections::HashMap;
use std::io::{self, Write};

use modoai_protocol::Datestamp;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;
use sha1::{Digest, Sha1};
use time::OffsetDateTime;

use crate::archive::{parts_of, Entry, Part, Reader};
use crate::pwid::{Coverage, Pwid};
use crate::warc::base32;

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
        if self.from.is_some() || self.until.is_some() {
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
    let left_out = for_each_part(archive, selection, &archive_id, &mut closed, |_, p| {
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
    let mut w = Writer::new_with_indent(out, b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let pwid_text = pwid.to_string();
    w.write_event(Event::Start(
        BytesStart::new("corpus").with_attributes([("xmlns", NS), ("pwid", pwid_text.as_str())]),
    ))?;
    text(&mut w, "archive", &archive_id)?;
    text(&mut w, "created", &crate::warc::warc_date(created))?;
    if let Some(d) = description {
        text(&mut w, "description", d)?;
    }
    w.write_event(Event::Start(BytesStart::new("selection")))?;
    let day = |d: &Option<Datestamp>| d.map(|d| d.to_string());
    for (name, value) in [
        ("host", selection.host.clone()),
        ("set", selection.set.clone()),
        ("from", day(&selection.from)),
        ("until", day(&selection.until)),
    ] {
        if let Some(v) = value {
            text(&mut w, name, &v)?;
        }
    }
    w.write_event(Event::End(BytesEnd::new("selection")))?;
    text(&mut w, "count", &count.to_string())?;
    for_each_part(archive, selection, &archive_id, &mut closed, |entry, p| {
        let r = &p.record;
        let (pwid, offset, length) = (
            p.pwid.to_string(),
            r.offset.to_string(),
            r.length.to_string(),
        );
        let start = BytesStart::new("part").with_attributes([
            ("pwid", pwid.as_str()),
            ("url", r.uri.as_str()),
            ("identifier", entry.identifier.as_str()),
            ("datestamp", entry.datestamp.as_str()),
            ("type", r.kind.as_str()),
            ("contentType", r.mime.as_str()),
            ("digest", r.digest.as_str()),
            ("warcFile", r.file.as_str()),
            ("offset", offset.as_str()),
            ("length", length.as_str()),
        ]);
        w.write_event(Event::Empty(start))
    })?;
    w.write_event(Event::End(BytesEnd::new("corpus")))?;
    w.into_inner().flush()?;
    Ok(Corpus {
        pwid,
        parts: count,
        left_out,
    })
}

fn text<W: Write>(w: &mut Writer<W>, name: &str, value: &str) -> io::Result<()> {
    w.write_event(Event::Start(BytesStart::new(name)))?;
    w.write_event(Event::Text(BytesText::new(value)))?;
    w.write_event(Event::End(BytesEnd::new(name)))
}

/// Calls `f` on every selected part in a closed WARC file; returns how many selected parts are
/// in files not closed yet.
fn for_each_part(
    archive: &Reader,
    selection: &Selection,
    archive_id: &str,
    closed: &mut HashMap<String, bool>,
    mut f: impl FnMut(&Entry, &Part) -> io::Result<()>,
) -> io::Result<u64> {
    let mut left_out = 0;
    for entry in archive.entries()? {
        let entry = entry?;
        if !selection.items(&entry) {
            continue;
        }
        for part in parts_of(&entry, archive_id) {
            if !selection.parts(&part) {
                continue;
            }
            let name = &part.record.file;
            let is_closed = match closed.get(name) {
                Some(&c) => c,
                None => {
                    let c = archive.warc_file(name)?.is_some_and(|f| f.closed);
                    *closed.entry(name.clone()).or_insert(c)
                }
            };
            match is_closed {
                true => f(&entry, &part)?,
                false => left_out += 1,
            }
        }
    }
    Ok(left_out)
}

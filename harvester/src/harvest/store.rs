//! Writing one harvested item into the archive: `resource` (or `revisit`) records for its payloads,
//! the metadata XML, and a `metadata` record of warc-fields, then its ledger line.

use std::io::{self, Read, Write};

use modoai_archive::archive::{written, Archive, ArchiveError, Entry, EntryKind, Written};
use modoai_archive::facts::Facts;
use modoai_archive::pwid::Pwid;
use modoai_archive::warc::{warc_date, RecordRef, RecordType, Spool, WarcFields, Writer};
use time::OffsetDateTime;

use super::fixity::{self, Fixity};
use crate::parse::Header;

/// One payload to archive as a `resource`.
#[derive(Debug)]
pub(crate) struct Payload {
    pub(crate) target_uri: String,
    pub(crate) mime: String,
    pub(crate) bytes: Spool,
    /// MD5 of the bytes, when computed while they were received (else computed from the
    /// spool if a fixity check needs it).
    pub(crate) md5: Option<String>,
    /// Where the bytes came from: `inline` (Base64 in the record) or the URL fetched.
    pub(crate) source: String,
}

/// The item being stored.
pub(crate) struct Item<'a> {
    pub(crate) endpoint: &'a str,
    pub(crate) prefix: &'a str,
    pub(crate) header: &'a Header,
    /// The GetRecord URL of the item in this format.
    pub(crate) get_record: String,
    pub(crate) facts: Facts,
    /// The metadata XML, Base64 content left out (None for deleted records).
    pub(crate) xml: Option<Spool>,
    pub(crate) payloads: Vec<Payload>,
}

/// What storing found wrong, besides I/O.
pub(crate) struct Stored {
    pub(crate) entry: Entry,
}

impl Item<'_> {
    /// Writes the item's records as one group and commits its ledger line.
    pub(crate) fn store(
        mut self,
        archive: &mut Archive,
        warcinfo: &dyn Fn() -> WarcFields,
    ) -> Result<Stored, ArchiveError> {
        let date = OffsetDateTime::now_utc();
        // The CRATE's `md5` is checked on a record's only payload: its MD5 is computed then.
        if let ([p], Some(_)) = (&mut self.payloads[..], self.facts.plugin_text("md5")) {
            if p.md5.is_none() {
                let md5 = p.bytes.reader().and_then(md5_of);
                p.md5 = Some(md5.map_err(|e| ArchiveError::io(&archive.layout().spool(), e))?);
            }
        }
        let mut fixity_errors = Vec::new();
        let mut checks = Vec::new();
        for p in &self.payloads {
            for check in fixity::checks(
                &self.facts,
                p.md5.as_deref(),
                p.bytes.len(),
                self.payloads.len() == 1,
            ) {
                if check.is_mismatch() {
                    tracing::warn!(identifier = %self.header.identifier, target = %p.target_uri, "fixity: {check}");
                    fixity_errors.push(format!("{}: {check}", p.target_uri));
                }
                checks.push((p.target_uri.clone(), check));
            }
        }
        let originals = self
            .payloads
            .iter()
            // An empty payload is stored again rather than revisited: pywb fails to replay a
            // revisit of an empty record.
            .map(|p| match p.bytes.is_empty() {
                true => Ok(None),
                false => archive.original(&p.bytes.digest()),
            })
            .collect::<Result<Vec<Option<RecordRef>>, _>>()?;
        // Payload bytes: the files, or for other formats the record's XML (its payload).
        let bytes: u64 = self.payloads.iter().map(|p| p.bytes.len()).sum::<u64>()
            + match (&self.xml, self.facts.didl) {
                (Some(xml), false) => xml.len(),
                _ => 0,
            };
        let Item {
            endpoint,
            prefix,
            header,
            get_record,
            facts,
            xml,
            payloads,
        } = self;
        let archive_id = archive.archive_id().to_owned();
        let records = archive.write_group(warcinfo, |w| {
            write_group(
                w,
                date,
                Group {
                    archive_id: &archive_id,
                    endpoint,
                    prefix,
                    header,
                    get_record: &get_record,
                    facts: &facts,
                    xml,
                    payloads,
                    originals,
                    checks: &checks,
                },
            )
        })?;
        let entry = Entry {
            endpoint: endpoint.to_owned(),
            prefix: prefix.to_owned(),
            identifier: header.identifier.clone(),
            datestamp: header.datestamp_raw.clone(),
            deleted: header.deleted,
            sets: header.set_specs.clone(),
            harvested: warc_date(date),
            bytes,
            fixity_errors,
            records,
            kind: EntryKind::Item,
        };
        archive.commit(&entry)?;
        Ok(Stored { entry })
    }
}

/// The MD5 of what `reader` reads, in lower-case hex.
fn md5_of(mut reader: impl Read) -> io::Result<String> {
    use md5::{Digest, Md5};
    let mut md5 = Md5::new();
    let mut buf = vec![0; 256 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok(hex::encode(md5.finalize())),
            Ok(n) => md5.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

struct Group<'a> {
    archive_id: &'a str,
    endpoint: &'a str,
    prefix: &'a str,
    header: &'a Header,
    get_record: &'a str,
    facts: &'a Facts,
    xml: Option<Spool>,
    payloads: Vec<Payload>,
    originals: Vec<Option<RecordRef>>,
    checks: &'a [(String, Fixity)],
}

fn write_group(w: &mut Writer, date: OffsetDateTime, g: Group<'_>) -> io::Result<Vec<Written>> {
    let mut out = Vec::new();
    // The payloads: a resource each, or a revisit of an identical earlier one.
    let mut described = Vec::new();
    for (p, original) in g.payloads.into_iter().zip(g.originals) {
        let r = match original {
            Some(orig) => {
                let r = w.write_revisit(&p.target_uri, date, &orig, &[])?;
                out.push(written(&r, RecordType::Revisit, "warc/revisit", true));
                r
            }
            None => {
                let r = w.finish_payload(&p.target_uri, &p.mime, date, &[], p.bytes)?;
                out.push(written(&r, RecordType::Resource, &p.mime, true));
                r
            }
        };
        described.push((r, p.source));
    }
    let is_didl = g.facts.didl;
    // The metadata XML: for a DIDL, a metadata record at the GetRecord URL describing the
    // payload; for another format the XML is the item itself.
    let mut xml_record = None;
    if let Some(xml) = g.xml {
        if is_didl {
            let about = described.first().map(|(r, _)| r);
            let r = w.write_metadata_payload(g.get_record, "application/xml", date, about, xml)?;
            out.push(written(&r, RecordType::Metadata, "application/xml", true));
            xml_record = Some(r);
        } else {
            let r = xml_resource(w, g.get_record, date, xml)?;
            out.push(written(&r, RecordType::Resource, "application/xml", true));
            described.push((r, "metadata".into()));
        }
    }
    // The warc-fields: everything the header and the CRATE said, one metadata record per
    // payload (the first carries the item's fields), or one for a deleted item.
    let mut fields = WarcFields::new();
    fields.field("via", g.get_record)?;
    fields.field("oai-endpoint", g.endpoint)?;
    fields.field("oai-identifier", &one_line(&g.header.identifier))?;
    fields.field("oai-datestamp", &one_line(&g.header.datestamp_raw))?;
    fields.field("oai-metadataPrefix", g.prefix)?;
    for s in &g.header.set_specs {
        fields.field("oai-setSpec", &one_line(s))?;
    }
    if g.header.deleted {
        fields.field("oai-status", "deleted")?;
    }
    if let Some(r) = &xml_record {
        fields.field("metadata-record", &r.record_id)?;
    }
    crate_fields(&mut fields, g.facts)?;
    match described.first() {
        None => {
            let mut spool = w.begin_payload();
            spool.write_all(fields.as_bytes())?;
            let r = w.write_metadata_payload(
                g.get_record,
                "application/warc-fields",
                date,
                None,
                spool,
            )?;
            out.push(written(
                &r,
                RecordType::Metadata,
                "application/warc-fields",
                false,
            ));
        }
        Some(_) => {
            for (i, (r, source)) in described.iter().enumerate() {
                let mut f = if i == 0 {
                    fields.clone()
                } else {
                    WarcFields::new()
                };
                f.field("payload-source", source)?;
                if let Some(uri) = &r.target_uri {
                    // PWID coverage: a harvested file is a `part`, named at its capture time.
                    let pwid = Pwid::part(g.archive_id, date, uri).map_err(io::Error::other)?;
                    f.field("pwid", &pwid.to_string())?;
                }
                for (target, check) in g.checks {
                    if r.target_uri.as_deref() == Some(target.as_str()) {
                        f.field("fixity", &check.to_string())?;
                    }
                }
                let m = w.write_metadata(r, &f, &[])?;
                out.push(written(
                    &m,
                    RecordType::Metadata,
                    "application/warc-fields",
                    false,
                ));
            }
        }
    }
    Ok(out)
}

/// A non-DIDL record: its XML as a resource at the GetRecord URL.
fn xml_resource(
    w: &mut Writer,
    get_record: &str,
    date: OffsetDateTime,
    xml: Spool,
) -> io::Result<RecordRef> {
    w.finish_payload(get_record, "application/xml", date, &[], xml)
}

/// The CRATE's descriptors as fields: HTTP status and headers, CRATE identity, and per plugin its
/// label, version, status and (when one short line) its text output.
fn crate_fields(fields: &mut WarcFields, facts: &Facts) -> io::Result<()> {
    for id in &facts.identifiers {
        fields.field("didl-identifier", &one_line(id))?;
    }
    if let Some(s) = &facts.http_status {
        fields.field("http-status", s)?;
    }
    for (name, value) in &facts.http_headers {
        let name = name.to_ascii_lowercase();
        if name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') && !name.is_empty() {
            fields.field(&format!("http-header-{name}"), &one_line(value))?;
        }
    }
    if let Some(uid) = &facts.crate_uid {
        fields.field("crate-uid", &one_line(uid))?;
    }
    if let Some(c) = &facts.crate_created {
        fields.field("crate-created", c)?;
    }
    for p in &facts.plugins {
        let mut v = format!(
            "label={}; version={}; status={}",
            p.label,
            p.version,
            p.status_name()
        );
        if !p.cached.is_empty() {
            v.push_str(&format!("; cached={}", p.cached));
        }
        if !p.duration_ms.is_empty() {
            v.push_str(&format!("; durationMs={}", p.duration_ms));
        }
        if !p.note.is_empty() {
            v.push_str(&format!("; note={}", p.note));
        }
        fields.field("crate-plugin", &one_line(&v))?;
        let text = p.text.trim();
        if p.is_ok() && !text.is_empty() && text.len() <= 512 && !text.contains('\n') {
            let label: String = p
                .label
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '-'
                    }
                })
                .collect();
            fields.field(&format!("crate-output-{label}"), &one_line(text))?;
        }
    }
    Ok(())
}

/// Control characters (CR, LF, …) as spaces: a WARC field is one line.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

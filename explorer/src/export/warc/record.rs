//! One record of an archive written into an export as one gzip member (WARC 1.1 Annex D): a
//! record that is a gzip member of its own already is copied as its bytes, any other is
//! compressed again; an ARC record becomes the WARC record that holds the same capture.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use flate2::write::GzEncoder;
use modoai_archive::any::{open, Format, Framing, Location};
use modoai_archive::warc::{new_record_id, validate_field, warc_date};

/// Writes the gzip member at `at`, a WARC record of its own (as a modoai archive writes every
/// record), to `out` as its bytes.
pub(super) fn copy_member(at: &Location, out: &mut dyn Write) -> io::Result<()> {
    io::copy(&mut at.stored_bytes()?, out)?;
    Ok(())
}

/// The file a record was last copied from, kept open: a page's captures are mostly in a few
/// WARC files, and opening one per record cost more than copying a small record.
#[derive(Debug, Default)]
pub(super) struct LastFile(Option<(PathBuf, File)>);

impl LastFile {
    /// [`copy_member`], from the file kept open when `at` is in it.
    pub(super) fn copy_member(&mut self, at: &Location, out: &mut dyn Write) -> io::Result<()> {
        if at.source.entry.is_some() {
            return copy_member(at, out);
        }
        let path = &at.source.path;
        if self.0.as_ref().is_none_or(|(p, _)| p != path) {
            self.0 = Some((path.clone(), File::open(path)?));
        }
        let (_, file) = self.0.as_mut().expect("just opened");
        file.seek(SeekFrom::Start(at.offset))?;
        let copied = io::copy(&mut Read::take(&mut *file, at.length), out)?;
        if copied != at.length {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "{} ends before offset {} + {}",
                    path.display(),
                    at.offset,
                    at.length
                ),
            ));
        }
        Ok(())
    }
}

/// Writes the record at `at`, of a file of any framing, to `out` as one gzip member.
pub(super) fn copy_record(at: &Location, out: &mut dyn Write) -> io::Result<()> {
    if at.framing == Framing::Gzip && is_warc_member(at)? {
        return copy_member(at, out);
    }
    let opened = open(at)?;
    let head = match &opened.format {
        Format::Warc(version) => warc_head(version, &opened.fields.all, opened.block_len),
        Format::Arc => arc_head(&opened)?,
    };
    let length = opened.block_len;
    let mut gz = GzEncoder::new(out, flate2::Compression::fast());
    gz.write_all(&head)?;
    let copied = io::copy(&mut opened.block(), &mut gz)?;
    if copied != length {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "the record at {} offset {} is cut short",
                at.source, at.offset
            ),
        ));
    }
    gz.write_all(b"\r\n\r\n")?;
    gz.finish()?;
    Ok(())
}

/// Whether the gzip member at `at` holds a WARC record (not an ARC one).
fn is_warc_member(at: &Location) -> io::Result<bool> {
    let mut first = [0u8; 5];
    let mut member = flate2::read::GzDecoder::new(at.stored_bytes()?);
    member.read_exact(&mut first)?;
    Ok(&first == b"WARC/")
}

/// A WARC record's header section, its fields as stored.
fn warc_head(version: &str, fields: &[(String, String)], length: u64) -> Vec<u8> {
    let mut head = format!("WARC/{version}\r\n").into_bytes();
    for (name, value) in fields {
        if name.eq_ignore_ascii_case("Content-Length") {
            continue;
        }
        push(&mut head, name, value);
    }
    push(&mut head, "Content-Length", &length.to_string());
    head.extend_from_slice(b"\r\n");
    head
}

/// The WARC 1.1 header of an ARC record's capture: a `response` when it holds an HTTP
/// response, else a `resource` (the mapping warcio and pywb make of ARC files).
fn arc_head(opened: &modoai_archive::any::Opened) -> io::Result<Vec<u8>> {
    let f = &opened.fields;
    let date = f.date.unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let mut fields = vec![
        ("WARC-Type", "resource".to_owned()),
        ("WARC-Record-ID", new_record_id()),
        ("WARC-Date", warc_date(date)),
    ];
    if opened.http.is_some() {
        fields[0].1 = "response".to_owned();
    }
    if let Some(uri) = &f.target_uri {
        fields.push(("WARC-Target-URI", uri.clone()));
    }
    if let Some(ip) = &f.ip_address {
        fields.push(("WARC-IP-Address", ip.clone()));
    }
    let mime = match opened.http {
        Some(_) => "application/http; msgtype=response".to_owned(),
        None => (f.content_type.clone()).unwrap_or_else(|| "application/octet-stream".into()),
    };
    fields.push(("Content-Type", mime));
    let mut head = b"WARC/1.1\r\n".to_vec();
    for (name, value) in &fields {
        validate_field(name, value)?;
        push(&mut head, name, value);
    }
    push(&mut head, "Content-Length", &opened.block_len.to_string());
    head.extend_from_slice(b"\r\n");
    Ok(head)
}

fn push(head: &mut Vec<u8>, name: &str, value: &str) {
    head.extend_from_slice(name.as_bytes());
    head.extend_from_slice(b": ");
    head.extend_from_slice(value.as_bytes());
    head.extend_from_slice(b"\r\n");
}

//! The `warcinfo` record that opens an export (WARC 1.1 §6.2): what wrote it, the search as a
//! query string, the date of the export and the captures it holds.

use std::io::{self, Write};

use flate2::write::GzEncoder;
use modoai_archive::warc::{new_record_id, sha1_digest, warc_date, WarcFields};
use time::OffsetDateTime;

/// The file name the export has (`Content-Disposition`) and its `warcinfo` names.
pub(super) const FILE_NAME: &str = "export.warc.gz";

/// Writes the `warcinfo` record of an export of `query` made at `created`, as one gzip member.
pub(super) fn warcinfo(
    query: &str,
    created: OffsetDateTime,
    count: u64,
    out: &mut dyn Write,
) -> io::Result<()> {
    let date = warc_date(created);
    let mut fields = WarcFields::new();
    fields
        .field(
            "software",
            concat!("modoai-explorer/", env!("CARGO_PKG_VERSION")),
        )?
        .field("format", "WARC File Format 1.1")?
        .field(
            "description",
            &format!(
                "The captures found by the search {query:?} of modoai-explorer, exported on {date}."
            ),
        )?
        .field("search", query)?
        .field("created", &date)?
        .field("captures", &count.to_string())?;
    let block = fields.as_bytes();
    let mut head = Vec::new();
    for (name, value) in [
        ("WARC-Type", "warcinfo"),
        ("WARC-Record-ID", &new_record_id()),
        ("WARC-Date", &date),
        ("WARC-Filename", FILE_NAME),
        ("Content-Type", "application/warc-fields"),
        ("WARC-Block-Digest", &sha1_digest(block)),
        ("Content-Length", &block.len().to_string()),
    ] {
        head.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    let mut gz = GzEncoder::new(out, flate2::Compression::fast());
    gz.write_all(b"WARC/1.1\r\n")?;
    gz.write_all(&head)?;
    gz.write_all(b"\r\n")?;
    gz.write_all(block)?;
    gz.write_all(b"\r\n\r\n")?;
    gz.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warcinfo_says_what_the_file_is() {
        let mut out = Vec::new();
        let created = OffsetDateTime::from_unix_timestamp(0).unwrap();
        warcinfo("q=a+b&mime=text%2Fhtml", created, 3, &mut out).unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&out[..]), &mut text)
            .unwrap();
        assert!(
            text.starts_with("WARC/1.1\r\nWARC-Type: warcinfo\r\n"),
            "{text}"
        );
        assert!(
            text.contains("\r\nsearch: q=a+b&mime=text%2Fhtml\r\n"),
            "{text}"
        );
        assert!(text.contains("\r\ncaptures: 3\r\n"), "{text}");
        assert!(text.ends_with("\r\n\r\n\r\n"), "{text}");
    }
}

//! Reading one record back: the gzip member at an offset of a `.warc.gz`, as a CDXJ line or a
//! ledger entry points to it.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use flate2::bufread::GzDecoder;

/// Longest header section accepted.
pub(crate) const MAX_HEAD: u64 = 1 << 20;

/// One record: its named fields in order, and a reader of exactly its block.
pub struct StoredRecord {
    /// The header fields (`WARC-Type`, `Content-Length`, …), names as written.
    pub headers: Vec<(String, String)>,
    /// The block (`Content-Length` octets); for `resource` records, the payload.
    pub block: io::Take<BufReader<GzDecoder<BufReader<File>>>>,
}

impl StoredRecord {
    /// The first field named `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl std::fmt::Debug for StoredRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredRecord")
            .field("headers", &self.headers)
            .finish_non_exhaustive()
    }
}

/// Opens the record whose gzip member starts at `offset` of `path`.
///
/// ```
/// use modoai_archive::warc::{read_record, Writer, WriterConfig};
/// use std::io::Read;
///
/// let dir = tempfile::tempdir()?;
/// let mut writer = Writer::new(WriterConfig::new(dir.path(), "t").host("h"));
/// let now = time::OffsetDateTime::now_utc();
/// let r = writer.write_resource("http://h/a.txt", "text/plain", now, &[], &b"hello"[..])?;
/// let file = writer.close()?.remove(0);
/// let mut record = read_record(&file, r.offset)?;
/// assert_eq!(record.header("WARC-Target-URI"), Some("http://h/a.txt"));
/// let mut bytes = Vec::new();
/// record.block.read_to_end(&mut bytes)?;
/// assert_eq!(bytes, b"hello");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_record(path: &Path, offset: u64) -> io::Result<StoredRecord> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut record = BufReader::new(GzDecoder::new(BufReader::new(file)));
    let headers = read_headers(&mut record)?;
    let length = content_length(&headers)?;
    Ok(StoredRecord {
        headers,
        block: record.take(length),
    })
}

/// Parses the version line and the header section up to the empty line.
pub(crate) fn read_headers(record: &mut impl BufRead) -> io::Result<Vec<(String, String)>> {
    let mut head = record.take(MAX_HEAD);
    let mut line = Vec::new();
    head.read_until(b'\n', &mut line)?;
    if line != b"WARC/1.1\r\n" && line != b"WARC/1.0\r\n" {
        return Err(broken("no WARC version line"));
    }
    let mut headers = Vec::new();
    loop {
        line.clear();
        head.read_until(b'\n', &mut line)?;
        let text = line
            .strip_suffix(b"\r\n")
            .ok_or_else(|| broken("header line without CRLF"))?;
        if text.is_empty() {
            return Ok(headers);
        }
        let text = std::str::from_utf8(text).map_err(|_| broken("header not UTF-8"))?;
        let (name, value) = text.split_once(':').ok_or_else(|| broken("no colon"))?;
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
}

/// The `Content-Length` field.
pub(crate) fn content_length(headers: &[(String, String)]) -> io::Result<u64> {
    let value = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("Content-Length"))
        .ok_or_else(|| broken("no Content-Length"))?;
    value.1.parse().map_err(|_| broken("bad Content-Length"))
}

pub(crate) fn broken(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

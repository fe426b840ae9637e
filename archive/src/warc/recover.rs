//! Crash recovery: cut a left-over `….warc.gz.open` back to its last complete record and close it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::bufread::GzDecoder;

use super::digest::Hasher;
use super::file::{finish_rename, OPEN_SUFFIX};
use super::read::{broken, content_length, read_headers};
use super::record::invalid;

/// What [`recover`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recovered {
    /// The closed file, or `None` when not one record was complete and the file was removed.
    pub path: Option<PathBuf>,
    /// Length kept: the end of the last complete record.
    pub length: u64,
    /// Complete records kept (the warcinfo included).
    pub records: usize,
    /// Bytes cut off the end.
    pub dropped: u64,
}

/// Truncates the `.open` file at `path` to the end of its last gzip member that decompresses
/// (CRC checked) to one complete WARC record (header, `Content-Length` octets matching a
/// `sha1:` block digest, trailing CRLF CRLF), fsyncs it and renames it without `.open`. A file
/// with no complete record is removed. Members after the first bad one are dropped too.
pub fn recover(path: &Path) -> io::Result<Recovered> {
    let name = path.to_string_lossy();
    let final_path = match name.strip_suffix(OPEN_SUFFIX) {
        Some(stem) if !stem.is_empty() => PathBuf::from(stem),
        _ => return Err(invalid(format!("{name} does not end in {OPEN_SUFFIX}"))),
    };
    let file = File::open(path)?;
    let total = file.metadata()?.len();
    let mut reader = Counting {
        inner: BufReader::with_capacity(256 * 1024, file),
        pos: 0,
    };
    let (mut length, mut records) = (0, 0);
    while !reader.fill_buf()?.is_empty() && check_member(&mut reader).is_ok() {
        length = reader.pos;
        records += 1;
    }
    let file = OpenOptions::new().write(true).open(path)?;
    file.set_len(length)?;
    file.sync_all()?;
    let kept = if records == 0 {
        fs::remove_file(path)?;
        None
    } else {
        finish_rename(path, &final_path)?;
        Some(final_path)
    };
    Ok(Recovered {
        path: kept,
        length,
        records,
        dropped: total - length,
    })
}

/// Reads one gzip member and checks that it holds exactly one complete record.
fn check_member(reader: &mut impl BufRead) -> io::Result<()> {
    let mut record = BufReader::new(GzDecoder::new(reader));
    let (length, digest) = read_head(&mut record)?;
    let mut hasher = Hasher::new();
    let mut buf = vec![0; 64 * 1024];
    let mut block = (&mut record).take(length);
    loop {
        let n = block.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    if hasher.len() != length {
        return Err(broken("block shorter than Content-Length"));
    }
    if digest.is_some_and(|d| d != hasher.finish()) {
        return Err(broken("block digest mismatch"));
    }
    let mut tail = Vec::new();
    record.take(5).read_to_end(&mut tail)?;
    if tail != b"\r\n\r\n" {
        return Err(broken("record does not end the member with CRLF CRLF"));
    }
    Ok(())
}

/// Parses the header section; returns `Content-Length` and a `sha1:` block digest if present.
fn read_head(record: &mut impl BufRead) -> io::Result<(u64, Option<String>)> {
    let headers = read_headers(record)?;
    let digest = headers
        .iter()
        .find(|(n, v)| n.eq_ignore_ascii_case("WARC-Block-Digest") && v.starts_with("sha1:"))
        .map(|(_, v)| v.clone());
    Ok((content_length(&headers)?, digest))
}

/// Counts the bytes consumed from a [`BufRead`], so member ends are known exactly.
struct Counting<R> {
    inner: R,
    pos: u64,
}

impl<R: BufRead> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.pos += amt as u64;
        self.inner.consume(amt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_names_without_open() {
        let err = recover(Path::new("x.warc.gz")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn empty_file_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.warc.gz.open");
        fs::write(&path, b"\x1f\x8b\x08").unwrap();
        let r = recover(&path).unwrap();
        assert_eq!((r.path, r.records, r.dropped), (None, 0, 3));
        assert!(!path.exists());
    }
}

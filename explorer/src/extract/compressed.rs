//! Compressed payloads (gzip, bzip2, xz: a changelog's `.gz`), decompressed for their text only,
//! and bounded: at most [`MAX_TEXT_INPUT`] bytes come out, and a payload that expands more than
//! [`MAX_RATIO`] times is a decompression bomb, left without text.

use std::cell::Cell;
use std::io::{self, BufReader, Read, Write};
use std::rc::Rc;

use super::{TextKind, MAX_TEXT_INPUT};

/// How many times its compressed size a payload may expand. Text compresses 3 to 10 times with
/// gzip and rarely past 30 with xz; a bomb (zeros, one repeated line) expands hundreds of times.
pub const MAX_RATIO: u64 = 100;

/// Bytes any payload may expand to whatever its ratio: a small file's ratio says little.
const SLACK: u64 = 64 << 10;

/// A compression format whose payloads are decompressed for their text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// gzip (RFC 1952), every member.
    Gzip,
    /// bzip2.
    Bzip2,
    /// xz.
    Xz,
}

/// Why a compressed payload gives no text.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompressedError {
    /// It expands more than [`MAX_RATIO`] times.
    #[error("{format:?} payload expands more than {MAX_RATIO} times its size (a decompression bomb?): its text is not indexed")]
    Bomb {
        /// Its compression.
        format: Compression,
    },
    /// It is not what its type or name says, or it is cut.
    #[error("{format:?} payload cannot be decompressed: {source}")]
    Damaged {
        /// Its compression.
        format: Compression,
        /// The decoder's error.
        source: io::Error,
    },
}

impl Compression {
    /// The compression of a payload of MIME type `mime` at URL path `path`: by its type, or by
    /// the name's extension when the type is a generic one (`application/octet-stream`).
    pub fn of(mime: &str, path: &str) -> Option<Compression> {
        let by_type = match mime.split(';').next().unwrap_or_default().trim() {
            "application/gzip" | "application/x-gzip" => Some(Compression::Gzip),
            "application/x-bzip2" | "application/x-bzip" => Some(Compression::Bzip2),
            "application/x-xz" => Some(Compression::Xz),
            _ => None,
        };
        by_type.or_else(|| match extension(path).as_str() {
            "gz" => Some(Compression::Gzip),
            "bz2" => Some(Compression::Bzip2),
            "xz" => Some(Compression::Xz),
            _ => None,
        })
    }

    /// The decompressed bytes of `compressed`, at most [`MAX_TEXT_INPUT`] (the rest is not
    /// indexed, as for any text).
    pub fn decompress(self, compressed: impl Read) -> Result<Vec<u8>, CompressedError> {
        let read = Rc::new(Cell::new(0));
        let input = Counted {
            inner: compressed,
            read: Rc::clone(&read),
        };
        let mut out = Bounded {
            bytes: Vec::new(),
            read,
            stop: None,
        };
        let result = match self {
            Compression::Gzip => io::copy(&mut flate2::read::MultiGzDecoder::new(input), &mut out),
            Compression::Bzip2 => io::copy(&mut bzip2::read::MultiBzDecoder::new(input), &mut out),
            Compression::Xz => lzma_rs::xz_decompress(&mut BufReader::new(input), &mut out)
                .map(|()| 0)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{e:?}"))),
        };
        match (out.stop, result) {
            (Some(Stop::Bomb), _) => Err(CompressedError::Bomb { format: self }),
            (Some(Stop::Full), _) | (None, Ok(_)) => Ok(out.bytes),
            (None, Err(source)) => Err(CompressedError::Damaged {
                format: self,
                source,
            }),
        }
    }
}

/// How the text of decompressed `bytes` from URL path `path` is taken: by the name without its
/// compression extension (`index.html.gz`), else plain text when the bytes are text (no NUL,
/// UTF-8), else none (a `.tar.gz`).
pub fn inner_kind(path: &str, bytes: &[u8]) -> TextKind {
    let name = path.rsplit('/').next().unwrap_or(path);
    let inner = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    match extension(inner).as_str() {
        "html" | "htm" | "xhtml" => TextKind::Html,
        "xml" => TextKind::Xml,
        "tar" | "pdf" => TextKind::None,
        _ if is_text(bytes) => TextKind::Plain,
        _ => TextKind::None,
    }
}

/// Whether the first bytes of `bytes` look like text: no NUL, and UTF-8 up to a character cut at
/// the end.
fn is_text(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    match std::str::from_utf8(head) {
        Ok(_) => !head.contains(&0),
        Err(e) => e.error_len().is_none() && !head.contains(&0),
    }
}

/// The lower-case extension of the last name of `path`; empty without one.
fn extension(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => ext.to_ascii_lowercase(),
        _ => String::new(),
    }
}

/// A reader that counts the compressed bytes read.
struct Counted<R> {
    inner: R,
    read: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

/// Why [`Bounded`] stopped taking bytes.
#[derive(Clone, Copy, Debug)]
enum Stop {
    /// [`MAX_TEXT_INPUT`] bytes came out.
    Full,
    /// More than [`MAX_RATIO`] times the compressed bytes read came out.
    Bomb,
}

/// The decompressed bytes, refused past [`MAX_TEXT_INPUT`] or [`MAX_RATIO`] (the decoder stops
/// on the error, so a bomb costs no more than its first bytes).
struct Bounded {
    bytes: Vec<u8>,
    read: Rc<Cell<u64>>,
    stop: Option<Stop>,
}

impl Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = MAX_TEXT_INPUT as usize - self.bytes.len();
        let n = buf.len().min(room);
        self.bytes.extend_from_slice(&buf[..n]);
        let allowed = self.read.get().saturating_mul(MAX_RATIO) + SLACK;
        self.stop = if self.bytes.len() as u64 > allowed {
            Some(Stop::Bomb)
        } else if n < buf.len() || room == 0 {
            Some(Stop::Full)
        } else {
            return Ok(n);
        };
        Err(io::Error::other("decompressed payload bounded"))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn bzip2(bytes: &[u8]) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn xz(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        lzma_rs::xz_compress(&mut &bytes[..], &mut out).unwrap();
        out
    }

    const CHANGELOG: &[u8] =
        "modoai (1.2) unstable; urgency=medium\n\n  * Zürich: search finds changelogs.\n"
            .as_bytes();

    #[test]
    fn each_format_gives_its_text() {
        for (format, compressed) in [
            (Compression::Gzip, gzip(CHANGELOG)),
            (Compression::Bzip2, bzip2(CHANGELOG)),
            (Compression::Xz, xz(CHANGELOG)),
        ] {
            assert_eq!(format.decompress(&compressed[..]).unwrap(), CHANGELOG);
        }
        // Two gzip members (as `cat a.gz b.gz`) are one text.
        let two = [gzip(b"one "), gzip(b"two")].concat();
        assert_eq!(Compression::Gzip.decompress(&two[..]).unwrap(), b"one two");
    }

    #[test]
    fn formats_are_told_by_type_or_name() {
        let of = Compression::of;
        assert_eq!(
            of("application/gzip", "/changelog.Debian.gz"),
            Some(Compression::Gzip)
        );
        assert_eq!(
            of("application/octet-stream", "/NEWS.bz2"),
            Some(Compression::Bzip2)
        );
        assert_eq!(of("application/x-xz", "/a"), Some(Compression::Xz));
        assert_eq!(of("text/plain", "/notes.txt"), None);
        assert_eq!(inner_kind("/doc/index.html.gz", b"<p>x"), TextKind::Html);
        assert_eq!(
            inner_kind("/changelog.Debian.gz", CHANGELOG),
            TextKind::Plain
        );
        assert_eq!(inner_kind("/src.tar.gz", CHANGELOG), TextKind::None);
        assert_eq!(inner_kind("/blob.gz", b"\x7fELF\0\0"), TextKind::None);
    }

    #[test]
    fn a_bomb_is_refused_after_its_first_bytes() {
        let zeros = vec![b'0'; 64 << 20];
        let xz_bomb = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/bomb/zeros-64MiB.xz"
        );
        for (format, bomb) in [
            (Compression::Gzip, gzip(&zeros)),
            (Compression::Bzip2, bzip2(&zeros)),
            (Compression::Xz, std::fs::read(xz_bomb).unwrap()),
        ] {
            assert!(bomb.len() < 1 << 20, "{format:?}: {} bytes", bomb.len());
            let e = format.decompress(&bomb[..]).unwrap_err();
            assert!(matches!(e, CompressedError::Bomb { .. }), "{format:?}: {e}");
            assert!(e.to_string().contains("decompression bomb"), "{e}");
        }
    }

    #[test]
    fn a_long_text_is_cut_at_the_text_limit() {
        let mut text = Vec::new();
        let mut n = 0u64;
        while text.len() < (MAX_TEXT_INPUT as usize) * 2 {
            // Numbers do not repeat, so this compresses as text does (a few times, not hundreds).
            n = n
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            writeln!(text, "line {n:x} of a long changelog").unwrap();
        }
        let out = Compression::Gzip.decompress(&gzip(&text)[..]).unwrap();
        assert_eq!(out.len() as u64, MAX_TEXT_INPUT);
        assert_eq!(out, text[..MAX_TEXT_INPUT as usize]);
        let cut = &gzip(CHANGELOG)[..20];
        assert!(matches!(
            Compression::Gzip.decompress(cut),
            Err(CompressedError::Damaged { .. })
        ));
    }
}

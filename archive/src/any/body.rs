//! An HTTP body for extraction: chunked transfer-coding and gzip, deflate or br content-coding
//! removed (RFC 9112 §7.1, RFC 9110 §8.4.1), bounded in size and in expansion against
//! decompression bombs. The stored bytes stay as they are: this is a reading, not a change.

use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use flate2::read::{DeflateDecoder, MultiGzDecoder, ZlibDecoder};

use super::chunked::ChunkedReader;
use super::http::HttpHead;

/// Bounds on a decoded body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyLimits {
    /// Decoded bytes at most. Defaults to 64 MiB.
    pub max_size: u64,
    /// Decoded bytes per coded byte at most, once past 64 KiB (a gzip bomb expands about a
    /// thousand times; text about ten). Defaults to 200.
    pub max_ratio: u64,
}

impl Default for BodyLimits {
    fn default() -> Self {
        BodyLimits {
            max_size: 64 << 20,
            max_ratio: 200,
        }
    }
}

/// Why a body could not be decoded (all of it, or at all).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BodyError {
    /// A content-coding this reader does not decode (`compress`, `zstd`, …).
    #[error("unknown content-coding {0:?}")]
    UnknownCoding(String),
    /// More than [`BodyLimits::max_size`] decoded bytes.
    #[error("decoded body over {0} bytes")]
    TooLarge(u64),
    /// The body expands more than [`BodyLimits::max_ratio`] times.
    #[error("decoded body expands over {0} times")]
    Bomb(u64),
    /// The coded bytes are damaged or cut.
    #[error("content-coding: {0}")]
    Corrupt(String),
}

/// A decoded body as far as it could be read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Body {
    /// The decoded bytes (a prefix of the body when `error` is set).
    pub bytes: Vec<u8>,
    /// Why decoding stopped before the end, if it did.
    pub error: Option<BodyError>,
}

/// Decodes the body that `payload` (the bytes after the HTTP head, as stored) carries, as
/// `head` says it is coded. Reading fails with an [`io::Error`] whose inner error is a
/// [`BodyError`] once a limit is passed or the coding is broken.
pub fn decode_body<'a>(
    payload: impl Read + Send + 'a,
    head: &HttpHead,
    limits: &BodyLimits,
) -> Result<Box<dyn Read + Send + 'a>, BodyError> {
    let coded = Arc::new(AtomicU64::new(0));
    let counted = Counted {
        inner: payload,
        count: Arc::clone(&coded),
    };
    let mut reader: Box<dyn Read + Send + 'a> = if head.is_chunked() {
        Box::new(ChunkedReader::new(counted))
    } else {
        Box::new(counted)
    };
    // Codings are listed in the order applied, so they are removed from the last.
    for coding in head.content_codings().iter().rev() {
        reader = match coding.as_str() {
            "gzip" | "x-gzip" => Box::new(MultiGzDecoder::new(reader)),
            "deflate" => deflate(reader)?,
            "br" => Box::new(brotli_decompressor::Decompressor::new(reader, 64 * 1024)),
            other => return Err(BodyError::UnknownCoding(other.to_owned())),
        };
    }
    Ok(Box::new(Limited {
        inner: reader,
        coded,
        decoded: 0,
        limits: *limits,
    }))
}

/// Reads all of a decoded body, keeping what came before an error.
pub fn read_body(payload: impl Read + Send, head: &HttpHead, limits: &BodyLimits) -> Body {
    let mut body = Body::default();
    match decode_body(payload, head, limits) {
        Ok(mut reader) => {
            if let Err(e) = reader.read_to_end(&mut body.bytes) {
                body.error = Some(body_error(e));
            }
        }
        Err(e) => body.error = Some(e),
    }
    body
}

/// HTTP's `deflate` is zlib (RFC 9110 §8.4.1.2), but some servers send raw deflate: the first
/// two bytes tell which.
fn deflate<'a>(
    mut reader: Box<dyn Read + Send + 'a>,
) -> Result<Box<dyn Read + Send + 'a>, BodyError> {
    let mut first = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        match reader.read(&mut first[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => return Err(body_error(e)),
        }
    }
    let zlib = got == 2 && first[0] & 0x0f == 8 && u16::from_be_bytes(first) % 31 == 0;
    let whole = io::Cursor::new(first[..got].to_vec()).chain(reader);
    Ok(match zlib {
        true => Box::new(ZlibDecoder::new(whole)),
        false => Box::new(DeflateDecoder::new(whole)),
    })
}

/// The [`BodyError`] inside an error of a decoding reader.
pub(crate) fn body_error(e: io::Error) -> BodyError {
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<BodyError>())
    {
        Some(b) => b.clone(),
        None => BodyError::Corrupt(e.to_string()),
    }
}

/// Counts the coded bytes read through it.
struct Counted<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Stops a decoded body at the limits.
struct Limited<R> {
    inner: R,
    coded: Arc<AtomicU64>,
    decoded: u64,
    limits: BodyLimits,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.decoded += n as u64;
        let coded = self.coded.load(Ordering::Relaxed).max(1);
        let stop = if self.decoded > self.limits.max_size {
            Some(BodyError::TooLarge(self.limits.max_size))
        } else if self.decoded > 64 * 1024 && self.decoded / coded > self.limits.max_ratio {
            Some(BodyError::Bomb(self.limits.max_ratio))
        } else {
            None
        };
        match stop {
            Some(e) => Err(io::Error::new(io::ErrorKind::InvalidData, e)),
            None => Ok(n),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::write::{GzEncoder, ZlibEncoder};
    use flate2::Compression;

    use super::*;

    fn head(headers: &str) -> HttpHead {
        HttpHead::parse(format!("HTTP/1.1 200 OK\r\n{headers}\r\n").as_bytes()).unwrap()
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn chunked_gzip_and_deflate_bodies() {
        let text = b"hello hello hello";
        let zipped = gzip(text);
        let mut chunked = format!("{:x}\r\n", zipped.len()).into_bytes();
        chunked.extend_from_slice(&zipped);
        chunked.extend_from_slice(b"\r\n0\r\n\r\n");
        let h = head("Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n");
        let body = read_body(&chunked[..], &h, &BodyLimits::default());
        assert_eq!((body.bytes.as_slice(), body.error), (&text[..], None));
        let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
        z.write_all(text).unwrap();
        let body = read_body(
            &z.finish().unwrap()[..],
            &head("Content-Encoding: deflate\r\n"),
            &BodyLimits::default(),
        );
        assert_eq!(body.bytes, text);
        let body = read_body(
            &b"x"[..],
            &head("Content-Encoding: zstd\r\n"),
            &BodyLimits::default(),
        );
        assert_eq!(body.error, Some(BodyError::UnknownCoding("zstd".into())));
    }

    #[test]
    fn bombs_and_large_bodies_stop() {
        let bomb = gzip(&vec![0u8; 20 << 20]);
        let h = head("Content-Encoding: gzip\r\n");
        let body = read_body(&bomb[..], &h, &BodyLimits::default());
        assert_eq!(body.error, Some(BodyError::Bomb(200)));
        let limits = BodyLimits {
            max_size: 1000,
            max_ratio: 200,
        };
        let body = read_body(&vec![b'a'; 5000][..], &head(""), &limits);
        assert_eq!(body.error, Some(BodyError::TooLarge(1000)));
        assert!(body.bytes.len() as u64 <= 5000);
    }
}

//! Reading one record again from its [`Location`]: its head, and its block streamed (bounded
//! memory whatever its size), as mementos and exports need it.

use std::io::{self, Read};

use super::body::{decode_body, BodyError, BodyLimits};
use super::fields::Fields;
use super::http::{HttpHead, MAX_HTTP_HEAD};
use super::kind::RecordKind;
use super::location::{Framing, Location};
use super::record::Format;
use super::scan::Records;
use super::stream::Stream;

/// A record read again: its head, and a reader of its block.
pub struct Opened {
    /// WARC (and its version) or ARC.
    pub format: Format,
    /// Its type.
    pub kind: RecordKind,
    /// Its header fields.
    pub fields: Fields,
    /// `Content-Length`.
    pub block_len: u64,
    /// The HTTP head of a response or revisit that holds one.
    pub http: Option<HttpHead>,
    /// The first bytes of the block, read to find the HTTP head.
    prefix: Vec<u8>,
    rest: BlockRest,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened")
            .field("kind", &self.kind)
            .field("fields", &self.fields)
            .field("http", &self.http)
            .finish_non_exhaustive()
    }
}

/// Reads the record at `location` again. The cost: a seek for [`Framing::Plain`] and
/// [`Framing::Gzip`] (and for entries stored in a WACZ); decompressing what precedes the record
/// in its member for [`Framing::GzipStream`], and in its entry for a deflated WACZ entry.
///
/// ```no_run
/// use modoai_archive::any::{open, Found, ReadOptions, Records, Source};
/// use std::io::Read;
///
/// let source = Source::file("crawl/example.warc.gz");
/// for found in Records::open(&source, ReadOptions::default())? {
///     if let Found::Record(record) = found {
///         let mut body = Vec::new();
///         open(&record.location)?.payload().read_to_end(&mut body)?;
///     }
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open(location: &Location) -> io::Result<Opened> {
    let input = location.source.read_from(location.offset)?;
    let (input, skip): (Box<dyn Read + Send>, u64) = match location.framing {
        Framing::Plain | Framing::Gzip => (Box::new(input.take(location.length)), 0),
        Framing::GzipStream { skip } => (input, skip),
    };
    let (head, stream) = Records::head_at(location.source.clone(), input, skip)?;
    let mut rest = BlockRest {
        stream,
        left: head.length,
    };
    let is_http = matches!(head.kind, RecordKind::Response | RecordKind::Revisit(_));
    let mut prefix = Vec::new();
    let mut http = None;
    if is_http {
        let mut chunk = [0u8; 8192];
        while prefix.len() < MAX_HTTP_HEAD {
            let n = rest.read(&mut chunk)?;
            if n == 0 {
                http = HttpHead::parse_whole(&prefix);
                break;
            }
            prefix.extend_from_slice(&chunk[..n]);
            if let Some(h) = HttpHead::parse(&prefix) {
                http = Some(h);
                break;
            }
            if !prefix.starts_with(b"HTTP/") && prefix.len() >= 5 {
                break;
            }
        }
    }
    Ok(Opened {
        format: head.format,
        kind: head.kind,
        fields: head.fields,
        block_len: head.length,
        http,
        prefix,
        rest,
    })
}

impl Opened {
    /// The whole block, as stored.
    pub fn block(self) -> impl Read + Send {
        io::Cursor::new(self.prefix).chain(self.rest)
    }

    /// The payload as stored (after the HTTP head; the block for other records): the bytes a
    /// memento serves.
    pub fn payload(mut self) -> impl Read + Send {
        let at = self.http.as_ref().map_or(0, |h| h.body_offset as usize);
        self.prefix.drain(..at.min(self.prefix.len()));
        io::Cursor::new(self.prefix).chain(self.rest)
    }

    /// The body with transfer- and content-codings removed, for extraction, bounded by
    /// `limits`; the payload for records without an HTTP head.
    pub fn body(self, limits: &BodyLimits) -> Result<Box<dyn Read + Send>, BodyError> {
        match self.http.clone() {
            Some(head) => decode_body(self.payload(), &head, limits),
            None => Ok(Box::new(self.payload().take(limits.max_size))),
        }
    }
}

/// The rest of a block: at most `left` more bytes of the stream.
struct BlockRest {
    stream: Stream<Box<dyn Read + Send>>,
    left: u64,
}

impl Read for BlockRest {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 || out.is_empty() {
            return Ok(0);
        }
        let bytes = self.stream.peek(1, true)?;
        let n = bytes.len().min(out.len()).min(self.left as usize);
        out[..n].copy_from_slice(&bytes[..n]);
        self.stream.consume(n);
        self.left -= n as u64;
        Ok(n)
    }
}

//! Reading a file's records in order: [`Records`]. Bad bytes never stop it: it goes on at the
//! next readable record and reports what it skipped and why.

use std::collections::VecDeque;
use std::io::{self, Read};

use super::block::{read_block, BlockRead, Plan, Protocol};
use super::fields::{parse_date, Fields};
use super::head::{
    head_end, is_arc_line, is_warc_start, parse_arc, parse_warc, ArcLine, WarcHead, MAX_HEAD,
};
use super::kind::RecordKind;
use super::location::Source;
use super::record::{Format, Record, Truncation};
use super::stream::Stream;
use super::warcinfo::Warcinfo;

mod found;
mod locate;
mod resync;

use locate::Mark;

pub use found::{Found, ReadOptions, SkipReason, Skipped};

/// The records of one file, in order; see the module docs.
pub struct Records {
    source: Source,
    stream: Stream<Box<dyn Read + Send>>,
    options: ReadOptions,
    /// Whether the file is ARC (its first record is a `filedesc://` line).
    arc: Option<bool>,
    queue: VecDeque<Found>,
    done: bool,
    /// Set by [`open`](super::open): stop after the first record's head, before its block.
    head_only: bool,
    pub(crate) head: Option<Head>,
}

/// A record's head, read by [`open`](super::open) before its block streams.
pub(crate) struct Head {
    pub(crate) format: Format,
    pub(crate) kind: RecordKind,
    pub(crate) fields: Fields,
    pub(crate) length: u64,
}

impl std::fmt::Debug for Records {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Records")
            .field("source", &self.source)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Records {
    /// Reads the records of `source` from its start.
    pub fn open(source: &Source, options: ReadOptions) -> io::Result<Records> {
        let input = source.read_from(0)?;
        Records::new(source.clone(), input, options)
    }

    /// Reads the records of `input`, the bytes of `source`.
    pub fn new(
        source: Source,
        input: Box<dyn Read + Send>,
        options: ReadOptions,
    ) -> io::Result<Records> {
        Ok(Records {
            source,
            stream: Stream::new(input)?,
            options,
            arc: None,
            queue: VecDeque::new(),
            done: false,
            head_only: false,
            head: None,
        })
    }

    /// Reads the head of the record at the start of `input` (after `skip` bytes) and leaves
    /// the stream at its block.
    pub(crate) fn head_at(
        source: Source,
        input: Box<dyn Read + Send>,
        skip: u64,
    ) -> io::Result<(Head, Stream<Box<dyn Read + Send>>)> {
        let mut records = Records::new(source, input, ReadOptions::default())?;
        records.head_only = true;
        let mut left = skip;
        while left > 0 {
            let n = records.stream.peek(1, true)?.len().min(left as usize);
            if n == 0 {
                break;
            }
            records.stream.consume(n);
            left -= n as u64;
        }
        // A WARC head is looked for first; failing that, an ARC line.
        records.arc = Some(true);
        records.step();
        match records.head.take() {
            Some(head) => Ok((head, records.stream)),
            None => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "no readable record at this location",
            )),
        }
    }

    /// Whether the file is gzip-compressed.
    pub fn is_gzip(&self) -> bool {
        self.stream.is_gzip()
    }

    fn step(&mut self) {
        match self.start() {
            Ok(Some(Start::Warc)) => self.warc(),
            Ok(Some(Start::Arc)) => self.arc_record(),
            Ok(Some(Start::Other)) => self.resync(SkipReason::Garbage, false),
            Ok(None) => self.done = true,
            Err(e) => self.failed(e),
        }
    }

    /// Skips line ends between records, and tells what starts here.
    fn start(&mut self) -> io::Result<Option<Start>> {
        loop {
            let bytes = self.stream.peek(1, true)?;
            let Some(&b) = bytes.first() else {
                return Ok(None);
            };
            if b != b'\r' && b != b'\n' {
                break;
            }
            self.stream.consume(1);
        }
        let head = self.look(16, |b| b.len() >= 6)?;
        let (warc, filedesc) = (is_warc_start(head), head.starts_with(b"filedesc://"));
        if warc {
            self.arc.get_or_insert(false);
            return Ok(Some(Start::Warc));
        }
        self.arc.get_or_insert(filedesc);
        if self.arc == Some(true) && is_arc_line(&self.line()?) {
            return Ok(Some(Start::Arc));
        }
        Ok(Some(Start::Other))
    }

    /// The line that starts here (without its line end), up to 4 KiB.
    fn line(&mut self) -> io::Result<Vec<u8>> {
        let bytes = self.look(4096, |b| b.contains(&b'\n'))?;
        let end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
        Ok(bytes[..end].to_vec())
    }

    fn warc(&mut self) {
        let at = self.mark();
        let head = match self.warc_head() {
            Ok(head) => head,
            Err(Err(e)) => return self.failed(e),
            Err(Ok(reason)) => return self.resync(SkipReason::Head(reason), true),
        };
        let WarcHead {
            version,
            fields,
            length,
        } = head;
        let fields = Fields::of(fields);
        let kind = RecordKind::of(
            fields.get("WARC-Type").unwrap_or(""),
            fields.profile.as_deref(),
        );
        self.record(at, Format::Warc(version), kind, fields, length);
    }

    /// Reads a WARC head: `Err(Ok(reason))` when it is bad, `Err(Err(e))` when the file fails.
    fn warc_head(&mut self) -> Result<WarcHead, Result<String, io::Error>> {
        let mut want = 4096;
        loop {
            let bytes = self.look(want, |b| head_end(b, 0).is_some()).map_err(Err)?;
            if let Some(end) = head_end(bytes, 0) {
                let head = parse_warc(&bytes[..end]).map_err(|e| Ok(e.to_string()))?;
                self.stream.consume(end);
                return Ok(head);
            }
            if bytes.len() < want || want >= MAX_HEAD {
                return Err(Ok("record head without an end".to_owned()));
            }
            want *= 4;
        }
    }

    /// At least `n` bytes, or all up to where `enough` holds, from this gzip member if it has
    /// them, crossing into the next only when it does not: a record's start and end must fall
    /// on member boundaries to be located as its member.
    fn look(&mut self, n: usize, enough: impl Fn(&[u8]) -> bool) -> io::Result<&[u8]> {
        let here = self.stream.peek(n, false)?;
        let cross = here.len() < n && !enough(here);
        self.stream.peek(n, cross)
    }

    fn arc_record(&mut self) {
        let at = self.mark();
        let line = match self.line() {
            Ok(l) => l,
            Err(e) => return self.failed(e),
        };
        let Ok(arc) = parse_arc(&line) else {
            unreachable!("start() checked that the line parses")
        };
        self.stream.consume(line.len() + 1);
        let kind = match arc.url.starts_with("filedesc:") {
            true => RecordKind::Warcinfo,
            false => RecordKind::Response,
        };
        let length = arc.length;
        self.record(at, Format::Arc, kind, arc_fields(arc), length);
    }

    fn record(&mut self, at: Mark, format: Format, kind: RecordKind, fields: Fields, length: u64) {
        if self.head_only {
            self.done = true;
            self.head = Some(Head {
                format,
                kind,
                fields,
                length,
            });
            return;
        }
        let is_arc = format == Format::Arc;
        let protocol = match &kind {
            RecordKind::Response | RecordKind::Revisit(_) => Protocol::Response,
            RecordKind::Request => Protocol::Request,
            _ => Protocol::None,
        };
        let has_payload = matches!(
            kind,
            RecordKind::Response
                | RecordKind::Resource
                | RecordKind::Request
                | RecordKind::Conversion
        );
        let plan = Plan {
            length,
            keep: self.options.keep,
            protocol,
            has_payload,
            check_payload: !matches!(kind, RecordKind::Revisit(_)),
            block_digest: fields.block_digest.as_ref(),
            payload_digest: fields.payload_digest.as_ref(),
            in_member: at.member_start,
        };
        let mut block = read_block(&mut self.stream, &plan);
        let warcinfo =
            (kind == RecordKind::Warcinfo && !is_arc).then(|| Warcinfo::parse(&block.kept));
        // Locations end with the block, as warcio and pywb count them; the trailer and blank
        // lines between records belong to no record (in a gzip member, to the member's).
        let end = self.stream.position();
        let trailer = is_arc || block.cut || self.trailer();
        let error = block.error.take();
        let mut record = self.build(at, end, format, kind, fields, length, block, trailer);
        record.warcinfo = warcinfo;
        self.queue.push_back(Found::Record(Box::new(record)));
        if let Some(e) = error {
            self.failed(e);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn build(
        &mut self,
        at: Mark,
        end: u64,
        format: Format,
        kind: RecordKind,
        fields: Fields,
        length: u64,
        block: BlockRead,
        trailer: bool,
    ) -> Record {
        let truncated = match (block.cut, &fields.truncated) {
            (true, _) => Some(Truncation::Cut),
            (false, Some(t)) => Some(Truncation::Declared(t.clone())),
            (false, None) => None,
        };
        let location = self.locate(at, end, !block.cut);
        Record {
            location,
            format,
            kind,
            fields,
            block_len: length,
            block: block.kept,
            http: block.http,
            block_digest: block.block_digest,
            payload_digest: block.payload_digest,
            payload_sha1: block.payload_sha1,
            truncated,
            warcinfo: None,
            trailer,
        }
    }

    /// Consumes the CRLF CRLF after a WARC block (LF LF too); whether it was there.
    fn trailer(&mut self) -> bool {
        let Ok(bytes) = self.stream.peek(4, false) else {
            return false;
        };
        let n = if bytes.starts_with(b"\r\n\r\n") {
            4
        } else if bytes.starts_with(b"\n\n") {
            2
        } else {
            return false;
        };
        self.stream.consume(n);
        true
    }
}

impl Iterator for Records {
    type Item = Found;

    fn next(&mut self) -> Option<Found> {
        while self.queue.is_empty() && !self.done {
            self.step();
        }
        self.queue.pop_front()
    }
}

/// What starts at a record boundary.
enum Start {
    Warc,
    Arc,
    Other,
}

/// An ARC line as header fields.
fn arc_fields(arc: ArcLine) -> Fields {
    let mut fields = Fields::of(Vec::new());
    fields.date = parse_date(&arc.date);
    fields.content_type = Some(arc.content_type.clone());
    fields.ip_address = Some(arc.ip.clone());
    fields.target_uri = Some(arc.url.clone());
    fields.all = vec![
        ("URL".to_owned(), arc.url),
        ("IP-Address".to_owned(), arc.ip),
        ("Archive-Date".to_owned(), arc.date),
        ("Content-Type".to_owned(), arc.content_type),
        ("Archive-Length".to_owned(), arc.length.to_string()),
    ];
    fields
}

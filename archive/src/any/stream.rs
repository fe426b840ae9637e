//! A file's bytes as records see them: plain, or gzip members (RFC 1952) decompressed one after
//! another, with where each member starts, so that a record can be located in the file and a
//! damaged member skipped.

use std::collections::VecDeque;
use std::io::{self, Read};

use flate2::{Decompress, FlushDecompress, Status};

use super::buf::Window;

/// Decoded bytes produced at a time.
const OUT: usize = 256 * 1024;

/// Longest gzip file name or comment accepted in a member header.
const MAX_HEADER_TEXT: usize = 64 * 1024;

/// Why a gzip member could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GzipError {
    /// The bytes there do not start a gzip member (no `1f 8b 08` or reserved flags set).
    #[error("no gzip member header")]
    BadHeader,
    /// The compressed data is not valid deflate.
    #[error("bad deflate data: {0}")]
    BadDeflate(String),
    /// The member's CRC-32 or length does not match its data.
    #[error("gzip member fails its CRC-32 or length check")]
    BadTrailer,
    /// The file ends inside the member.
    #[error("the file ends inside a gzip member")]
    Cut,
}

/// Where a gzip member starts: in the file, and in the decoded stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Member {
    pub(crate) raw: u64,
    pub(crate) decoded: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// A member header is expected next.
    Start,
    Inflating,
    /// The current member ended; [`Stream::next_member`] goes on.
    Ended,
    /// The input ended between members.
    Eof,
    Failed,
}

/// The decoded bytes of a file with look-ahead; see the module docs.
pub(crate) struct Stream<R> {
    raw: Window<R>,
    gzip: Option<Gzip>,
}

struct Gzip {
    inflate: Decompress,
    crc: crc32fast::Hasher,
    size: u32,
    out: Vec<u8>,
    start: usize,
    end: usize,
    /// Decoded bytes produced since the start.
    produced: u64,
    state: State,
    /// Members whose start may still be asked for, oldest first.
    members: VecDeque<Member>,
    error: Option<GzipError>,
    /// Where the member header that failed starts, when the failure was in a header.
    header_failed: Option<u64>,
}

impl<R: Read> Stream<R> {
    /// Reads `input`, decompressing it when it starts with a gzip member.
    pub(crate) fn new(input: R) -> io::Result<Self> {
        let mut raw = Window::new(input, 0);
        let gzip = is_member_start(raw.peek(3)?).then(Gzip::new);
        Ok(Stream { raw, gzip })
    }

    /// Whether the file is gzip-compressed.
    pub(crate) fn is_gzip(&self) -> bool {
        self.gzip.is_some()
    }

    /// Where the member header that made the last [`GzipError`] starts, when a header did.
    pub(crate) fn header_failed(&self) -> Option<u64> {
        self.gzip.as_ref().and_then(|g| g.header_failed)
    }

    /// Bytes of the file consumed: where the next member starts once one has ended.
    pub(crate) fn raw_position(&self) -> u64 {
        self.raw.position()
    }

    /// Decoded bytes consumed.
    pub(crate) fn position(&self) -> u64 {
        match &self.gzip {
            Some(g) => g.produced - (g.end - g.start) as u64,
            None => self.raw.position(),
        }
    }

    /// The member holding decoded position `at` (the latest that starts at or before it).
    pub(crate) fn member_at(&self, at: u64) -> Option<Member> {
        let g = self.gzip.as_ref()?;
        g.members.iter().rev().find(|m| m.decoded <= at).copied()
    }

    /// Forgets members that start before the one holding `at`.
    pub(crate) fn forget_before(&mut self, at: u64) {
        if let Some(g) = &mut self.gzip {
            while g.members.len() > 1 && g.members[1].decoded <= at {
                g.members.pop_front();
            }
        }
    }

    /// Whether the current member ended exactly here (nothing of it left to read).
    pub(crate) fn at_member_end(&mut self) -> io::Result<bool> {
        let Some(g) = &mut self.gzip else {
            return Ok(false);
        };
        g.fill(&mut self.raw, 1, false)?;
        Ok(g.start == g.end && matches!(g.state, State::Ended | State::Eof))
    }

    /// At least `n` decoded bytes (fewer where the input ends or fails), without consuming them;
    /// `cross` goes on into the next member when the current one ends.
    pub(crate) fn peek(&mut self, n: usize, cross: bool) -> io::Result<&[u8]> {
        match &mut self.gzip {
            Some(g) => {
                g.fill(&mut self.raw, n, cross)?;
                Ok(&g.out[g.start..g.end])
            }
            None => self.raw.peek(n),
        }
    }

    pub(crate) fn consume(&mut self, n: usize) {
        match &mut self.gzip {
            Some(g) => g.start += n.min(g.end - g.start),
            None => self.raw.consume(n),
        }
    }

    /// After a [`GzipError`]: drops what is buffered and goes on at the next member header in the
    /// file. Returns the file offset where reading goes on, or `None` at the end of the file.
    pub(crate) fn resync(&mut self) -> io::Result<Option<u64>> {
        let Some(g) = &mut self.gzip else {
            return Ok(None);
        };
        g.start = g.end;
        g.error = None;
        g.header_failed = None;
        loop {
            let window = self.raw.available()?;
            if window.is_empty() {
                g.state = State::Eof;
                return Ok(None);
            }
            let Some(i) = memchr::memchr(0x1f, window) else {
                let n = window.len();
                self.raw.consume(n);
                continue;
            };
            self.raw.consume(i);
            if is_member_start(self.raw.peek(4)?) {
                g.state = State::Start;
                return Ok(Some(self.raw.position()));
            }
            self.raw.consume(1);
        }
    }
}

impl Gzip {
    fn new() -> Self {
        Gzip {
            inflate: Decompress::new(false),
            crc: crc32fast::Hasher::new(),
            size: 0,
            out: vec![0; OUT],
            start: 0,
            end: 0,
            produced: 0,
            state: State::Start,
            members: VecDeque::new(),
            error: None,
            header_failed: None,
        }
    }

    /// Decodes until `n` bytes are buffered, the member ends (unless `cross`) or the input ends.
    fn fill<R: Read>(&mut self, raw: &mut Window<R>, n: usize, cross: bool) -> io::Result<()> {
        while self.end - self.start < n {
            let step = match self.state {
                State::Start => {
                    let at = raw.position();
                    let result = self.header(raw);
                    if result.is_err() {
                        self.header_failed = Some(at);
                    }
                    result
                }
                State::Inflating => self.inflate(raw),
                State::Ended if cross => {
                    self.state = State::Start;
                    Ok(())
                }
                State::Ended | State::Eof => return Ok(()),
                State::Failed => Err(self.failed()),
            };
            // What was decoded before a failure is given out first, as before an end.
            if let Err(e) = step {
                return match self.end > self.start {
                    true => Ok(()),
                    false => Err(e),
                };
            }
        }
        Ok(())
    }

    fn fail(&mut self, error: GzipError) -> io::Error {
        self.state = State::Failed;
        self.error = Some(error);
        self.failed()
    }

    fn failed(&self) -> io::Error {
        let error = self.error.clone().unwrap_or(GzipError::Cut);
        io::Error::new(io::ErrorKind::InvalidData, error)
    }

    /// Reads a member header (RFC 1952 §2.3), or notes the end of the input.
    fn header<R: Read>(&mut self, raw: &mut Window<R>) -> io::Result<()> {
        let head = raw.peek(10)?;
        if head.is_empty() {
            self.state = State::Eof;
            return Ok(());
        }
        if !is_member_start(head) {
            return Err(self.fail(GzipError::BadHeader));
        }
        if head.len() < 10 {
            // The file ends inside this header: nothing after it to go on with.
            let n = head.len();
            raw.consume(n);
            return Err(self.fail(GzipError::Cut));
        }
        let flags = head[3];
        let start = raw.position();
        raw.consume(10);
        if flags & 0x04 != 0 {
            let len = raw.peek(2)?;
            if len.len() < 2 {
                return Err(self.fail(GzipError::Cut));
            }
            let extra = u16::from_le_bytes([len[0], len[1]]) as usize;
            raw.consume(2);
            if raw.peek(extra)?.len() < extra {
                return Err(self.fail(GzipError::Cut));
            }
            raw.consume(extra);
        }
        for flag in [0x08, 0x10] {
            if flags & flag != 0 {
                self.skip_text(raw)?;
            }
        }
        if flags & 0x02 != 0 {
            if raw.peek(2)?.len() < 2 {
                return Err(self.fail(GzipError::Cut));
            }
            raw.consume(2);
        }
        self.inflate.reset(false);
        self.crc = crc32fast::Hasher::new();
        self.size = 0;
        self.state = State::Inflating;
        self.members.push_back(Member {
            raw: start,
            decoded: self.produced,
        });
        Ok(())
    }

    /// Skips a zero-terminated file name or comment.
    fn skip_text<R: Read>(&mut self, raw: &mut Window<R>) -> io::Result<()> {
        let mut seen = 0;
        loop {
            let window = raw.available()?;
            if window.is_empty() || seen > MAX_HEADER_TEXT {
                return Err(self.fail(GzipError::BadHeader));
            }
            if let Some(i) = memchr::memchr(0, window) {
                raw.consume(i + 1);
                return Ok(());
            }
            seen += window.len();
            let n = window.len();
            raw.consume(n);
        }
    }

    /// Inflates one step into the free end of the output buffer.
    fn inflate<R: Read>(&mut self, raw: &mut Window<R>) -> io::Result<()> {
        if self.start > 0 && self.start == self.end {
            (self.start, self.end) = (0, 0);
        } else if self.end == self.out.len() {
            self.out.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            if self.end == self.out.len() {
                self.out.resize(self.out.len() * 2, 0);
            }
        }
        let input = raw.available()?;
        if input.is_empty() {
            return Err(self.fail(GzipError::Cut));
        }
        let (before_in, before_out) = (self.inflate.total_in(), self.inflate.total_out());
        let status =
            self.inflate
                .decompress(input, &mut self.out[self.end..], FlushDecompress::None);
        let status = match status {
            Ok(s) => s,
            Err(e) => return Err(self.fail(GzipError::BadDeflate(e.to_string()))),
        };
        let used = (self.inflate.total_in() - before_in) as usize;
        let made = (self.inflate.total_out() - before_out) as usize;
        raw.consume(used);
        self.crc.update(&self.out[self.end..self.end + made]);
        self.size = self.size.wrapping_add(made as u32);
        self.end += made;
        self.produced += made as u64;
        if status == Status::StreamEnd {
            return self.trailer(raw);
        }
        if used == 0 && made == 0 {
            // Inflate wants more input than the window holds: it has all there is.
            return Err(self.fail(GzipError::Cut));
        }
        Ok(())
    }

    /// Checks the CRC-32 and length that end a member (RFC 1952 §2.3.1).
    fn trailer<R: Read>(&mut self, raw: &mut Window<R>) -> io::Result<()> {
        let t = raw.peek(8)?;
        if t.len() < 8 {
            return Err(self.fail(GzipError::Cut));
        }
        let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        let size = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
        raw.consume(8);
        let ours = std::mem::take(&mut self.crc).finalize();
        if crc != ours || size != self.size {
            return Err(self.fail(GzipError::BadTrailer));
        }
        self.state = State::Ended;
        Ok(())
    }
}

/// Whether `bytes` start a gzip member: ID1 ID2, CM = deflate, no reserved flag bits.
pub(crate) fn is_member_start(bytes: &[u8]) -> bool {
    bytes.len() >= 3
        && bytes[..3] == [0x1f, 0x8b, 0x08]
        && bytes.get(3).is_none_or(|f| f & 0xe0 == 0)
}

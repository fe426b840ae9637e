//! Chunked transfer-coding (RFC 9112 §7.1) removed as bytes arrive, for the payload digest's
//! second reading and for text extraction. A body that claims to be chunked but is not (some
//! producers remove the coding and keep the header) passes through as it is, from the first
//! byte that does not fit, as pywb's reader does.

use std::io::{self, Read};

/// Longest chunk-size line (with extensions) or trailer line kept.
const MAX_LINE: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Reading a chunk-size line.
    Size,
    /// Inside chunk data, this many bytes left.
    Data(u64),
    /// After chunk data: the CRLF that ends it.
    DataEnd,
    /// Trailer lines after the last chunk, until an empty one.
    Trailer,
    Done,
    /// Not chunked after all: everything from here passes through.
    Raw,
}

/// A push decoder: [`Dechunk::feed`] the coded bytes, get the body bytes.
#[derive(Clone, Debug)]
pub(crate) struct Dechunk {
    state: State,
    line: Vec<u8>,
}

impl Default for Dechunk {
    fn default() -> Self {
        Dechunk {
            state: State::Size,
            line: Vec::new(),
        }
    }
}

impl Dechunk {
    /// Whether the last chunk and the trailer were read.
    pub(crate) fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Decodes `input`, giving body bytes to `out` in order.
    pub(crate) fn feed(&mut self, mut input: &[u8], out: &mut impl FnMut(&[u8])) {
        while !input.is_empty() {
            match self.state {
                State::Raw => {
                    out(input);
                    return;
                }
                State::Done => return,
                State::Data(left) => {
                    let n = (left.min(input.len() as u64)) as usize;
                    out(&input[..n]);
                    input = &input[n..];
                    self.state = if left == n as u64 {
                        State::DataEnd
                    } else {
                        State::Data(left - n as u64)
                    };
                }
                State::DataEnd => match input[0] {
                    b'\r' => input = &input[1..],
                    b'\n' => {
                        input = &input[1..];
                        self.state = State::Size;
                    }
                    _ => self.raw(&[], &mut input, out),
                },
                State::Size | State::Trailer => {
                    let Some(i) = memchr::memchr(b'\n', input) else {
                        self.keep(input, out);
                        return;
                    };
                    self.keep(&input[..i], out);
                    input = &input[i + 1..];
                    if self.state == State::Raw {
                        out(b"\n");
                    } else {
                        self.line_done(&mut input, out);
                    }
                }
            }
        }
    }

    /// Keeps part of a line; a line too long to be a chunk-size line is not chunked coding.
    fn keep(&mut self, part: &[u8], out: &mut impl FnMut(&[u8])) {
        self.line.extend_from_slice(part);
        if self.line.len() > MAX_LINE {
            let line = std::mem::take(&mut self.line);
            self.raw(&line, &mut &b""[..], out);
        }
    }

    fn line_done(&mut self, input: &mut &[u8], out: &mut impl FnMut(&[u8])) {
        let line = std::mem::take(&mut self.line);
        let text = line.strip_suffix(b"\r").unwrap_or(&line);
        if self.state == State::Trailer {
            if text.is_empty() {
                self.state = State::Done;
            }
            return;
        }
        let digits = text.split(|&b| b == b';').next().unwrap_or_default();
        let digits = std::str::from_utf8(digits).unwrap_or("").trim();
        match u64::from_str_radix(digits, 16) {
            Ok(0) => self.state = State::Trailer,
            Ok(size) => self.state = State::Data(size),
            Err(_) => {
                let mut whole = line;
                whole.push(b'\n');
                self.raw(&whole, input, out);
            }
        }
    }

    /// Gives up on the coding: `held` (bytes already taken) and the rest pass through.
    fn raw(&mut self, held: &[u8], input: &mut &[u8], out: &mut impl FnMut(&[u8])) {
        self.state = State::Raw;
        if !held.is_empty() {
            out(held);
        }
        out(input);
        *input = &[];
    }
}

/// A reader of the body inside a chunked reader.
pub(crate) struct ChunkedReader<R> {
    inner: R,
    decoder: Dechunk,
    buf: Vec<u8>,
    pos: usize,
    input: Vec<u8>,
}

impl<R: Read> ChunkedReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        ChunkedReader {
            inner,
            decoder: Dechunk::default(),
            buf: Vec::new(),
            pos: 0,
            input: vec![0; 64 * 1024],
        }
    }
}

impl<R: Read> Read for ChunkedReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.buf.len() {
            if self.decoder.is_done() {
                return Ok(0);
            }
            let n = self.inner.read(&mut self.input)?;
            if n == 0 {
                return Ok(0);
            }
            self.buf.clear();
            self.pos = 0;
            let buf = &mut self.buf;
            self.decoder
                .feed(&self.input[..n], &mut |b| buf.extend_from_slice(b));
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dechunk(input: &[u8], step: usize) -> (Vec<u8>, bool) {
        let mut d = Dechunk::default();
        let mut out = Vec::new();
        for part in input.chunks(step) {
            d.feed(part, &mut |b| out.extend_from_slice(b));
        }
        (out, d.is_done())
    }

    #[test]
    fn chunks_in_any_split() {
        let coded = b"5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: y\r\n\r\n";
        for step in 1..coded.len() {
            assert_eq!(dechunk(coded, step), (b"hello world".to_vec(), true));
        }
        let mut reader = ChunkedReader::new(&coded[..]);
        let mut out = String::new();
        reader.read_to_string(&mut out).unwrap();
        assert_eq!(out, "hello world");
    }

    #[test]
    fn not_chunked_passes_through() {
        assert_eq!(
            dechunk(b"<html>hi</html>\n", 3),
            (b"<html>hi</html>\n".to_vec(), false)
        );
        assert_eq!(dechunk(b"3\r\nabcXYZ", 2), (b"abcXYZ".to_vec(), false));
    }
}

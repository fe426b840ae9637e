//! A read buffer that can look ahead a few bytes across refills, and counts what it consumed.

use std::io::{self, Read};

/// Bytes read at a time.
const CHUNK: usize = 256 * 1024;

/// Buffered input with look-ahead: [`Window::peek`] returns at least `n` bytes unless the input
/// ends first, which `BufRead::fill_buf` cannot promise once its buffer is nearly consumed.
pub(crate) struct Window<R> {
    input: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// Bytes consumed since the start of the input.
    position: u64,
}

impl<R: Read> Window<R> {
    pub(crate) fn new(input: R, position: u64) -> Self {
        Window {
            input,
            buf: vec![0; CHUNK],
            start: 0,
            end: 0,
            eof: false,
            position,
        }
    }

    /// Bytes consumed so far (plus the starting position given to [`Window::new`]).
    pub(crate) fn position(&self) -> u64 {
        self.position
    }

    /// What is buffered, refilled when empty; empty only at the end of the input.
    pub(crate) fn available(&mut self) -> io::Result<&[u8]> {
        if self.start == self.end {
            self.refill()?;
        }
        Ok(&self.buf[self.start..self.end])
    }

    /// At least `n` bytes (fewer only where the input ends), without consuming them.
    pub(crate) fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        while self.end - self.start < n && !self.eof {
            self.refill()?;
        }
        Ok(&self.buf[self.start..self.end])
    }

    pub(crate) fn consume(&mut self, n: usize) {
        let n = n.min(self.end - self.start);
        self.start += n;
        self.position += n as u64;
    }

    /// Reads more after what is buffered, moving it to the front first.
    fn refill(&mut self) -> io::Result<()> {
        if self.eof {
            return Ok(());
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that gives one byte per call, the worst case for look-ahead.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.split_first() {
                Some((b, rest)) if !buf.is_empty() => {
                    buf[0] = *b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn peeks_across_refills_and_counts() {
        let mut w = Window::new(Trickle(b"abcdef"), 10);
        assert_eq!(w.peek(4).unwrap(), b"abcd");
        w.consume(3);
        assert_eq!(w.position(), 13);
        assert_eq!(w.peek(10).unwrap(), b"def");
        w.consume(3);
        assert!(w.available().unwrap().is_empty());
    }
}

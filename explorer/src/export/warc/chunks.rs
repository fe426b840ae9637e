//! The bytes of an export handed on in chunks as they are written: a [`Write`] over a `send`
//! that says whether the client still listens.

use std::io::{self, Write};

/// Bytes gathered before they are handed on.
const CHUNK: usize = 64 * 1024;

/// Writes into chunks of 64 KiB handed to `send`; a `send` that returns `false` (the
/// client went away) fails the write with [`io::ErrorKind::BrokenPipe`].
pub struct Chunks<F: FnMut(Vec<u8>) -> bool> {
    buf: Vec<u8>,
    send: F,
    written: u64,
}

impl<F: FnMut(Vec<u8>) -> bool> Chunks<F> {
    /// Chunks handed to `send`.
    pub fn new(send: F) -> Chunks<F> {
        Chunks {
            buf: Vec::with_capacity(CHUNK),
            send,
            written: 0,
        }
    }

    /// Bytes written so far: the offset of the next byte.
    pub fn position(&self) -> u64 {
        self.written
    }

    fn hand_on(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
        match (self.send)(chunk) {
            true => Ok(()),
            false => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the client went away",
            )),
        }
    }
}

impl<F: FnMut(Vec<u8>) -> bool> Write for Chunks<F> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        // The buffer is handed on as soon as it is full: there is always room.
        let n = bytes.len().min(CHUNK - self.buf.len());
        self.buf.extend_from_slice(&bytes[..n]);
        self.written += n as u64;
        if self.buf.len() >= CHUNK {
            self.hand_on()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.hand_on()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_bounded_and_a_gone_client_fails_the_write() {
        let mut sizes = Vec::new();
        let mut c = Chunks::new(|chunk: Vec<u8>| {
            sizes.push(chunk.len());
            true
        });
        c.write_all(&vec![7; 3 * CHUNK + 5]).unwrap();
        c.flush().unwrap();
        assert_eq!(c.position(), 3 * CHUNK as u64 + 5);
        drop(c);
        assert_eq!(sizes, [CHUNK, CHUNK, CHUNK, 5]);
        let mut gone = Chunks::new(|_| false);
        let e = gone.write_all(&vec![0; CHUNK]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }
}

//! gzip members (RFC 1952). A member of at most [`small::MAX_INPUT`] bytes is deflated whole
//! by [`small`] (or stored in one block); a larger one streams through zlib-rs deflate states
//! kept across records, one per [`Compression`] level and reset between members. A fresh
//! state allocates and clears some 300 KB: with one member per record, an archive of many
//! small records spent a fifth of its time on that.

use std::io::{self, Write};

use crc32fast::Hasher as Crc;
use flate2::{Compress, FlushCompress, Status};

use super::compress::Compression;
use super::small;

/// Deflated bytes gathered before they are written on.
const OUT_CHUNK: usize = 64 * 1024;

/// The deflate states of one writer and the output buffer they share.
#[derive(Default)]
pub(crate) struct Deflaters {
    fast: Option<Compress>,
    stored: Option<Compress>,
    out: Vec<u8>,
    /// The member's bytes while they are few enough for [`small`].
    held: Vec<u8>,
    /// [`small`]'s hash table.
    table: Vec<u16>,
}

impl std::fmt::Debug for Deflaters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deflaters").finish_non_exhaustive()
    }
}

impl Deflaters {
    /// Writes one gzip member to `out` holding what `write_block` writes, with the header
    /// flate2's `GzBuilder` writes (mtime 0, XFL 4, OS 255).
    pub(crate) fn member(
        &mut self,
        level: Compression,
        out: &mut dyn Write,
        write_block: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let slot = match level {
            Compression::Fast => &mut self.fast,
            Compression::Stored => &mut self.stored,
        };
        // Taken for the member and put back reset once it ends well: a member cut short by an
        // error drops its state mid-stream, and the next member starts a fresh one.
        let mut z = slot
            .take()
            .unwrap_or_else(|| Compress::new(level.level(), false));
        self.out.clear();
        self.out.reserve(OUT_CHUNK);
        self.out
            .extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255]);
        self.held.clear();
        let mut member = Member {
            level,
            z: &mut z,
            out,
            buf: &mut self.out,
            held: Some(&mut self.held),
            table: &mut self.table,
            crc: Crc::new(),
            len: 0,
        };
        write_block(&mut member)?;
        if member.finish()? {
            z.reset();
        }
        *slot = Some(z);
        Ok(())
    }
}

/// The deflate body of one member being written: a small record leaves in one write.
struct Member<'a> {
    level: Compression,
    z: &'a mut Compress,
    out: &'a mut dyn Write,
    buf: &'a mut Vec<u8>,
    /// The bytes taken so far, until they outgrow [`small::MAX_INPUT`] and go to `z`.
    held: Option<&'a mut Vec<u8>>,
    table: &'a mut Vec<u16>,
    crc: Crc,
    /// Bytes taken, for the trailer's ISIZE.
    len: u32,
}

impl Member<'_> {
    /// Deflates what of `input` fits into the buffer; the bytes of `input` taken and the status.
    fn step(&mut self, input: &[u8], flush: FlushCompress) -> io::Result<(usize, Status)> {
        if self.buf.capacity() - self.buf.len() < OUT_CHUNK / 4 {
            self.drain()?;
        }
        let before = self.z.total_in();
        let status = self
            .z
            .compress_vec(input, self.buf, flush)
            .map_err(io::Error::other)?;
        Ok(((self.z.total_in() - before) as usize, status))
    }

    fn drain(&mut self) -> io::Result<()> {
        self.out.write_all(self.buf)?;
        self.buf.clear();
        Ok(())
    }

    /// Deflates all of `input` into `z`, writing the buffer on as it fills.
    fn stream(&mut self, mut input: &[u8]) -> io::Result<()> {
        while !input.is_empty() {
            let (used, _) = self.step(input, FlushCompress::None)?;
            if used == 0 {
                // No room for output: write the buffer on and go again.
                self.drain()?;
            }
            input = &input[used..];
        }
        Ok(())
    }

    /// Ends the deflate stream, adds the trailer (CRC-32, size mod 2^32) and writes it all on;
    /// whether `z` was used (and needs a reset).
    fn finish(mut self) -> io::Result<bool> {
        let streamed = match self.held.take() {
            Some(held) => {
                match self.level {
                    Compression::Fast => small::deflate(held, self.table, self.buf),
                    Compression::Stored => small::store(held, self.buf),
                }
                false
            }
            None => {
                while self.step(&[], FlushCompress::Finish)?.1 != Status::StreamEnd {
                    self.drain()?;
                }
                true
            }
        };
        // CRC-32 and the size modulo 2^32 (RFC 1952's ISIZE).
        let trailer = [self.crc.clone().finalize(), self.len];
        for word in trailer {
            self.buf.extend_from_slice(&word.to_le_bytes());
        }
        self.drain()?;
        Ok(streamed)
    }
}

impl Write for Member<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        match &mut self.held {
            Some(held) if held.len() + data.len() <= small::MAX_INPUT => {
                held.extend_from_slice(data)
            }
            Some(_) => {
                // Too large for `small`: what was held goes to zlib-rs first.
                let held = self.held.take().expect("held");
                self.stream(held)?;
                self.stream(data)?;
            }
            None => self.stream(data)?,
        }
        self.crc.update(data);
        self.len = self.len.wrapping_add(data.len() as u32);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use flate2::read::{GzDecoder, MultiGzDecoder};
    use flate2::GzBuilder;

    use super::*;

    fn varied(n: usize, seed: u32) -> Vec<u8> {
        (0..n as u32)
            .map(|i| ((i ^ seed).wrapping_mul(2_654_435_761) >> 24) as u8 % 7 + b'a')
            .collect()
    }

    /// The bytes of exactly one gzip member, checked by flate2's decoder (CRC and size).
    fn decode_one(member: &[u8]) -> Vec<u8> {
        let mut d = GzDecoder::new(member);
        let mut plain = Vec::new();
        d.read_to_end(&mut plain).unwrap();
        assert!(d.into_inner().is_empty(), "nothing after the member");
        plain
    }

    fn gzbuilder_header() -> Vec<u8> {
        let mut gz = GzBuilder::new().write(Vec::new(), Compression::Fast.level());
        gz.write_all(b"").unwrap();
        gz.finish().unwrap()[..10].to_vec()
    }

    #[test]
    fn members_decode_to_what_was_written_with_states_reused() {
        let mut d = Deflaters::default();
        let big = varied(700_000, 1); // beyond the output buffer, deflated or stored
        let text = b"WARC/1.1\r\nWARC-Type: resource\r\n\r\nhello".repeat(50);
        let cases: Vec<(Compression, Vec<&[u8]>)> = vec![
            (Compression::Fast, vec![&text, b"\r\n\r\n"]),
            (Compression::Stored, vec![&big, b"\r\n\r\n"]),
            (Compression::Fast, vec![&big[..100_000], &big[100_000..]]),
            (Compression::Fast, vec![b"", b"x"]),
            (Compression::Stored, vec![b"tiny"]),
            (Compression::Fast, vec![&text]),
        ];
        let mut archive = Vec::new();
        let mut plain = Vec::new();
        for (level, parts) in &cases {
            let mut one = Vec::new();
            d.member(*level, &mut one, |w| {
                parts.iter().try_for_each(|p| w.write_all(p))
            })
            .unwrap();
            assert_eq!(one[..10], gzbuilder_header()[..], "{level:?}");
            let want = parts.concat();
            assert!(decode_one(&one) == want, "{level:?}: the member's bytes");
            if *level == Compression::Stored {
                assert!(one.len() > want.len(), "stored, not deflated");
            }
            archive.extend_from_slice(&one);
            plain.extend_from_slice(&want);
        }
        let mut back = Vec::new();
        MultiGzDecoder::new(&archive[..])
            .read_to_end(&mut back)
            .unwrap();
        assert!(back == plain, "all members decode to what was written");
    }

    #[test]
    fn large_members_are_what_gzbuilder_writes() {
        let mut d = Deflaters::default();
        for n in [small::MAX_INPUT + 1, 20_000, 200_000] {
            let block = varied(n, 3);
            let mut one = Vec::new();
            d.member(Compression::Fast, &mut one, |w| w.write_all(&block))
                .unwrap();
            let mut gz = GzBuilder::new().write(Vec::new(), Compression::Fast.level());
            gz.write_all(&block).unwrap();
            assert!(one == gz.finish().unwrap(), "{n} bytes");
        }
    }

    #[test]
    fn small_members_decode_whatever_the_writes_and_levels() {
        let mut d = Deflaters::default();
        for n in [0, 1, 500, small::MAX_INPUT - 1, small::MAX_INPUT] {
            let block = varied(n, 4);
            for level in [Compression::Fast, Compression::Stored] {
                let mut one = Vec::new();
                d.member(level, &mut one, |w| {
                    block.chunks(300).try_for_each(|c| w.write_all(c))
                })
                .unwrap();
                assert!(decode_one(&one) == block, "{n} bytes, {level:?}");
                if level == Compression::Stored {
                    assert_eq!(one.len(), n + 10 + 5 + 8, "one stored block");
                } else {
                    let mut gz = GzBuilder::new().write(Vec::new(), level.level());
                    gz.write_all(&block).unwrap();
                    let zlib = gz.finish().unwrap().len();
                    assert!(
                        one.len() * 100 <= zlib * 105,
                        "{n} bytes: {} vs {zlib}",
                        one.len()
                    );
                }
            }
        }
    }

    #[test]
    fn a_member_cut_by_an_error_leaves_the_next_one_whole() {
        let mut d = Deflaters::default();
        let mut sink = Vec::new();
        let err = d
            .member(Compression::Fast, &mut sink, |w| {
                w.write_all(&varied(50_000, 2))?;
                Err(io::Error::other("the payload's spool failed"))
            })
            .unwrap_err();
        assert_eq!(err.to_string(), "the payload's spool failed");
        let mut next = Vec::new();
        d.member(Compression::Fast, &mut next, |w| w.write_all(b"after"))
            .unwrap();
        assert_eq!(decode_one(&next), b"after");
    }
}

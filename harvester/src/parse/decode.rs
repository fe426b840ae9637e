//! Base64 decoded as the text streams past (RFC 4648 §4, padded, canonical), with SIMD
//! (`base64-simd`, the crate the server encodes with).
//!
//! Whitespace anywhere is skipped (providers wrap lines at 76 characters, MIME style, or not at
//! all), `=` may only complete the last quantum, and the bytes come out in chunks of at most
//! 64 KiB whatever the size of the text, so only 0–3 characters of a quantum are carried between
//! pieces of text besides the chunk being filled.

use modoai_protocol::is_xml_char;

use super::ParseError;

/// Characters decoded at once: 21,845 quanta, 65,535 bytes.
const CHUNK_CHARS: usize = 4 * (64 * 1024 / 3);

/// Receives decoded bytes, with the position the text has reached.
pub(crate) type Emit<'a> = dyn FnMut(&[u8], u64) -> Result<(), ParseError> + 'a;

/// Decodes the Base64 text of one element, piece by piece.
pub(crate) struct Base64Decoder {
    /// Characters not decoded yet, `=` included: fewer than [`CHUNK_CHARS`] plus the padding.
    chars: Vec<u8>,
    decoded: Vec<u8>,
    /// How many `=` have been read.
    padding: usize,
    /// Where the last quantum that `chars` does not complete starts, for errors at the end.
    quantum: u64,
}

impl Base64Decoder {
    pub(crate) fn new() -> Self {
        Base64Decoder {
            // Up to two `=` follow the characters of an unfinished chunk.
            chars: Vec::with_capacity(CHUNK_CHARS + 2),
            decoded: Vec::with_capacity(CHUNK_CHARS / 4 * 3),
            padding: 0,
            quantum: 0,
        }
    }

    /// Takes Base64 text starting at byte `at` up to the first `<` or `&`, and returns how many
    /// bytes it took.
    pub(crate) fn feed(
        &mut self,
        text: &[u8],
        at: u64,
        emit: &mut Emit<'_>,
    ) -> Result<usize, ParseError> {
        let mut i = 0;
        while let Some(&byte) = text.get(i) {
            let here = at + i as u64;
            match byte {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'+' | b'/' => {
                    let run = alphabet_run(&text[i..]);
                    self.take(&text[i..i + run], here, emit)?;
                    i += run;
                    continue;
                }
                b' ' | b'\t' | b'\r' | b'\n' => {}
                b'=' => self.pad(here)?,
                b'<' | b'&' => return Ok(i),
                other => return Err(not_base64(other, here)),
            }
            i += 1;
        }
        Ok(text.len())
    }

    /// Like [`feed`](Self::feed) for text that must be Base64 to its end: CDATA content, the
    /// character a reference stands for.
    pub(crate) fn feed_all(
        &mut self,
        text: &[u8],
        at: u64,
        emit: &mut Emit<'_>,
    ) -> Result<(), ParseError> {
        let used = self.feed(text, at, emit)?;
        match text.get(used) {
            Some(&byte) => Err(not_base64(byte, at + used as u64)),
            None => Ok(()),
        }
    }

    /// The text ended at `at`: decodes the rest, which must end with a complete quantum.
    pub(crate) fn finish(&mut self, at: u64, emit: &mut Emit<'_>) -> Result<(), ParseError> {
        if !self.chars.len().is_multiple_of(4) {
            return Err(base64_error(
                self.quantum,
                "the last quantum is incomplete: Base64 is padded to a multiple of 4 characters",
            ));
        }
        self.decode(at, emit)
    }

    /// A run of alphabet characters.
    fn take(&mut self, mut run: &[u8], mut at: u64, emit: &mut Emit<'_>) -> Result<(), ParseError> {
        if self.padding > 0 {
            return Err(base64_error(at, "characters after the padding"));
        }
        let rest = (self.chars.len() + run.len()) % 4;
        if rest > 0 && rest <= run.len() {
            self.quantum = at + (run.len() - rest) as u64;
        }
        while !run.is_empty() {
            let n = run.len().min(CHUNK_CHARS - self.chars.len());
            self.chars.extend_from_slice(&run[..n]);
            (run, at) = (&run[n..], at + n as u64);
            if self.chars.len() == CHUNK_CHARS {
                self.decode(at, emit)?;
            }
        }
        Ok(())
    }

    /// One `=`: the last quantum is `xx==` or `xxx=`.
    fn pad(&mut self, at: u64) -> Result<(), ParseError> {
        let filled = self.chars.len() % 4;
        let fits = match self.padding {
            0 => filled >= 2,
            1 => filled == 3,
            _ => false,
        };
        if !fits {
            return Err(base64_error(at, "misplaced padding `=`"));
        }
        self.padding += 1;
        self.chars.push(b'=');
        Ok(())
    }

    fn decode(&mut self, at: u64, emit: &mut Emit<'_>) -> Result<(), ParseError> {
        self.decoded.clear();
        let decoded = base64_simd::STANDARD.decode_append(&self.chars, &mut self.decoded);
        self.chars.clear();
        // Only the last quantum can fail: the others are four alphabet characters.
        decoded.map_err(|_| {
            base64_error(
                self.quantum,
                "the last quantum is not canonical Base64 (bits set after the data)",
            )
        })?;
        if self.decoded.is_empty() {
            return Ok(());
        }
        emit(&self.decoded, at)
    }
}

/// The length of the run of Base64 alphabet characters `text` starts with.
///
/// A table lookup per byte, eight bytes a step: a run is a line, or the whole file when the
/// provider does not wrap lines (a regex search ran at a third of this speed).
fn alphabet_run(text: &[u8]) -> usize {
    const ALPHABET: [bool; 256] = {
        let mut t = [false; 256];
        let mut i = 0;
        while i < 256 {
            let b = i as u8;
            t[i] = b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
            i += 1;
        }
        t
    };
    let mut chunks = text.chunks_exact(8);
    let mut n = 0;
    for c in &mut chunks {
        if !c
            .iter()
            .fold(true, |all, &b| all & ALPHABET[usize::from(b)])
        {
            break;
        }
        n += 8;
    }
    n + text[n..]
        .iter()
        .position(|&b| !ALPHABET[usize::from(b)])
        .unwrap_or(text.len() - n)
}

/// A byte that cannot be in Base64 text. A character XML forbids is reported as such, as it
/// would be anywhere else in the page.
fn not_base64(byte: u8, at: u64) -> ParseError {
    let character = char::from(byte);
    if byte.is_ascii() && !is_xml_char(character) {
        return ParseError::InvalidChar {
            character,
            position: at,
        };
    }
    let message = if byte.is_ascii() {
        format!("{character:?} is not a Base64 character")
    } else {
        format!("byte 0x{byte:02X} is not a Base64 character")
    };
    ParseError::Base64 {
        position: at,
        message,
    }
}

pub(crate) fn base64_error(position: u64, message: &str) -> ParseError {
    ParseError::Base64 {
        position,
        message: message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes `pieces` as consecutive text; the error position is the byte offset in their
    /// concatenation.
    fn decode(pieces: &[&str]) -> Result<Vec<u8>, ParseError> {
        let mut out = Vec::new();
        let mut emit = |bytes: &[u8], _: u64| {
            assert!(bytes.len() <= 64 * 1024);
            out.extend_from_slice(bytes);
            Ok(())
        };
        let mut decoder = Base64Decoder::new();
        let mut at = 0;
        for piece in pieces {
            decoder.feed_all(piece.as_bytes(), at, &mut emit)?;
            at += piece.len() as u64;
        }
        decoder.finish(at, &mut emit)?;
        Ok(out)
    }

    fn error_at(pieces: &[&str]) -> u64 {
        match decode(pieces) {
            Err(ParseError::Base64 { position, .. }) => position,
            other => panic!("{pieces:?}: {other:?}"),
        }
    }

    #[test]
    fn whitespace_and_splits_anywhere() {
        assert_eq!(decode(&["SGVs", "bG8="]).unwrap(), b"Hello");
        assert_eq!(
            decode(&["S", "G\r\n V", "sbG", "8", "\t=", " "]).unwrap(),
            b"Hello"
        );
        assert_eq!(decode(&["", " \n "]).unwrap(), b"");
        assert_eq!(decode(&["QQ", "=", "="]).unwrap(), b"A");
    }

    #[test]
    fn stops_at_markup() {
        let mut decoder = Base64Decoder::new();
        let used = decoder.feed(b"QUJD <x", 0, &mut |_, _| Ok(())).unwrap();
        assert_eq!(used, 5);
        assert_eq!(decoder.feed(b"&amp;", 5, &mut |_, _| Ok(())).unwrap(), 0);
    }

    #[test]
    fn bad_padding_and_length() {
        assert_eq!(
            error_at(&["QUJD", "Q"]),
            4,
            "incomplete: at the last quantum"
        );
        assert_eq!(error_at(&["QUJDQQ"]), 4, "padding is required");
        assert_eq!(error_at(&["QQ=", "Q"]), 3, "data after padding");
        assert_eq!(error_at(&["Q="]), 1, "padding too early");
        assert_eq!(error_at(&["QUJD="]), 4, "padding after a complete quantum");
        assert_eq!(error_at(&["QUI=="]), 4, "a third padding character");
        assert_eq!(error_at(&["QR=="]), 0, "non-zero trailing bits");
        assert_eq!(error_at(&["QU", "J", "-"]), 3, "outside the alphabet");
    }

    #[test]
    fn forbidden_characters_are_xml_errors() {
        let err = decode(&["QU\u{1}"]).unwrap_err();
        assert!(
            matches!(
                err,
                ParseError::InvalidChar {
                    character: '\u{1}',
                    position: 2
                }
            ),
            "{err:?}"
        );
        let err = decode(&["QU\u{e9}"]).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("byte 0xC3 is not a Base64 character"),
            "{err}"
        );
    }

    #[test]
    fn alphabet_runs_end_at_the_first_other_byte() {
        let line = "QUJDRGVm+/09".repeat(7);
        for cut in [0, 1, 7, 8, 9, 16, 40, line.len()] {
            for stop in [b'\n', b'=', b'<', b'-', 0xC3] {
                let mut text = line.as_bytes()[..cut].to_vec();
                text.push(stop);
                text.extend_from_slice(b"QUJD");
                assert_eq!(alphabet_run(&text), cut, "{cut} then {stop:#x}");
            }
            assert_eq!(alphabet_run(&line.as_bytes()[..cut]), cut);
        }
    }

    #[test]
    fn chunks_are_bounded() {
        use base64::Engine as _;
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let text = base64::engine::general_purpose::STANDARD.encode(&data);
        let mut chunks = Vec::new();
        let mut emit = |bytes: &[u8], _: u64| {
            chunks.push(bytes.to_vec());
            Ok(())
        };
        let mut decoder = Base64Decoder::new();
        for piece in text.as_bytes().chunks(8 * 1024) {
            decoder.feed_all(piece, 0, &mut emit).unwrap();
        }
        decoder.finish(0, &mut emit).unwrap();
        assert!(chunks.iter().all(|c| c.len() <= 64 * 1024));
        assert_eq!(chunks.concat(), data);
        assert_eq!(decoder.chars.capacity(), CHUNK_CHARS + 2);
        assert_eq!(decoder.decoded.capacity(), 65_535);
    }
}

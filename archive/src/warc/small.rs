//! Deflate (RFC 1951) for the small records that most items are: one block with the fixed
//! Huffman codes and greedy LZ77 over a hash table sized to the input.
//!
//! zlib-rs level 1 writes the same kind of block (fixed codes, one probe per position), but
//! starts every stream by clearing a 128 KiB hash table, and its lookups then miss the cache.
//! With one gzip member per record and records of about 1 KB, that clearing and those misses
//! were a sixth of a harvest's CPU. Here a record of `n` bytes clears a table of about `2n`
//! slots (8 KiB for a record of a kilobyte), which stays in the first-level cache. Larger records go to zlib-rs as before.

/// The largest input this encoder takes: table positions fit a `u16` and every match lies
/// within deflate's 32 KiB window.
pub(crate) const MAX_INPUT: usize = 16 * 1024;

/// Hash table bits for the largest input; smaller inputs use fewer.
const MAX_BITS: u32 = 14;

/// Deflates `input` (at most [`MAX_INPUT`] bytes) as one final fixed-Huffman block onto
/// `out`, using `table` for the match positions (grown and cleared as needed).
pub(crate) fn deflate(input: &[u8], table: &mut Vec<u16>, out: &mut Vec<u8>) {
    assert!(
        input.len() <= MAX_INPUT,
        "small::deflate takes at most {MAX_INPUT} bytes"
    );
    // About two slots a byte: fewer collisions pack as well as zlib-rs's 65,536 slots.
    let bits = (usize::BITS - input.len().leading_zeros() + 1).clamp(9, MAX_BITS);
    table.clear();
    table.resize(1 << bits, 0);
    // At most nine bits a byte, plus the block's header and end.
    out.reserve(input.len() + input.len() / 8 + 8);
    let mask = table.len() - 1;
    let mut w = Bits::new(out);
    // BFINAL = 1, BTYPE = 01 (fixed Huffman codes).
    w.put(0b011, 3);
    let n = input.len();
    let mut i = 0;
    while i + 4 <= n {
        let word = read_u32(input, i);
        let slot = (word.wrapping_mul(2_654_435_761) >> (32 - bits)) as usize & mask;
        // Positions are stored plus one: 0 is an empty slot.
        let seen = table[slot] as usize;
        table[slot] = (i + 1) as u16;
        if seen > 0 && read_u32(input, seen - 1) == word {
            let from = seen - 1;
            let len = 4 + common_prefix(&input[from + 4..], &input[i + 4..n.min(i + 258)]);
            w.put_match(len, i - from);
            i += len;
        } else {
            w.put_literal(input[i]);
            i += 1;
        }
    }
    for &byte in &input[i..] {
        w.put_literal(byte);
    }
    // End of block (symbol 256: seven zero bits), then the last partial byte.
    w.put(0, 7);
    w.finish();
}

fn read_u32(input: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(input[at..at + 4].try_into().expect("4 bytes"))
}

/// Writes `input` (at most [`MAX_INPUT`] bytes) onto `out` as one final stored block: BFINAL 1,
/// BTYPE 00, then LEN and its complement NLEN (RFC 1951 §3.2.4).
pub(crate) fn store(input: &[u8], out: &mut Vec<u8>) {
    assert!(
        input.len() <= MAX_INPUT,
        "small::store takes at most {MAX_INPUT} bytes"
    );
    let len = input.len() as u16;
    out.push(1);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(input);
}

/// How many leading bytes `a` and `b` share (at most `b.len()`).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let mut n = 0;
    while n + 8 <= b.len() {
        let x = u64::from_le_bytes(a[n..n + 8].try_into().expect("8 bytes"));
        let y = u64::from_le_bytes(b[n..n + 8].try_into().expect("8 bytes"));
        if x != y {
            return n + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + a[n..]
        .iter()
        .zip(&b[n..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Bits written least significant first, as deflate packs them.
struct Bits<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    len: u32,
}

impl<'a> Bits<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        Self {
            out,
            acc: 0,
            len: 0,
        }
    }

    /// Adds the `len` (at most 32) low bits of `value`.
    fn put(&mut self, value: u32, len: u32) {
        self.acc |= u64::from(value) << self.len;
        self.len += len;
        if self.len >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.len -= 32;
        }
    }

    /// A literal byte in the fixed code.
    fn put_literal(&mut self, byte: u8) {
        let (code, len) = FIXED[usize::from(byte)];
        self.put(u32::from(code), u32::from(len));
    }

    /// A length/distance pair (length 3–258, distance 1–32,768) with their extra bits.
    fn put_match(&mut self, len: usize, dist: usize) {
        let (symbol, extra_bits, extra) = length_code(len as u32);
        let (code, code_len) = FIXED[symbol as usize];
        self.put(
            u32::from(code) | extra << code_len,
            u32::from(code_len) + extra_bits,
        );
        let (code, extra_bits, extra) = distance_code(dist as u32);
        // Distance codes are five bits each, sent from their most significant bit.
        self.put(code.reverse_bits() >> 27 | extra << 5, 5 + extra_bits);
    }

    /// Writes the bits left, padded to a whole byte.
    fn finish(self) {
        let bytes = self.len.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.acc.to_le_bytes()[..bytes]);
    }
}

/// The fixed literal/length code (RFC 1951 §3.2.6) of each symbol, bit-reversed as deflate
/// sends codes from their most significant bit, and its length.
const FIXED: [(u16, u8); 288] = {
    let mut table = [(0, 0); 288];
    let mut symbol: u32 = 0;
    while symbol < 288 {
        let (code, len) = match symbol {
            0..=143 => (0x30 + symbol, 8),
            144..=255 => (0x190 + symbol - 144, 9),
            256..=279 => (symbol - 256, 7),
            _ => (0xc0 + symbol - 280, 8),
        };
        table[symbol as usize] = ((code.reverse_bits() >> (32 - len)) as u16, len as u8);
        symbol += 1;
    }
    table
};

/// The length symbol (257–285), its extra bit count and extra value for a match of `len`.
fn length_code(len: u32) -> (u32, u32, u32) {
    debug_assert!((3..=258).contains(&len));
    if len == 258 {
        return (285, 0, 0);
    }
    let x = len - 3;
    if x < 8 {
        return (257 + x, 0, 0);
    }
    // Four symbols per power of two, each with `log2(x) - 2` extra bits.
    let log = 31 - x.leading_zeros();
    let extra_bits = log - 2;
    let symbol = 257 + 4 * (log - 1) + ((x >> extra_bits) & 3);
    (symbol, extra_bits, x & ((1 << extra_bits) - 1))
}

/// The distance code (0–29), its extra bit count and extra value for a distance `dist`.
fn distance_code(dist: u32) -> (u32, u32, u32) {
    debug_assert!((1..=32_768).contains(&dist));
    let x = dist - 1;
    if x < 4 {
        return (x, 0, 0);
    }
    // Two codes per power of two, each with `log2(x) - 1` extra bits.
    let log = 31 - x.leading_zeros();
    let extra_bits = log - 1;
    let code = 2 * log + ((x >> extra_bits) & 1);
    (code, extra_bits, x & ((1 << extra_bits) - 1))
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use flate2::read::DeflateDecoder;

    use super::*;

    fn inflate(packed: &[u8]) -> Vec<u8> {
        let mut d = DeflateDecoder::new(packed);
        let mut plain = Vec::new();
        d.read_to_end(&mut plain).expect("a valid deflate stream");
        assert!(d.into_inner().is_empty(), "the block ends the stream");
        plain
    }

    fn zlib_size(input: &[u8]) -> usize {
        use std::io::Write;
        let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(input).unwrap();
        z.finish().unwrap().len()
    }

    /// Pseudo-random bytes over an alphabet of `spread` symbols, with runs copied from
    /// earlier in the input every so often.
    fn sample(seed: u64, n: usize, spread: u8) -> Vec<u8> {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut v = Vec::with_capacity(n);
        while v.len() < n {
            let r = next();
            if r % 5 == 0 && v.len() > 10 {
                let from = (r >> 8) as usize % v.len();
                let len = ((r >> 32) as usize % 300).min(n - v.len());
                for k in 0..len {
                    let byte = v[from + k % (v.len() - from)];
                    v.push(byte);
                }
            } else {
                v.push(b' '.wrapping_add((r >> 40) as u8 % spread.max(1)));
            }
        }
        v
    }

    #[test]
    fn codes_follow_the_tables_of_rfc_1951() {
        const LBASE: [u32; 29] = [
            3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99,
            115, 131, 163, 195, 227, 258,
        ];
        const LEXT: [u32; 29] = [
            0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
        ];
        for len in 3..=258 {
            let i = LBASE.iter().rposition(|&b| b <= len).unwrap();
            let want = (257 + i as u32, LEXT[i], len - LBASE[i]);
            assert_eq!(length_code(len), want, "length {len}");
        }
        const DBASE: [u32; 30] = [
            1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025,
            1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
        ];
        for dist in 1..=32_768 {
            let i = DBASE.iter().rposition(|&b| b <= dist).unwrap();
            let extra = if i < 4 { 0 } else { i as u32 / 2 - 1 };
            assert_eq!(
                distance_code(dist),
                (i as u32, extra, dist - DBASE[i]),
                "distance {dist}"
            );
        }
    }

    #[test]
    fn every_input_inflates_back_and_packs_about_as_well_as_zlib_level_1() {
        let mut table = Vec::new();
        let mut edges = vec![
            Vec::new(),
            b"a".to_vec(),
            b"abcd".to_vec(),
            b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".to_vec(),
            vec![0; MAX_INPUT],
            (0..=255u8).cycle().take(MAX_INPUT).collect(),
            b"WARC/1.1\r\nWARC-Type: metadata\r\n".repeat(600)[..MAX_INPUT].to_vec(),
        ];
        for seed in 0..600u64 {
            let n = [0, 3, 5, 31, 700, 1100, 4000, MAX_INPUT][seed as usize % 8];
            edges.push(sample(seed, n, [2, 26, 95, 255][seed as usize % 4]));
        }
        let (mut ours, mut zlib) = (0, 0);
        for input in &edges {
            let mut out = Vec::new();
            deflate(input, &mut table, &mut out);
            assert!(
                inflate(&out) == *input,
                "{} bytes inflate back",
                input.len()
            );
            ours += out.len();
            zlib += zlib_size(input);
        }
        assert!(
            ours * 100 <= zlib * 103,
            "{ours} bytes here, {zlib} from zlib-rs level 1"
        );
    }

    #[test]
    #[should_panic(expected = "at most")]
    fn a_larger_input_is_refused() {
        deflate(&vec![0; MAX_INPUT + 1], &mut Vec::new(), &mut Vec::new());
    }
}

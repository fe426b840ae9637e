//! SHA-1 digests in the WARC de-facto form: `sha1:` + RFC 4648 Base32, uppercase, unpadded.

use sha1::{Digest as _, Sha1};

/// The digest of the empty byte string, as pywb's `EMPTY_DIGEST`.
pub const EMPTY_SHA1: &str = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ";

/// A running SHA-1 over bytes that also counts them.
#[derive(Clone, Default)]
pub struct Hasher {
    sha1: Sha1,
    len: u64,
}

impl Hasher {
    /// A hasher that has seen no bytes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds `bytes` into the digest.
    pub fn update(&mut self, bytes: &[u8]) {
        self.sha1.update(bytes);
        self.len += bytes.len() as u64;
    }

    /// How many bytes were fed so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether no byte was fed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The digest as `sha1:BASE32`.
    pub fn finish(self) -> String {
        format!("sha1:{}", base32(&self.sha1.finalize()))
    }
}

impl std::fmt::Debug for Hasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hasher").field("len", &self.len).finish()
    }
}

/// `sha1:BASE32` of `bytes`.
pub fn sha1_digest(bytes: &[u8]) -> String {
    let mut h = Hasher::new();
    h.update(bytes);
    h.finish()
}

/// RFC 4648 §6 Base32 without padding; 20 bytes of SHA-1 give exactly 32 characters.
pub fn base32(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in bytes {
        acc = (acc << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((acc >> bits) & 31) as usize]));
        }
        acc &= (1 << bits) - 1;
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((acc << (5 - bits)) & 31) as usize]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "MY"),
            ("fo", "MZXQ"),
            ("foo", "MZXW6"),
            ("foob", "MZXW6YQ"),
            ("fooba", "MZXW6YTB"),
            ("foobar", "MZXW6YTBOI"),
        ];
        for (input, want) in cases {
            assert_eq!(base32(input.as_bytes()), want, "{input:?}");
        }
    }

    #[test]
    fn warc_digest_vectors() {
        assert_eq!(sha1_digest(b""), EMPTY_SHA1);
        assert_eq!(
            sha1_digest(b"hello\n"),
            "sha1:6VZNHFX25EQGMKDRJ6ZM4AHXF2KPEJMP"
        );
        assert_eq!(sha1_digest(b"abc"), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
        assert_eq!(
            sha1_digest(b"<html><body>Hello OAI-PMH world</body></html>\n"),
            "sha1:P76CQJTARBRT3ZRVRCLU2SRK4GJ5OQOI"
        );
    }

    #[test]
    fn hasher_counts_and_chunks_agree() {
        let mut h = Hasher::new();
        assert!(h.is_empty());
        h.update(b"hel");
        h.update(b"lo\n");
        assert_eq!(h.len(), 6);
        assert_eq!(h.finish(), sha1_digest(b"hello\n"));
    }
}

//! Block and payload digests (`WARC-Block-Digest`, `WARC-Payload-Digest`): `sha1:` in Base32 (the
//! de-facto form) or Base16, `sha256:` and `md5:`, checked as the bytes stream by.

use md5::Md5;
use serde::{Deserialize, Serialize};
use sha1::{Digest as _, Sha1};
use sha2::Sha256;

use crate::warc::base32;

/// A hash function a digest field may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// SHA-1 (`sha1`, `sha-1`): what Heritrix, wget, warcio and pywb write.
    Sha1,
    /// SHA-256 (`sha256`, `sha-256`).
    Sha256,
    /// MD5 (`md5`).
    Md5,
}

/// A digest field's value: `ALGORITHM:VALUE`, the value in Base32 or Base16.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    /// As written.
    pub text: String,
    /// The hash function, if this reader knows it.
    pub algorithm: Option<Algorithm>,
    /// The decoded value; empty when it is neither Base32 nor Base16 of the right length.
    pub value: Vec<u8>,
}

/// What checking one digest field found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DigestCheck {
    /// The record has no such field.
    Absent,
    /// The bytes match.
    Passed,
    /// The payload matches once chunked transfer-coding is removed (producers disagree on which
    /// bytes the payload digest covers; both readings are accepted).
    PassedDechunked,
    /// The bytes do not match; `computed` is their digest in the field's form.
    Failed {
        /// The digest of the bytes read, as `sha1:BASE32`, `sha256:hex` or `md5:hex`.
        computed: String,
    },
    /// An algorithm this reader does not know, or a value it cannot decode.
    Unsupported,
    /// Not checked: a revisit's payload digest names another record's payload, and a truncated
    /// or cut record lacks bytes.
    NotChecked,
}

impl DigestCheck {
    /// Whether the check found a mismatch.
    pub fn is_failed(&self) -> bool {
        matches!(self, DigestCheck::Failed { .. })
    }
}

impl Digest {
    /// Parses a digest field's value; never fails (an unknown form leaves `algorithm` or `value`
    /// empty, and its check is [`DigestCheck::Unsupported`]).
    pub fn parse(text: &str) -> Digest {
        let text = text.trim();
        let (label, value) = text.split_once(':').unwrap_or(("sha1", text));
        let algorithm = match label.to_ascii_lowercase().replace('-', "").as_str() {
            "sha1" => Some(Algorithm::Sha1),
            "sha256" => Some(Algorithm::Sha256),
            "md5" => Some(Algorithm::Md5),
            _ => None,
        };
        let size = algorithm.map_or(0, Algorithm::size);
        let value = decode(value, size).unwrap_or_default();
        Digest {
            text: text.to_owned(),
            algorithm,
            value,
        }
    }

    /// The SHA-1 in the de-facto form `sha1:BASE32`, whatever form it was written in.
    pub fn sha1_base32(&self) -> Option<String> {
        (self.algorithm == Some(Algorithm::Sha1) && self.value.len() == 20)
            .then(|| format!("sha1:{}", base32(&self.value)))
    }
}

impl Algorithm {
    /// Bytes of a digest.
    fn size(self) -> usize {
        match self {
            Algorithm::Sha1 => 20,
            Algorithm::Sha256 => 32,
            Algorithm::Md5 => 16,
        }
    }

    /// `bytes` as this algorithm's field writes them.
    pub(crate) fn format(self, bytes: &[u8]) -> String {
        match self {
            Algorithm::Sha1 => format!("sha1:{}", base32(bytes)),
            Algorithm::Sha256 => format!("sha256:{}", hex::encode(bytes)),
            Algorithm::Md5 => format!("md5:{}", hex::encode(bytes)),
        }
    }
}

/// A running hash of one algorithm.
#[derive(Clone)]
pub(crate) enum Running {
    Sha1(Sha1),
    Sha256(Sha256),
    Md5(Md5),
}

impl Running {
    pub(crate) fn new(algorithm: Algorithm) -> Running {
        match algorithm {
            Algorithm::Sha1 => Running::Sha1(Sha1::new()),
            Algorithm::Sha256 => Running::Sha256(Sha256::new()),
            Algorithm::Md5 => Running::Md5(Md5::new()),
        }
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        match self {
            Running::Sha1(h) => h.update(bytes),
            Running::Sha256(h) => h.update(bytes),
            Running::Md5(h) => h.update(bytes),
        }
    }

    pub(crate) fn finish(self) -> Vec<u8> {
        match self {
            Running::Sha1(h) => h.finalize().to_vec(),
            Running::Sha256(h) => h.finalize().to_vec(),
            Running::Md5(h) => h.finalize().to_vec(),
        }
    }
}

/// Base32 (RFC 4648, padding optional, any case) or Base16 of `size` bytes.
fn decode(value: &str, size: usize) -> Option<Vec<u8>> {
    let value = value.trim().trim_end_matches('=');
    if size > 0 && value.len() == size * 2 {
        if let Ok(bytes) = hex::decode(value) {
            return Some(bytes);
        }
    }
    let bytes = base32_decode(value)?;
    (size == 0 || bytes.len() == size).then_some(bytes)
}

fn base32_decode(value: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(value.len() * 5 / 8);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in value.bytes() {
        let v = match c.to_ascii_uppercase() {
            c @ b'A'..=b'Z' => c - b'A',
            c @ b'2'..=b'7' => c - b'2' + 26,
            _ => return None,
        };
        acc = (acc << 5) | u32::from(v);
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_of_one_digest() {
        let b32 = Digest::parse("sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
        let hex = Digest::parse("SHA-1:a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(b32.value, hex.value);
        assert_eq!(b32.value, Sha1::digest(b"abc").to_vec());
        assert_eq!(
            hex.sha1_base32().as_deref(),
            Some("sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5")
        );
        let bare = Digest::parse("B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A");
        assert_eq!(bare.algorithm, Some(Algorithm::Sha1));
        assert_eq!(bare.value.len(), 20);
        let sha256 = Digest::parse(
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        );
        assert_eq!(sha256.value, Sha256::digest(b"abc").to_vec());
        assert!(Digest::parse("crc32:1234").algorithm.is_none());
        assert!(Digest::parse("sha1:not!base32").value.is_empty());
    }
}

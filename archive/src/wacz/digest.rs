//! A writer that counts and hashes (sha256) what passes through it: the `bytes` and `hash` of a
//! package file, taken while the file streams into the ZIP.

use std::io::{self, Write};

use sha2::{Digest, Sha256};

/// Size and sha256 of a file written into the package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sum {
    /// Bytes written.
    pub(crate) bytes: u64,
    /// `sha256:` and the lowercase hex of the digest, as `datapackage.json` writes it.
    pub(crate) hash: String,
}

/// Passes writes on to `inner`, counting and hashing the bytes it accepted.
pub(crate) struct Hashed<W> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
    /// Whether `inner` refused a write: the error came from the package side, not the archive.
    pub(crate) failed: bool,
}

impl<W: Write> Hashed<W> {
    pub(crate) fn new(inner: W) -> Self {
        Hashed {
            inner,
            hasher: Sha256::new(),
            bytes: 0,
            failed: false,
        }
    }

    /// The writer, and the size and digest of everything written.
    pub(crate) fn into_parts(self) -> (W, Sum) {
        let sum = Sum {
            bytes: self.bytes,
            hash: format!("sha256:{}", hex::encode(self.hasher.finalize())),
        };
        (self.inner, sum)
    }

    /// The size and digest of everything written.
    pub(crate) fn sum(self) -> Sum {
        self.into_parts().1
    }

    /// Bytes written so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl<W: Write> Write for Hashed<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf).inspect_err(|_| self.failed = true)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().inspect_err(|_| self.failed = true)
    }
}

/// The sha256 of `bytes` in the form of [`Sum::hash`].
pub(crate) fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_hashes_what_it_passes_on() {
        let mut out = Vec::new();
        let mut w = Hashed::new(&mut out);
        w.write_all(b"ab").unwrap();
        w.write_all(b"c").unwrap();
        let sum = w.sum();
        assert_eq!(out, b"abc");
        assert_eq!(sum.bytes, 3);
        // FIPS 180-2, appendix B.1.
        assert_eq!(
            sum.hash,
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(sha256(b"abc"), sum.hash);
    }
}

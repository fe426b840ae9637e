//! Built-in digests, computed in-process from the file's bytes (no tool process).

use std::io::Read;
use std::path::Path;

use md5::Md5;
use sha1::Sha1;
use sha2::Sha256;

use super::registry::Digest;

/// The lower-case hex digest of the file at `path`, streamed in 64 KiB reads.
pub(crate) fn file_digest(path: &Path, which: Digest) -> std::io::Result<String> {
    match which {
        Digest::Md5 => stream::<Md5>(path),
        Digest::Sha1 => stream::<Sha1>(path),
        Digest::Sha256 => stream::<Sha256>(path),
    }
}

fn stream<D: sha2::Digest>(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut d = D::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok(hex::encode(d.finalize()));
        }
        d.update(&buf[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("e");
        std::fs::write(&empty, b"").unwrap();
        assert_eq!(
            file_digest(&empty, Digest::Md5).unwrap(),
            "d41d8cd98f00b204e9800998ecf8427e"
        );
        let abc = dir.path().join("abc");
        std::fs::write(&abc, b"abc").unwrap();
        assert_eq!(
            file_digest(&abc, Digest::Sha1).unwrap(),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            file_digest(&abc, Digest::Sha256).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}

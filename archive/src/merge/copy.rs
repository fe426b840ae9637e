//! A WARC file into the merged archive: copied and read back (size and SHA-1 compared with the
//! original's), or hard-linked.

use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Write};
use std::path::Path;

use sha1::{Digest, Sha1};

use super::error::{at, MergeError};

/// Puts `from` at `to` (which must not exist) and returns its size.
pub(super) fn place(from: &Path, to: &Path, link: bool) -> Result<u64, MergeError> {
    if link {
        std::fs::hard_link(from, to).map_err(at(to))?;
        return Ok(std::fs::metadata(to).map_err(at(to))?.len());
    }
    let original = {
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(to)
            .map_err(at(to))?;
        let source = File::open(from).map_err(at(from))?;
        let digest = hash(source, Some(&mut out)).map_err(at(from))?;
        out.sync_all().map_err(at(to))?;
        digest
    };
    let copy = hash(File::open(to).map_err(at(to))?, None).map_err(at(to))?;
    if copy.1 != original.1 {
        let what = format!("{} bytes, the original has {}", copy.1, original.1);
        return Err(MergeError::Verify {
            file: from.to_owned(),
            what,
        });
    }
    if copy.0 != original.0 {
        let what = "SHA-1 differs".to_owned();
        return Err(MergeError::Verify {
            file: from.to_owned(),
            what,
        });
    }
    Ok(original.1)
}

/// SHA-1 and length of `source`, writing its bytes to `out` on the way.
fn hash(source: File, mut out: Option<&mut File>) -> io::Result<([u8; 20], u64)> {
    let mut reader = BufReader::with_capacity(1 << 20, source);
    let mut buf = vec![0u8; 1 << 20];
    let (mut h, mut len) = (Sha1::new(), 0u64);
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            return Ok((h.finalize().into(), len));
        }
        h.update(&buf[..n]);
        len += n as u64;
        if let Some(out) = out.as_deref_mut() {
            out.write_all(&buf[..n])?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_verified_and_never_replaces_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("c"),
        );
        let bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&a, &bytes).unwrap();
        assert_eq!(place(&a, &b, false).unwrap(), bytes.len() as u64);
        assert_eq!(std::fs::read(&b).unwrap(), bytes);
        assert!(matches!(place(&a, &b, false), Err(MergeError::Io { .. })));
        assert_eq!(place(&a, &c, true).unwrap(), bytes.len() as u64);
        use std::os::unix::fs::MetadataExt;
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        assert_eq!(ino(&a), ino(&c));
    }
}

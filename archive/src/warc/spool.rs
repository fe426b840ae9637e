//! Payload spooling: the digests precede the block (§4), so a payload of unknown size is first
//! written here while SHA-1 runs, then copied into its record. Small payloads stay in memory.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use super::digest::Hasher;

/// Payloads up to this size stay in memory. Defaults of [`WriterConfig`](super::WriterConfig).
pub const DEFAULT_SPOOL_THRESHOLD: usize = 1 << 20;

const COPY_CHUNK: usize = 256 * 1024;

/// A [`Write`] sink for one payload, from [`Writer::begin_payload`](super::Writer::begin_payload);
/// turn it into a record with [`Writer::finish_payload`](super::Writer::finish_payload).
///
/// Memory stays bounded: past the threshold the bytes go to an unnamed temporary file in the
/// spool directory, deleted when the spool is dropped.
#[derive(Debug)]
pub struct Spool {
    mem: Vec<u8>,
    file: Option<File>,
    dir: PathBuf,
    threshold: usize,
    hasher: Hasher,
}

impl Spool {
    /// An empty spool: up to `threshold` bytes in memory, the rest in a temporary file in `dir`
    /// (payloads that are not records yet, such as the files of a page being parsed).
    pub fn new(dir: PathBuf, threshold: usize) -> Self {
        Self {
            mem: Vec::new(),
            file: None,
            dir,
            threshold,
            hasher: Hasher::new(),
        }
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.hasher.len()
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.hasher.is_empty()
    }

    /// Whether the payload went to a temporary file.
    pub fn is_on_disk(&self) -> bool {
        self.file.is_some()
    }

    /// `sha1:BASE32` of the bytes written so far.
    pub fn digest(&self) -> String {
        self.hasher.clone().finish()
    }

    /// The bytes, when they stayed in memory.
    pub fn in_memory(&self) -> Option<&[u8]> {
        self.file.is_none().then_some(&self.mem[..])
    }

    /// The first `n` bytes (fewer if the payload is shorter).
    pub(crate) fn head(&mut self, n: usize) -> io::Result<Vec<u8>> {
        match &mut self.file {
            None => Ok(self.mem[..n.min(self.mem.len())].to_vec()),
            Some(file) => {
                file.flush()?;
                file.seek(SeekFrom::Start(0))?;
                let mut out = Vec::with_capacity(n);
                file.take(n as u64).read_to_end(&mut out)?;
                file.seek(SeekFrom::End(0))?;
                Ok(out)
            }
        }
    }

    /// Reads the spooled bytes back from the start (e.g. to parse a spooled XML document).
    /// Writing after reading appends as before.
    pub fn reader(&mut self) -> io::Result<SpoolReader<'_>> {
        if let Some(file) = &mut self.file {
            file.flush()?;
            file.seek(SeekFrom::Start(0))?;
        }
        Ok(SpoolReader {
            spool: self,
            pos: 0,
        })
    }

    /// Copies the spooled bytes into `out`. Bytes read back from a file are hashed again, so
    /// the digest and length in the header are checked against the bytes actually written
    /// (WARC 1.1 §5.8, §5.9: digests of the block as stored); bytes in memory are the ones
    /// hashed as they were written.
    pub(crate) fn copy_into(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let mut check = Hasher::new();
        match &mut self.file {
            None => return out.write_all(&self.mem),
            Some(file) => {
                file.flush()?;
                file.seek(SeekFrom::Start(0))?;
                let mut buf = vec![0; COPY_CHUNK];
                loop {
                    let n = match file.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(e),
                    };
                    check.update(&buf[..n]);
                    out.write_all(&buf[..n])?;
                }
            }
        }
        if check.len() != self.len() || check.finish() != self.digest() {
            return Err(io::Error::other("spooled payload changed while copied"));
        }
        Ok(())
    }
}

/// A reader over a [`Spool`]'s bytes, from [`Spool::reader`].
#[derive(Debug)]
pub struct SpoolReader<'a> {
    spool: &'a mut Spool,
    pos: usize,
}

impl Read for SpoolReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.spool.file {
            Some(file) => file.read(buf),
            None => {
                let rest = &self.spool.mem[self.pos..];
                let n = rest.len().min(buf.len());
                buf[..n].copy_from_slice(&rest[..n]);
                self.pos += n;
                Ok(n)
            }
        }
    }
}

impl Drop for SpoolReader<'_> {
    fn drop(&mut self) {
        if let Some(file) = &mut self.spool.file {
            let _ = file.seek(SeekFrom::End(0));
        }
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.file.is_none() && self.mem.len() + buf.len() > self.threshold {
            let mut file = tempfile::tempfile_in(&self.dir)?;
            file.write_all(&self.mem)?;
            self.mem = Vec::new();
            self.file = Some(file);
        }
        match &mut self.file {
            Some(file) => file.write_all(buf)?,
            None => self.mem.extend_from_slice(buf),
        }
        self.hasher.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Reads `payload` to its end into `spool`.
pub(crate) fn fill(spool: &mut Spool, payload: &mut dyn Read) -> io::Result<()> {
    let mut buf = vec![0; COPY_CHUNK];
    loop {
        match payload.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => spool.write_all(&buf[..n])?,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warc::digest::sha1_digest;

    #[test]
    fn small_stays_in_memory_large_spills() {
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..100u32).map(|i| i as u8).collect();
        for (threshold, on_disk) in [(1000, false), (100, false), (99, true), (0, true)] {
            let mut spool = Spool::new(dir.path().to_owned(), threshold);
            for chunk in data.chunks(7) {
                spool.write_all(chunk).unwrap();
            }
            assert_eq!(spool.is_on_disk(), on_disk, "threshold {threshold}");
            assert_eq!(spool.len(), 100);
            assert_eq!(spool.digest(), sha1_digest(&data));
            let mut out = Vec::new();
            spool.copy_into(&mut out).unwrap();
            assert_eq!(out, data);
        }
    }
}

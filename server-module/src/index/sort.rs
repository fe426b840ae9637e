//! [`Sorter`]: an external sort of byte keys in bounded memory, for the first index of a site:
//! keys are gathered in one buffer, sorted and written out as a run whenever the buffer is full,
//! and the runs are merged at the end. A million keys take a few runs of 8 MiB, whatever the
//! site's size.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

/// Bytes of keys held in memory before a run is written.
const RUN_BYTES: usize = 8 << 20;

/// Keys to sort, in memory and in runs on disk.
pub(super) struct Sorter {
    /// The keys of the current run, back to back.
    bytes: Vec<u8>,
    /// Each key's offset and length in `bytes`.
    keys: Vec<(u32, u32)>,
    runs: Vec<File>,
    dir: tempfile::TempDir,
}

impl Sorter {
    /// A sorter whose runs go to a temporary folder in `dir`.
    pub(super) fn new(dir: &Path) -> io::Result<Sorter> {
        Ok(Sorter {
            bytes: Vec::new(),
            keys: Vec::new(),
            runs: Vec::new(),
            dir: tempfile::tempdir_in(dir)?,
        })
    }

    pub(super) fn push(&mut self, key: &[u8]) -> io::Result<()> {
        if self.bytes.len() + key.len() > RUN_BYTES && !self.keys.is_empty() {
            self.spill()?;
        }
        self.keys.push((self.bytes.len() as u32, key.len() as u32));
        self.bytes.extend_from_slice(key);
        Ok(())
    }

    fn sorted(&mut self) -> Vec<(u32, u32)> {
        let bytes = &self.bytes;
        let at = |&(o, l): &(u32, u32)| &bytes[o as usize..(o + l) as usize];
        let mut keys = std::mem::take(&mut self.keys);
        keys.sort_unstable_by(|a, b| at(a).cmp(at(b)));
        keys
    }

    /// Writes the keys in memory as one sorted run: each key as a 4-byte length, then its bytes.
    fn spill(&mut self) -> io::Result<()> {
        let keys = self.sorted();
        let mut w = BufWriter::with_capacity(1 << 16, tempfile::tempfile_in(self.dir.path())?);
        for (o, l) in keys {
            w.write_all(&l.to_le_bytes())?;
            w.write_all(&self.bytes[o as usize..(o + l) as usize])?;
        }
        let mut file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
        std::io::Seek::rewind(&mut file)?;
        self.runs.push(file);
        self.bytes = Vec::new();
        Ok(())
    }

    /// Every key pushed, in ascending order, each once per push.
    pub(super) fn finish(mut self) -> io::Result<Merged> {
        if !self.keys.is_empty() {
            self.spill()?;
        }
        let mut runs: Vec<Run> = self
            .runs
            .into_iter()
            .map(|f| Run(BufReader::with_capacity(1 << 16, f)))
            .collect();
        let mut heap = BinaryHeap::new();
        for (i, run) in runs.iter_mut().enumerate() {
            if let Some(k) = run.next()? {
                heap.push(Reverse((k, i)));
            }
        }
        Ok(Merged {
            runs,
            heap,
            _dir: self.dir,
        })
    }
}

struct Run(BufReader<File>);

impl Run {
    fn next(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut len = [0u8; 4];
        match self.0.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        let mut key = vec![0u8; u32::from_le_bytes(len) as usize];
        self.0.read_exact(&mut key)?;
        Ok(Some(key))
    }
}

/// The sorted keys: a merge of the runs.
pub(super) struct Merged {
    runs: Vec<Run>,
    heap: BinaryHeap<Reverse<(Vec<u8>, usize)>>,
    _dir: tempfile::TempDir,
}

impl Iterator for Merged {
    type Item = io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        let Reverse((key, i)) = self.heap.pop()?;
        match self.runs[i].next() {
            Ok(Some(k)) => self.heap.push(Reverse((k, i))),
            Ok(None) => {}
            Err(e) => return Some(Err(e)),
        }
        Some(Ok(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_across_runs() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Sorter::new(dir.path()).unwrap();
        let mut expected = Vec::new();
        let mut x: u64 = 7;
        for _ in 0..300_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let key = format!("{:016x}/{}", x >> 20, "p".repeat((x % 40) as usize));
            s.push(key.as_bytes()).unwrap();
            expected.push(key.into_bytes());
        }
        expected.sort();
        let got: Vec<Vec<u8>> = s.finish().unwrap().map(Result::unwrap).collect();
        assert_eq!(got.len(), expected.len());
        assert!(got == expected);
    }
}

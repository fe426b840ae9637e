//! A CDXJ index of a search's captures, as pywb reads it: the lines of each archive's own
//! `index.cdxj` (the ones `modoai-harvester` writes, equal to cdxj-indexer's) whose capture the
//! search finds, sorted bytewise. Each archive's index is sorted already, so the lines are only
//! filtered and merged, never sorted whole: memory is the records not merged into an index yet.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, BufRead};

use modoai_archive::archive::Reader;
use modoai_archive::cdxj::CdxjLine;

use crate::capture::capture_id;
use crate::search::{Members, SearchError};

/// Bytes written before they are handed on.
const CHUNK: usize = 64 * 1024;

/// Why a CDXJ export stopped.
#[derive(Debug, thiserror::Error)]
pub enum CdxjError {
    /// An archive or its index cannot be read.
    #[error("reading {archive}: {source}")]
    Io {
        /// The archive's folder.
        archive: String,
        /// What failed.
        source: io::Error,
    },
    /// The search index cannot be read.
    #[error(transparent)]
    Search(#[from] SearchError),
}

/// Writes the CDXJ lines of `members`' captures in chunks to `send`, until the end or until
/// `send` returns `false` (the client went away); the lines written.
pub fn write_cdxj(
    members: &[Members],
    mut send: impl FnMut(Vec<u8>) -> bool,
) -> Result<u64, CdxjError> {
    let mut heads = BinaryHeap::new();
    let mut archives = Vec::new();
    for (n, m) in members.iter().enumerate() {
        let mut lines = Sorted::open(m)?;
        if let Some(first) = lines.next_line()? {
            heads.push(Reverse((first, n)));
        }
        archives.push(lines);
    }
    let (mut out, mut written, mut last) = (Vec::with_capacity(CHUNK), 0u64, String::new());
    while let Some(Reverse((line, n))) = heads.pop() {
        if let Some(next) = archives[n].next_line()? {
            heads.push(Reverse((next, n)));
        }
        // The same record in an index and among the records merged since it was read.
        if line == last {
            continue;
        }
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
        written += 1;
        last = line;
        if out.len() >= CHUNK && !send(std::mem::replace(&mut out, Vec::with_capacity(CHUNK))) {
            return Ok(written);
        }
    }
    if !out.is_empty() {
        send(out);
    }
    Ok(written)
}

/// One archive's lines of the search, in order: its sorted index, merged with the records not
/// in it yet (which [`Reader::cdxj`] gives after it, in ledger order), sorted in memory.
struct Sorted<'a> {
    members: &'a Members,
    lines: io::Lines<Box<dyn BufRead>>,
    /// Lines of the sorted index left.
    sorted: u64,
    /// The other lines of the search, sorted, the next last.
    rest: Vec<String>,
    peeked: Option<String>,
}

impl<'a> Sorted<'a> {
    /// Reads the archive's lines once to find where its sorted index ends and to sort the lines
    /// of the search after it; then opens them again.
    fn open(members: &'a Members) -> Result<Sorted<'a>, CdxjError> {
        let mut sorted = 0u64;
        let mut rest = Vec::new();
        let mut prev = String::new();
        let mut in_order = true;
        for line in cdxj(members)? {
            let line = line.map_err(|e| io_error(members, e))?;
            in_order = in_order && line >= prev;
            if in_order {
                sorted += 1;
                prev = line;
            } else if is_member(members, &line)? {
                rest.push(line);
            }
        }
        rest.sort_unstable_by(|a, b| b.cmp(a));
        Ok(Sorted {
            members,
            lines: cdxj(members)?,
            sorted,
            rest,
            peeked: None,
        })
    }

    /// The next line of the search.
    fn next_line(&mut self) -> Result<Option<String>, CdxjError> {
        if self.peeked.is_none() {
            self.peeked = self.next_sorted()?;
        }
        let take_rest = match (&self.peeked, self.rest.last()) {
            (Some(p), Some(r)) => r < p,
            (None, Some(_)) => true,
            _ => false,
        };
        Ok(match take_rest {
            true => self.rest.pop(),
            false => self.peeked.take(),
        })
    }

    /// The next line of the sorted index that the search finds.
    fn next_sorted(&mut self) -> Result<Option<String>, CdxjError> {
        while self.sorted > 0 {
            self.sorted -= 1;
            let Some(line) = self.lines.next() else {
                return Ok(None);
            };
            let line = line.map_err(|e| io_error(self.members, e))?;
            if is_member(self.members, &line)? {
                return Ok(Some(line));
            }
        }
        Ok(None)
    }
}

fn cdxj(m: &Members) -> Result<io::Lines<Box<dyn BufRead>>, CdxjError> {
    let reader = Reader::open(&m.dir).map_err(|e| io_error(m, io::Error::other(e)))?;
    let lines: Box<dyn BufRead> = Box::new(reader.cdxj().map_err(|e| io_error(m, e))?);
    Ok(lines.lines())
}

/// Whether the capture of a CDXJ line is one the search finds (a line that does not parse is
/// none).
fn is_member(m: &Members, line: &str) -> Result<bool, CdxjError> {
    let Ok(l) = CdxjLine::parse(line) else {
        return Ok(false);
    };
    let (Some(file), Some(offset)) = (l.get("filename"), l.get("offset")) else {
        return Ok(false);
    };
    let Ok(offset) = offset.parse() else {
        return Ok(false);
    };
    Ok(m.contains(&capture_id(file, offset))?)
}

fn io_error(m: &Members, source: io::Error) -> CdxjError {
    CdxjError::Io {
        archive: m.dir.display().to_string(),
        source,
    }
}

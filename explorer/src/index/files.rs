//! How far a foreign collection's files are read: per file, its size and the last record whose
//! captures are in the index. Kept in each commit's payload beside the [`Checkpoint`], so it is
//! exactly as durable as the documents: a killed run adds nothing twice and loses nothing.

use std::collections::BTreeMap;

use modoai_archive::any::{Framing, Location, Source};
use serde::{Deserialize, Serialize};

use super::store::{ArchiveIndex, Checkpoint};
use crate::ExplorerError;

/// What a commit of a foreign collection's index covers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilesCheckpoint {
    /// Captures and schema, as an archive's index has them (its ledger position stays 0).
    #[serde(flatten)]
    pub base: Checkpoint,
    /// Each file read (by [`Source`]'s display: `PATH`, or `WACZ!ENTRY`).
    #[serde(default)]
    pub files: BTreeMap<String, FileRead>,
}

/// How far one file is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRead {
    /// Its size when it was read.
    pub size: u64,
    /// The last record read: its offset and its start inside a gzip stream.
    pub last: Option<(u64, u64)>,
    /// Where the last record ends, when the file can be read again from there (WARC records,
    /// plain or gzip per record); `None` when it is read again from its start, skipping what
    /// was read (ARC files and files compressed as one gzip stream).
    pub resume_at: Option<u64>,
}

impl FileRead {
    /// Notes `location` read (a record of a `warc` file or not).
    pub fn read(&mut self, location: &Location, warc: bool) {
        let (skip, seekable) = match location.framing {
            Framing::GzipStream { skip } => (skip, false),
            Framing::Plain | Framing::Gzip => (0, warc),
        };
        // Seekable while every record read so far was.
        let so_far = self.last.is_none() || self.resume_at.is_some();
        self.last = Some((location.offset, skip));
        self.resume_at = (seekable && so_far).then_some(location.offset + location.length);
    }

    /// Whether the record at `location` was read already.
    pub fn has(&self, location: &Location) -> bool {
        let skip = match location.framing {
            Framing::GzipStream { skip } => skip,
            _ => 0,
        };
        self.last
            .is_some_and(|last| (location.offset, skip) <= last)
    }
}

/// The size of a source now (a WACZ entry's uncompressed size).
pub(super) fn size_of(source: &Source) -> std::io::Result<u64> {
    match &source.entry {
        Some(entry) => Ok(entry.size),
        None => Ok(std::fs::metadata(&source.path)?.len()),
    }
}

/// Files under `dir` (hidden ones left out, as the listing does) whose names are none of the
/// WARC and ARC suffixes: the first 100, in name order.
pub(super) fn not_read(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    const SUFFIXES: [&str; 4] = [".warc", ".warc.gz", ".arc", ".arc.gz"];
    let mut out = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let bare = name.strip_suffix(".open").unwrap_or(&name);
            match e.file_type() {
                _ if name.starts_with('.') => {}
                Ok(t) if t.is_dir() => todo.push(e.path()),
                Ok(t) if t.is_file() && !SUFFIXES.iter().any(|s| bare.ends_with(s)) => {
                    out.push(e.path())
                }
                _ => {}
            }
        }
    }
    out.sort();
    out.truncate(100);
    out
}

/// The checkpoint of `index`'s last commit (nothing for a new index).
pub(super) fn files_checkpoint(index: &ArchiveIndex) -> Result<FilesCheckpoint, ExplorerError> {
    let metas = index
        .index()
        .load_metas()
        .map_err(ExplorerError::index(index.path()))?;
    let base = index.checkpoint()?;
    let files = metas
        .payload
        .and_then(|p| serde_json::from_str::<FilesCheckpoint>(&p).ok())
        .map(|c| c.files)
        .unwrap_or_default();
    Ok(FilesCheckpoint { base, files })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(offset: u64, length: u64, framing: Framing) -> Location {
        Location {
            source: Source::file("x.warc.gz"),
            offset,
            length,
            framing,
        }
    }

    #[test]
    fn seekable_files_resume_where_the_last_record_ends() {
        let mut read = FileRead::default();
        read.read(&at(0, 100, Framing::Gzip), true);
        read.read(&at(100, 50, Framing::Gzip), true);
        assert_eq!(read.resume_at, Some(150));
        assert!(read.has(&at(100, 50, Framing::Gzip)));
        assert!(!read.has(&at(150, 10, Framing::Gzip)));
        let mut arc = FileRead::default();
        arc.read(&at(0, 100, Framing::Gzip), false);
        assert_eq!(
            arc.resume_at, None,
            "an ARC file is read again from its start"
        );
        let mut stream = FileRead::default();
        stream.read(&at(0, 100, Framing::GzipStream { skip: 300 }), true);
        assert_eq!(stream.resume_at, None);
        assert!(stream.has(&at(0, 100, Framing::GzipStream { skip: 200 })));
        assert!(!stream.has(&at(0, 100, Framing::GzipStream { skip: 400 })));
    }

    #[test]
    fn the_checkpoint_reads_back_with_its_files() {
        let mut c = FilesCheckpoint::default();
        c.base.captures = 3;
        c.files.insert("a.warc".into(), FileRead::default());
        let json = serde_json::to_string(&c).unwrap();
        let base: Checkpoint = serde_json::from_str(&json).unwrap();
        assert_eq!(base.captures, 3, "an archive's checkpoint reads it too");
        assert_eq!(serde_json::from_str::<FilesCheckpoint>(&json).unwrap(), c);
    }
}

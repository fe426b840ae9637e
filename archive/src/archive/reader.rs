//! A read-only view of an archive: [`Reader`]. It needs read access only, takes no lock, and
//! works while a harvester writes the archive, and on an archive a crash left behind.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::{ArchiveLayout, Entry, NotAnArchive, State, Written};
use crate::warc::OPEN_SUFFIX;

/// A read-only view of an archive, as complete as it was when [`Reader::open`] looked.
///
/// Opening reads `state.json` and notes how long the ledger is; nothing is written, no lock is
/// taken, so it works on a read-only copy and while a harvest runs. It shows the items whose
/// ledger line is whole and whose records are all on disk: closed WARC files, and the records of
/// the `.open` file that the ledger lists, never a half-written record. A harvest killed mid-way
/// leaves such an archive too (an `.open` WARC file, perhaps no index yet): the view shows what
/// was complete, and [`Reader::open_files`] tells that `modoai-harvester repair` (or the next
/// harvest) should close the rest.
///
/// ```
/// use modoai_archive::archive::{Archive, ArchiveOptions, Reader};
///
/// let dir = tempfile::tempdir()?;
/// # Archive::open(dir.path(), ArchiveOptions::default())?.close()?;
/// let archive = Reader::open(dir.path())?;
/// let mut items = 0;
/// for entry in archive.entries()? {
///     let entry = entry?;
///     println!("{} {}", entry.identifier, entry.datestamp);
///     items += 1;
/// }
/// assert_eq!(items, 0);
/// assert!(archive.open_files()?.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Reader {
    layout: ArchiveLayout,
    state: State,
    /// Ledger bytes up to the end of its last whole line when opened.
    ledger_len: u64,
}

/// Why an archive could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The folder has no ledger: it is not an archive.
    #[error(transparent)]
    NotAnArchive(#[from] NotAnArchive),
    /// A file of the archive could not be read.
    // The cause is part of the message, not a `source()`: a report of the chain would print it
    // twice.
    #[error("archive {}: {error}", path.display())]
    Io {
        /// Which file.
        path: PathBuf,
        /// What went wrong.
        error: io::Error,
    },
}

/// A WARC file of the archive, as found on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarcFile {
    /// Its path: the final name, or the name with `.open` while it is written.
    pub path: PathBuf,
    /// Its bytes when looked at.
    pub len: u64,
    /// Whether it is closed (final name).
    pub closed: bool,
}

impl Reader {
    /// Opens the archive at `dir` for reading. Fails with [`ReadError::NotAnArchive`] when the
    /// folder has no ledger.
    pub fn open(dir: &Path) -> Result<Reader, ReadError> {
        let layout = ArchiveLayout::new(dir);
        layout.require_ledger()?;
        let io_at = |path: PathBuf| move |error| ReadError::Io { path, error };
        // The state first: the index it counts as merged is then at most what index.cdxj holds.
        let state = State::load(&layout.state()).map_err(io_at(layout.state()))?;
        let ledger_len = whole_lines(&layout.ledger()).map_err(io_at(layout.ledger()))?;
        Ok(Reader {
            layout,
            state,
            ledger_len,
        })
    }

    /// Where the archive keeps what.
    pub fn layout(&self) -> &ArchiveLayout {
        &self.layout
    }

    /// The archive folder.
    pub fn dir(&self) -> &Path {
        self.layout.dir()
    }

    /// The archive id of its PWIDs, once a harvest has set it.
    pub fn archive_id(&self) -> Option<&str> {
        self.state.archive_id.as_deref()
    }

    /// The harvest state as last saved.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Every complete item, in ledger order, read one at a time.
    pub fn entries(&self) -> io::Result<Entries<'_>> {
        self.entries_from(0)
    }

    /// The complete items the CDXJ index does not list yet (merged at checkpoints and at the
    /// end of a harvest).
    pub fn unindexed(&self) -> io::Result<Entries<'_>> {
        self.entries_from(self.state.indexed)
    }

    /// The complete items from ledger byte `from` on (an [`Entries::position`] of an earlier
    /// reading, say), in ledger order: how an indexer continues where it stopped.
    pub fn entries_after(&self, from: u64) -> io::Result<Entries<'_>> {
        self.entries_from(from)
    }

    /// Ledger bytes up to the end of its last whole line when the archive was opened.
    pub fn ledger_len(&self) -> u64 {
        self.ledger_len
    }

    fn entries_from(&self, from: u64) -> io::Result<Entries<'_>> {
        let mut file = File::open(self.layout.ledger())?;
        let from = from.min(self.ledger_len);
        file.seek(SeekFrom::Start(from))?;
        Ok(Entries {
            reader: self,
            lines: BufReader::new(file).take(self.ledger_len - from),
            files: HashMap::new(),
            incomplete: 0,
            position: from,
            stop_at_incomplete: false,
        })
    }

    /// The WARC file a ledger record names (by its final name), closed or still open; `None`
    /// when neither exists.
    pub fn warc_file(&self, name: &str) -> io::Result<Option<WarcFile>> {
        let closed = self.layout.warcs().join(name);
        let open = self.layout.warcs().join(format!("{name}{OPEN_SUFFIX}"));
        // Closing renames `.open` to the final name: look at the final name again after a miss.
        for (path, closed) in [(closed.clone(), true), (open, false), (closed, true)] {
            match fs::metadata(&path) {
                Ok(m) => {
                    let len = m.len();
                    return Ok(Some(WarcFile { path, len, closed }));
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }

    /// The `.open` WARC files: a harvest is writing them, or one was killed before it closed
    /// them (`modoai-harvester repair --archive DIR` closes them then).
    pub fn open_files(&self) -> io::Result<Vec<PathBuf>> {
        let mut out: Vec<PathBuf> = fs::read_dir(self.layout.warcs())?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(OPEN_SUFFIX))
            .collect();
        out.sort();
        Ok(out)
    }

    /// The CDXJ lines of every complete record: `index.cdxj` (sorted), then the records not
    /// merged into it yet (in ledger order, from a temporary file). A line may come twice when
    /// the index was merged after [`Reader::open`] read the state
    /// ([`profile::generate_from`](crate::profile::generate_from) counts it once).
    pub fn cdxj(&self) -> io::Result<impl BufRead> {
        let index: Box<dyn Read> = match File::open(self.layout.index()) {
            Ok(f) => Box::new(f),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Box::new(io::empty()),
            Err(e) => return Err(e),
        };
        let mut tail = io::BufWriter::new(tempfile::tempfile()?);
        for entry in self.unindexed()? {
            for line in entry?.records.iter().filter_map(Written::cdxj) {
                tail.write_all(line.to_line().as_bytes())?;
                tail.write_all(b"\n")?;
            }
        }
        let mut tail = tail.into_inner().map_err(io::IntoInnerError::into_error)?;
        tail.rewind()?;
        Ok(BufReader::with_capacity(256 * 1024, index.chain(tail)))
    }
}

/// The complete items of an archive's ledger, one at a time: see [`Reader::entries`].
#[derive(Debug)]
pub struct Entries<'a> {
    reader: &'a Reader,
    lines: io::Take<BufReader<File>>,
    /// WARC files looked at, by final name (`None`: missing).
    files: HashMap<String, Option<WarcFile>>,
    incomplete: u64,
    /// Ledger byte offset after the last line returned (or skipped).
    position: u64,
    /// End at the first incomplete item instead of skipping it.
    stop_at_incomplete: bool,
}

impl Entries<'_> {
    /// Ends the reading at the first item whose records are not all on disk, rather than
    /// skipping it: [`Entries::position`] then stays before that item, so a reader that saves
    /// the position and continues from it later misses nothing.
    pub fn stop_at_incomplete(mut self) -> Self {
        self.stop_at_incomplete = true;
        self
    }

    /// The ledger byte offset just after the last item returned (or skipped as incomplete):
    /// where [`Reader::entries_after`] continues.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Items left out so far because a record of theirs is not (yet) on disk: a harvest is
    /// writing them, or a WARC file is missing.
    pub fn incomplete(&self) -> u64 {
        self.incomplete
    }

    fn is_complete(&mut self, entry: &Entry) -> io::Result<bool> {
        for r in &entry.records {
            if !self.files.contains_key(&r.file) {
                let found = self.reader.warc_file(&r.file)?;
                self.files.insert(r.file.clone(), found);
            }
            let on_disk = self.files[&r.file].as_ref().map_or(0, |f| f.len);
            if r.offset + r.length > on_disk {
                // Written after this look: look again once, for the file may have grown.
                let found = self.reader.warc_file(&r.file)?;
                let grown = found.as_ref().map_or(0, |f| f.len);
                self.files.insert(r.file.clone(), found);
                if r.offset + r.length > grown {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    fn next_entry(&mut self) -> io::Result<Option<Entry>> {
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = self.lines.read_until(b'\n', &mut line)?;
            if n == 0 {
                return Ok(None);
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                self.position += n as u64;
                continue;
            }
            let entry: Entry = serde_json::from_slice(&line).map_err(|e| {
                io::Error::new(io::ErrorKind::InvalidData, format!("ledger line: {e}"))
            })?;
            if self.is_complete(&entry)? {
                self.position += n as u64;
                return Ok(Some(entry));
            }
            self.incomplete += 1;
            if self.stop_at_incomplete {
                // Nothing more is read: the lines after this one stay for a later reading.
                self.lines.set_limit(0);
                return Ok(None);
            }
            self.position += n as u64;
        }
    }
}

impl Iterator for Entries<'_> {
    type Item = io::Result<Entry>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_entry().transpose()
    }
}

/// The ledger's length up to the end of its last whole line (a harvest may be writing one).
fn whole_lines(ledger: &Path) -> io::Result<u64> {
    let mut file = File::open(ledger)?;
    let len = file.metadata()?.len();
    let mut back = len;
    let mut buf = [0u8; 4096];
    while back > 0 {
        let n = back.min(buf.len() as u64);
        file.seek(SeekFrom::Start(back - n))?;
        file.read_exact(&mut buf[..n as usize])?;
        if let Some(i) = buf[..n as usize].iter().rposition(|&b| b == b'\n') {
            return Ok(back - n + i as u64 + 1);
        }
        back -= n;
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_last_ledger_line_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        for (text, whole) in [("", 0), ("a\n", 2), ("a\nbc", 2), ("abc", 0)] {
            fs::write(&path, text).unwrap();
            assert_eq!(whole_lines(&path).unwrap(), whole, "{text:?}");
        }
        let long = format!("{}\n{}", "x".repeat(10_000), "y".repeat(9_000));
        fs::write(&path, &long).unwrap();
        assert_eq!(whole_lines(&path).unwrap(), 10_001);
    }

    #[test]
    fn items_whose_records_are_not_on_disk_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ArchiveLayout::new(dir.path());
        fs::create_dir_all(layout.warcs()).unwrap();
        let entry = |id: &str, file: &str, offset: u64| Entry {
            endpoint: "http://e/oai".into(),
            prefix: "oai_dc".into(),
            identifier: id.into(),
            datestamp: "2024-01-01".into(),
            deleted: false,
            sets: vec![],
            harvested: "2024-01-01T00:00:00Z".into(),
            bytes: 0,
            fixity_errors: vec![],
            kind: crate::archive::EntryKind::Item,
            records: vec![Written {
                kind: crate::warc::RecordType::Metadata,
                file: file.into(),
                offset,
                length: 10,
                id: "<urn:uuid:x>".into(),
                uri: "http://e/x".into(),
                mime: "text/xml".into(),
                digest: "sha1:X".into(),
                date: "20240101000000".into(),
                indexed: false,
            }],
        };
        let mut ledger = String::new();
        for e in [
            entry("closed", "a.warc.gz", 0),
            entry("open", "b.warc.gz", 0),
            entry("unwritten", "b.warc.gz", 10),
            entry("missing", "c.warc.gz", 0),
        ] {
            ledger += &serde_json::to_string(&e).unwrap();
            ledger.push('\n');
        }
        ledger += "{\"endpoint\": \"cut by a cra";
        fs::write(layout.ledger(), ledger).unwrap();
        fs::write(layout.warcs().join("a.warc.gz"), [0; 10]).unwrap();
        fs::write(layout.warcs().join("b.warc.gz.open"), [0; 15]).unwrap();
        let reader = Reader::open(dir.path()).unwrap();
        let mut entries = reader.entries().unwrap();
        let ids: Vec<String> = entries.by_ref().map(|e| e.unwrap().identifier).collect();
        assert_eq!(ids, ["closed", "open"]);
        assert_eq!(entries.incomplete(), 2);
        assert_eq!(entries.position(), reader.ledger_len());
        // Stopping at the first incomplete item keeps the position before it.
        let mut entries = reader.entries().unwrap().stop_at_incomplete();
        let ids: Vec<String> = entries.by_ref().map(|e| e.unwrap().identifier).collect();
        assert_eq!(ids, ["closed", "open"]);
        let at = entries.position() as usize;
        let text = fs::read_to_string(layout.ledger()).unwrap();
        assert!(
            text[at..].starts_with('{') && text[at..].lines().next().unwrap().contains("unwritten")
        );
        assert_eq!(reader.entries_after(at as u64).unwrap().count(), 0);
        let open = reader.warc_file("b.warc.gz").unwrap().unwrap();
        assert!(!open.closed && open.path.ends_with("b.warc.gz.open"));
        assert_eq!(reader.open_files().unwrap().len(), 1);
    }

    #[test]
    fn a_folder_without_a_ledger_is_no_archive() {
        let dir = tempfile::tempdir().unwrap();
        let err = Reader::open(dir.path()).unwrap_err();
        assert!(matches!(err, ReadError::NotAnArchive(_)), "{err}");
    }
}

//! CDXJ index files as pywb reads them (`docs/archivists.md`, "Formats"): one
//! `SURT TIMESTAMP JSON` line per capture, sorted bytewise like `LC_ALL=C sort`.
//!
//! ```
//! use modoai_archive::cdxj::{CdxjIndex, CdxjLine};
//!
//! let dir = tempfile::tempdir()?;
//! let mut index = CdxjIndex::open(dir.path().join("index.cdxj"));
//! let line = CdxjLine::parse(
//!     r#"com,example)/a.pdf 20240501120000 {"url": "http://example.com/a.pdf", "mime": "application/pdf"}"#,
//! )?;
//! index.add([line.clone()])?;
//! assert_eq!(index.lookup("com,example)/a.pdf")?, [line]);
//! assert!(index.lookup("com,example)/b.pdf")?.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`CdxjIndex::add`] merges a batch into the file in memory bounded by the batch: the batch is
//! sorted in memory, streamed together with the sorted file into a temporary file next to it,
//! and renamed over the index, so a crash leaves the old index whole. [`CdxjIndex::lookup`]
//! binary-searches the file with seeks instead of loading it.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Errors of CDXJ parsing and of index files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CdxjError {
    /// A line lacks the key, the timestamp or the JSON block.
    #[error("cdxj line has no {0}")]
    Missing(&'static str),
    /// The SURT key is empty or holds whitespace, which would break the line format.
    #[error("invalid cdxj key {0:?}")]
    Key(String),
    /// The timestamp is not 14 ASCII digits (`yyyyMMddHHmmss`).
    #[error("cdxj timestamp {0:?} is not 14 digits")]
    Timestamp(String),
    /// The third field is not a JSON object.
    #[error("cdxj json block is not an object")]
    Json(#[source] serde_json::Error),
    /// Reading or writing the index file failed.
    #[error("cdxj index i/o failed")]
    Io(#[from] io::Error),
}

/// One capture in a CDXJ index: `SURT TIMESTAMP {json}`.
#[derive(Debug, Clone, PartialEq)]
pub struct CdxjLine {
    /// The SURT key of the captured URL ([`crate::surt::surt`]).
    pub surt: String,
    /// The capture time: `WARC-Date` cut to 14 digits, `yyyyMMddHHmmss`.
    pub timestamp: String,
    /// The JSON fields in file order (`url`, `mime`, `status`, `digest`, `length`, `offset`,
    /// `filename`, …); cdxj-indexer writes every value as a string.
    pub fields: Vec<(String, Value)>,
}

impl CdxjLine {
    /// Parses one line; a trailing `\n` or `\r\n` is ignored.
    pub fn parse(line: &str) -> Result<Self, CdxjError> {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let (surt, rest) = line
            .split_once(' ')
            .ok_or(CdxjError::Missing("timestamp"))?;
        let (timestamp, json) = rest
            .split_once(' ')
            .ok_or(CdxjError::Missing("json block"))?;
        let fields = serde_json::from_str::<OrderedObject>(json)
            .map_err(CdxjError::Json)?
            .0;
        let line = Self {
            surt: surt.to_owned(),
            timestamp: timestamp.to_owned(),
            fields,
        };
        line.validate()?;
        Ok(line)
    }

    /// Checks what the line format relies on: a key without whitespace, a 14-digit timestamp.
    pub fn validate(&self) -> Result<(), CdxjError> {
        if self.surt.is_empty() || self.surt.contains(char::is_whitespace) {
            return Err(CdxjError::Key(self.surt.clone()));
        }
        if self.timestamp.len() != 14 || !self.timestamp.bytes().all(|b| b.is_ascii_digit()) {
            return Err(CdxjError::Timestamp(self.timestamp.clone()));
        }
        Ok(())
    }

    /// The line without its newline, with the JSON written as Python's `json.dumps` does
    /// (`", "` and `": "` separators, non-ASCII as `\uXXXX`), so lines from cdxj-indexer
    /// round-trip byte for byte.
    pub fn to_line(&self) -> String {
        let mut out = format!("{} {} {{", self.surt, self.timestamp);
        for (i, (key, value)) in self.fields.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_py_json_string(&mut out, key);
            out.push_str(": ");
            match value {
                Value::String(s) => write_py_json_string(&mut out, s),
                other => out.push_str(&other.to_string()),
            }
        }
        out.push('}');
        out
    }

    /// The string value of a JSON field, e.g. `get("url")`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_str())
    }
}

/// A JSON object read with its keys in file order (serde_json's `Map` sorts them unless the
/// workspace-wide `preserve_order` feature is on).
struct OrderedObject(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for OrderedObject {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = OrderedObject;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    fields.push(entry);
                }
                Ok(OrderedObject(fields))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// A JSON string as Python's `json.dumps` (with `ensure_ascii=True`) writes it.
fn write_py_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

/// A sorted CDXJ file on disk. Absent files are empty indexes.
///
/// One writer per file: [`add`](Self::add) writes `<file>.tmp` next to the index and overwrites
/// a leftover one from a crashed merge.
#[derive(Debug, Clone)]
pub struct CdxjIndex {
    path: PathBuf,
}

impl CdxjIndex {
    /// An index at `path`; nothing is read or created until [`add`](Self::add) or
    /// [`lookup`](Self::lookup).
    pub fn open(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// The index file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Merges `lines` into the file, keeping it sorted bytewise and each distinct line once.
    ///
    /// Memory holds the new batch and one line of the old file. The result is written to a
    /// temporary file, synced, and renamed over the index: readers see the old index or the new
    /// one, never a mix.
    pub fn add(&mut self, lines: impl IntoIterator<Item = CdxjLine>) -> Result<(), CdxjError> {
        let mut batch = Vec::new();
        for line in lines {
            line.validate()?;
            batch.push(line.to_line().into_bytes());
        }
        self.add_formatted(batch)
    }

    /// [`add`](Self::add) for lines already validated and formatted by
    /// [`CdxjLine::to_line`].
    pub(crate) fn add_formatted(&mut self, mut batch: Vec<Vec<u8>>) -> Result<(), CdxjError> {
        batch.sort_unstable();
        batch.dedup();
        let tmp = self.tmp_path();
        let result = self.merge_into(&tmp, batch);
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
    }

    fn tmp_path(&self) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(".tmp");
        self.path.with_file_name(name)
    }

    fn merge_into(&self, tmp: &Path, batch: Vec<Vec<u8>>) -> Result<(), CdxjError> {
        let mut out = BufWriter::new(File::create(tmp)?);
        let mut old = match File::open(&self.path) {
            Ok(file) => Some(BufReader::new(file)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e.into()),
        };
        let mut merger = Merger {
            out: &mut out,
            last: None,
        };
        let mut batch = batch.into_iter().peekable();
        let mut old_line = Vec::new();
        while let Some(reader) = old.as_mut() {
            if !read_line(reader, &mut old_line)? {
                break;
            }
            while let Some(new) = batch.next_if(|new| *new < old_line) {
                merger.write(&new)?;
            }
            merger.write(&old_line)?;
        }
        for new in batch {
            merger.write(&new)?;
        }
        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        drop(file);
        fs::rename(tmp, &self.path)?;
        sync_parent_dir(&self.path);
        Ok(())
    }

    /// Every line whose key is exactly `surt`, in file order, found by binary search over byte
    /// offsets (`O(log n)` seeks, then a forward scan over the matches).
    pub fn lookup(&self, surt: &str) -> Result<Vec<CdxjLine>, CdxjError> {
        let file = match File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let len = file.metadata()?.len();
        let mut reader = BufReader::new(file);
        let prefix = format!("{surt} ").into_bytes();
        let start = lower_bound(&mut reader, len, &prefix)?;
        reader.seek(SeekFrom::Start(start))?;
        let mut found = Vec::new();
        let mut line = Vec::new();
        while read_line(&mut reader, &mut line)? && line.starts_with(&prefix) {
            let text = String::from_utf8(std::mem::take(&mut line))
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            found.push(CdxjLine::parse(&text)?);
        }
        Ok(found)
    }
}

/// Writes lines in order, dropping a line equal to the one just written.
struct Merger<'a, W: Write> {
    out: &'a mut W,
    last: Option<Vec<u8>>,
}

impl<W: Write> Merger<'_, W> {
    fn write(&mut self, line: &[u8]) -> io::Result<()> {
        if self.last.as_deref() == Some(line) {
            return Ok(());
        }
        self.out.write_all(line)?;
        self.out.write_all(b"\n")?;
        self.last = Some(line.to_vec());
        Ok(())
    }
}

/// Reads one line without its `\n` into `line`; `false` at end of file.
pub(crate) fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    if reader.read_until(b'\n', line)? == 0 {
        return Ok(false);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    Ok(true)
}

/// The start offset of the first line `>= target` (or `len`). Searches the smallest offset `p`
/// whose next line start (the first line starting at or after `p`) holds such a line; that
/// predicate only turns from false to true as `p` grows.
pub(crate) fn lower_bound<R: BufRead + Seek>(
    reader: &mut R,
    len: u64,
    target: &[u8],
) -> io::Result<u64> {
    let (mut lo, mut hi) = (0, len);
    let mut line = Vec::new();
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let start = next_line_start(reader, mid)?;
        let is_at_or_after = !read_line(reader, &mut line)? || line.as_slice() >= target;
        if is_at_or_after {
            hi = mid;
        } else {
            lo = start + 1;
        }
    }
    next_line_start(reader, lo)
}

/// Seeks to the first line starting at or after `pos` and returns its offset.
fn next_line_start<R: BufRead + Seek>(reader: &mut R, pos: u64) -> io::Result<u64> {
    if pos == 0 {
        reader.seek(SeekFrom::Start(0))?;
        return Ok(0);
    }
    reader.seek(SeekFrom::Start(pos - 1))?;
    let mut skipped = Vec::new();
    let n = reader.read_until(b'\n', &mut skipped)?;
    Ok(pos - 1 + n as u64)
}

/// Makes the rename durable; best effort, as not every platform can open a directory.
fn sync_parent_dir(path: &Path) {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if let Ok(dir) = File::open(parent) {
        let _ = dir.sync_all();
    }
}

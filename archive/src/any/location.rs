//! Where a record is: a file, or a WARC file inside a WACZ (a ZIP entry), an offset, a length
//! and how the bytes there are framed; and reading those bytes again.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use flate2::bufread::DeflateDecoder;
use serde::{Deserialize, Serialize};

/// A WARC or ARC file: on disk, or an entry of a WACZ package read in place.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Source {
    /// The file on disk (the WACZ package for an entry).
    pub path: PathBuf,
    /// The entry inside the package, if the file is one.
    pub entry: Option<ZipEntry>,
}

/// A WARC file inside a ZIP (WACZ) package, where its bytes are.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ZipEntry {
    /// Its name in the package (`archive/data.warc.gz`).
    pub name: String,
    /// Where its data starts in the package file.
    pub data_start: u64,
    /// Its bytes in the package.
    pub compressed_size: u64,
    /// Its bytes once extracted.
    pub size: u64,
    /// Whether it is deflated (ZIP method 8) rather than stored (method 0).
    pub deflated: bool,
}

/// How the bytes at a [`Location`] hold the record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Framing {
    /// An uncompressed file: the record is the bytes `offset..offset + length`.
    Plain,
    /// Gzip per record (WARC 1.1 Annex D): the bytes `offset..offset + length` are the record's
    /// gzip member, as CDXJ indexes locate it.
    Gzip,
    /// Inside a gzip member that holds more than this record (a file compressed as one gzip
    /// stream): decompress from the member at `offset`, skip `skip` decompressed bytes, and
    /// the record is the next `length` decompressed bytes. Reading it again costs decompressing
    /// everything before it in that member.
    GzipStream {
        /// Decompressed bytes before the record in its member.
        skip: u64,
    },
}

/// Where a record is, as an index stores it to read the record again with
/// [`open`](super::open).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Location {
    /// The file (or WACZ entry).
    pub source: Source,
    /// Offset in the file, or in the entry's extracted bytes.
    pub offset: u64,
    /// Length: of the bytes in the file for [`Framing::Plain`] and [`Framing::Gzip`], of the
    /// decompressed record for [`Framing::GzipStream`].
    pub length: u64,
    /// How those bytes hold the record.
    pub framing: Framing,
}

impl Source {
    /// A file on disk.
    pub fn file(path: impl Into<PathBuf>) -> Source {
        Source {
            path: path.into(),
            entry: None,
        }
    }

    /// The file's name as a CDXJ `filename` gives it: the file name, or the entry's name
    /// without its folder.
    pub fn name(&self) -> String {
        let name = match &self.entry {
            Some(e) => Path::new(&e.name).file_name(),
            None => self.path.file_name(),
        };
        name.map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Its bytes (extracted, for an entry) from `offset` on. A deflated entry is decompressed
    /// from its start up to `offset`.
    pub(crate) fn read_from(&self, offset: u64) -> io::Result<Box<dyn Read + Send>> {
        let mut file = File::open(&self.path)?;
        let Some(entry) = &self.entry else {
            file.seek(SeekFrom::Start(offset))?;
            return Ok(Box::new(file));
        };
        if entry.deflated {
            file.seek(SeekFrom::Start(entry.data_start))?;
            let raw = BufReader::new(file.take(entry.compressed_size));
            let mut inflated = DeflateDecoder::new(raw).take(entry.size);
            io::copy(&mut (&mut inflated).take(offset), &mut io::sink())?;
            return Ok(Box::new(inflated));
        }
        file.seek(SeekFrom::Start(entry.data_start + offset))?;
        Ok(Box::new(file.take(entry.size.saturating_sub(offset))))
    }
}

impl Location {
    /// The bytes `offset..offset + length` as stored (extracted, for a WACZ entry): for
    /// [`Framing::Gzip`] the record's gzip member, for [`Framing::Plain`] the record. Bytes of
    /// [`Framing::GzipStream`] are not a record of their own: read it with
    /// [`open`](super::open).
    pub fn stored_bytes(&self) -> io::Result<Box<dyn Read + Send>> {
        if let Framing::GzipStream { .. } = self.framing {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a record inside a gzip stream has no bytes of its own",
            ));
        }
        Ok(Box::new(
            self.source.read_from(self.offset)?.take(self.length),
        ))
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.entry {
            Some(e) => write!(f, "{}!{}", self.path.display(), e.name),
            None => write!(f, "{}", self.path.display()),
        }
    }
}

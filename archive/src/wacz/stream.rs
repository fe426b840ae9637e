//! A WACZ package written as a stream, for a writer that cannot seek (an HTTP answer): one
//! WARC file whose records arrive one after the other, then its index, its pages and its
//! `datapackage.json`. Entries are STORED with data descriptors (their sizes follow their
//! bytes) and ZIP64 where they need it.
//!
//! Memory stays bounded whatever the WARC weighs: the index lines are merged into a sorted
//! temporary CDXJ file in batches of [`BATCH`] lines ([`CdxjIndex::add`]), the pages wait in a
//! temporary file, and only the six entries' names are held for the central directory.
//!
//! ```
//! use std::io::Write;
//! use modoai_archive::wacz::WaczStream;
//!
//! let mut package = WaczStream::new(Vec::new(), "me 1.0", "Export", "2026-01-01T00:00:00Z")?;
//! package.warc().write_all(b"")?; // the WARC's records
//! let bytes = package.finish(Some("every capture"))?;
//! assert!(bytes.starts_with(b"PK"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, Write};

use zip::write::{SimpleFileOptions, StreamWriter};
use zip::{CompressionMethod, ZipWriter};

use super::digest::{Hashed, Sum};
use super::index::write_zipnum;
use super::package::DataPackage;
use super::pages::{rfc3339, HEADER};
use crate::cdxj::{CdxjIndex, CdxjLine};

/// Index lines held before they are merged into the sorted temporary file.
pub const BATCH: usize = 10_000;

/// The WARC file's name in the package (and the `filename` of its index lines).
pub const DATA_WARC: &str = "data.warc.gz";

/// A package being written to `W`.
pub struct WaczStream<W: Write> {
    warc: Hashed<ZipWriter<StreamWriter<W>>>,
    meta: DataPackage,
    batch: Vec<CdxjLine>,
    index: CdxjIndex,
    /// Holds the sorted index file; removed with it.
    _scratch: tempfile::TempDir,
    pages: BufWriter<File>,
    page_count: u64,
}

impl<W: Write> std::fmt::Debug for WaczStream<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaczStream")
            .field("pages", &self.page_count)
            .finish_non_exhaustive()
    }
}

impl<W: Write> WaczStream<W> {
    /// Starts a package titled `title`, made at `created` (RFC 3339) by `software`, with the
    /// entry `archive/data.warc.gz` open for [`warc`](Self::warc).
    pub fn new(out: W, software: &str, title: &str, created: &str) -> io::Result<WaczStream<W>> {
        let mut zip = ZipWriter::new_stream(out);
        zip.start_file(format!("archive/{DATA_WARC}"), options(true))
            .map_err(io::Error::other)?;
        let scratch = tempfile::tempdir()?;
        let index = CdxjIndex::open(scratch.path().join("index.cdxj"));
        let mut meta = DataPackage::new(title.to_owned(), created.to_owned());
        meta.software(software);
        Ok(WaczStream {
            warc: Hashed::new(zip),
            meta,
            batch: Vec::new(),
            index,
            _scratch: scratch,
            pages: BufWriter::new(tempfile::tempfile()?),
            page_count: 0,
        })
    }

    /// Where the WARC's bytes go.
    pub fn warc(&mut self) -> &mut dyn Write {
        &mut self.warc
    }

    /// Bytes of the WARC so far: the offset of the next record.
    pub fn warc_position(&self) -> u64 {
        self.warc.bytes()
    }

    /// Indexes a record of the WARC (its line's `filename` is [`DATA_WARC`]).
    pub fn index(&mut self, line: CdxjLine) -> io::Result<()> {
        self.batch.push(line);
        if self.batch.len() >= BATCH {
            self.merge()?;
        }
        Ok(())
    }

    /// Lists an HTML page: its URL and capture time (14 digits).
    pub fn page(&mut self, url: &str, timestamp: &str) -> io::Result<()> {
        self.page_count += 1;
        let id = format!("{:032x}", self.page_count);
        let line = serde_json::json!({"id": id, "url": url, "ts": rfc3339(timestamp)});
        serde_json::to_writer(&mut self.pages, &line)?;
        self.pages.write_all(b"\n")
    }

    /// Writes the index, the pages and `datapackage.json` (with `description`), and the
    /// central directory; gives back the writer.
    pub fn finish(mut self, description: Option<&str>) -> io::Result<W> {
        self.merge()?;
        let (mut zip, sum) = self.warc.into_parts();
        self.meta.add(&format!("archive/{DATA_WARC}"), sum);
        self.meta.describe(description);

        let sorted: Box<dyn BufRead> = match File::open(self.index.path()) {
            Ok(f) => Box::new(BufReader::new(f)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Box::new(io::empty()),
            Err(e) => return Err(e),
        };
        let cdx = "indexes/index.cdx.gz";
        zip.start_file(cdx, options(true))
            .map_err(io::Error::other)?;
        let mut idx = Hashed::new(BufWriter::new(tempfile::tempfile()?));
        let mut out = Hashed::new(&mut zip);
        let files = [DATA_WARC.to_owned()].into_iter().collect();
        write_zipnum(sorted, &files, &mut out, &mut idx)?;
        self.meta.add(cdx, out.sum());
        let (idx, _) = idx.into_parts();
        let idx = idx.into_inner().map_err(|e| e.into_error())?;
        self.meta.add(
            "indexes/index.idx",
            copy(&mut zip, "indexes/index.idx", idx)?,
        );

        let pages = self.pages.into_inner().map_err(|e| e.into_error())?;
        let mut header = io::Cursor::new(format!("{HEADER}\n"));
        let sum = copy_after(&mut zip, "pages/pages.jsonl", &mut header, pages)?;
        self.meta.add("pages/pages.jsonl", sum);

        let (package, digest) = self.meta.to_bytes().map_err(io::Error::other)?;
        for (path, bytes) in [
            ("datapackage.json", package),
            ("datapackage-digest.json", digest),
        ] {
            zip.start_file(path, options(false))
                .map_err(io::Error::other)?;
            zip.write_all(&bytes)?;
        }
        Ok(zip.finish().map_err(io::Error::other)?.into_inner())
    }

    fn merge(&mut self) -> io::Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.batch);
        self.index.add(batch).map_err(io::Error::other)
    }
}

fn options(large: bool) -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(CompressionMethod::Stored)
        .unix_permissions(0o644)
        .large_file(large)
}

/// A new entry `path` holding `file` from its start.
fn copy<W: Write>(zip: &mut ZipWriter<StreamWriter<W>>, path: &str, file: File) -> io::Result<Sum> {
    copy_after(zip, path, &mut io::empty(), file)
}

/// A new entry `path` holding `first`, then `file` from its start.
fn copy_after<W: Write>(
    zip: &mut ZipWriter<StreamWriter<W>>,
    path: &str,
    first: &mut dyn io::Read,
    mut file: File,
) -> io::Result<Sum> {
    file.rewind()?;
    zip.start_file(path, options(false))
        .map_err(io::Error::other)?;
    let mut out = Hashed::new(zip);
    io::copy(first, &mut out)?;
    io::copy(&mut file, &mut out)?;
    Ok(out.sum())
}

//! Writing the package, entry by entry.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

use time::OffsetDateTime;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use super::digest::{Hashed, Sum};
use super::index::write_zipnum;
use super::package::DataPackage;
use super::pages::write_pages;
use super::target::Target;
use super::{WaczError, WaczOptions, WaczSummary};
use crate::archive::Reader;
use crate::warc::warc_date;

/// Writes the WACZ package of the archive `reader` reads to `out`: its closed WARC files, their
/// CDXJ lines, their HTML pages. Refuses an archive with open WARC files or items not indexed
/// yet ([`WaczError::NotReady`]); a file already at `out` is replaced only by a complete package.
pub fn write_wacz(
    reader: &Reader,
    options: &WaczOptions,
    out: &Path,
) -> Result<WaczSummary, WaczError> {
    let warcs = ready_warcs(reader)?;
    let target = Target::create(out)?;
    let created = OffsetDateTime::now_utc();
    let title = options
        .title
        .clone()
        .unwrap_or_else(|| default_title(reader));
    let mut package = Package {
        zip: ZipWriter::new(target.file()),
        meta: DataPackage::new(title, warc_date(created)),
        stamp: zip_time(created),
        target: &target,
        summary: WaczSummary::default(),
    };
    let names = package.warcs(&warcs)?;
    package.indexes(reader, &names)?;
    package.pages(reader, &names)?;
    let summary = package.finish()?;
    target.commit()?;
    Ok(WaczSummary {
        bytes: fs::metadata(out).map(|m| m.len()).unwrap_or_default(),
        ..summary
    })
}

/// The closed WARC files, sorted by name, once nothing is open or waiting for the index.
fn ready_warcs(reader: &Reader) -> Result<Vec<PathBuf>, WaczError> {
    let open = reader.open_files().map_err(WaczError::Read)?.len();
    let unindexed = reader.unindexed().map_err(WaczError::Read)?.count() as u64;
    let dir = reader.dir().display().to_string();
    if open > 0 || unindexed > 0 {
        return Err(WaczError::NotReady {
            dir,
            open,
            unindexed,
        });
    }
    let mut warcs: Vec<PathBuf> = fs::read_dir(reader.layout().warcs())
        .map_err(WaczError::Read)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".warc.gz") || name.ends_with(".warc")
        })
        .collect();
    warcs.sort();
    if warcs.is_empty() {
        return Err(WaczError::Empty(dir));
    }
    Ok(warcs)
}

fn default_title(reader: &Reader) -> String {
    let dir = reader
        .dir()
        .canonicalize()
        .unwrap_or_else(|_| reader.dir().to_owned());
    let name = dir.file_name().unwrap_or_default().to_string_lossy();
    format!("Archive {name}")
}

/// The time of every entry (DOS form; 1980 when the clock is out of its range).
fn zip_time(t: OffsetDateTime) -> zip::DateTime {
    zip::DateTime::from_date_and_time(
        u16::try_from(t.year()).unwrap_or(1980),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
    )
    .unwrap_or_default()
}

/// The package being written.
struct Package<'a> {
    zip: ZipWriter<&'a File>,
    meta: DataPackage,
    stamp: zip::DateTime,
    target: &'a Target,
    summary: WaczSummary,
}

impl Package<'_> {
    /// `archive/NAME` for every WARC file, streamed; returns their names.
    fn warcs(&mut self, warcs: &[PathBuf]) -> Result<HashSet<String>, WaczError> {
        let mut names = HashSet::new();
        for path in warcs {
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let file = File::open(path).map_err(WaczError::Read)?;
            let sum = self.entry(&format!("archive/{name}"), CompressionMethod::Stored, file)?;
            self.summary.warc_files += 1;
            self.summary.warc_bytes += sum.bytes;
            names.insert(name);
        }
        Ok(names)
    }

    /// `indexes/index.cdx.gz` and `indexes/index.idx`.
    fn indexes(&mut self, reader: &Reader, names: &HashSet<String>) -> Result<(), WaczError> {
        let lines = reader.cdxj().map_err(WaczError::Read)?;
        let mut idx = Hashed::new(io::BufWriter::new(self.target.scratch()?));
        let path = "indexes/index.cdx.gz";
        self.start(path, CompressionMethod::Stored)?;
        let mut cdx = Hashed::new(&mut self.zip);
        let written = write_zipnum(lines, names, &mut cdx, &mut idx);
        let failed = cdx.failed || idx.failed;
        let sum = cdx.sum();
        let written = written.map_err(|e| self.error(failed, e))?;
        self.meta.add(path, sum);
        self.summary.index_lines = written.lines;
        let (idx, _) = idx.into_parts();
        let mut idx = idx
            .into_inner()
            .map_err(|e| self.target.failed(e.into_error()))?;
        idx.rewind().map_err(|e| self.target.failed(e))?;
        self.entry("indexes/index.idx", CompressionMethod::Deflated, idx)?;
        Ok(())
    }

    /// `pages/pages.jsonl`.
    fn pages(&mut self, reader: &Reader, names: &HashSet<String>) -> Result<(), WaczError> {
        let path = "pages/pages.jsonl";
        self.start(path, CompressionMethod::Deflated)?;
        let mut out = Hashed::new(&mut self.zip);
        let written = write_pages(reader, names, &mut out);
        let failed = out.failed;
        let sum = out.sum();
        let (count, main) = written.map_err(|e| self.error(failed, e))?;
        self.meta.add(path, sum);
        self.meta.main_page(main);
        self.summary.pages = count;
        Ok(())
    }

    /// `datapackage.json` and `datapackage-digest.json`, then the central directory.
    fn finish(mut self) -> Result<WaczSummary, WaczError> {
        let (package, digest) = self
            .meta
            .to_bytes()
            .map_err(|e| WaczError::Read(e.into()))?;
        for (path, bytes) in [
            ("datapackage.json", package),
            ("datapackage-digest.json", digest),
        ] {
            self.start(path, CompressionMethod::Deflated)?;
            self.zip
                .write_all(&bytes)
                .map_err(|e| self.target.failed(e))?;
        }
        let target = self.target;
        self.zip.finish().map_err(|e| target.failed(e.into()))?;
        Ok(self.summary)
    }

    /// Streams `from` into a new entry and lists it in `datapackage.json`.
    fn entry(
        &mut self,
        path: &str,
        method: CompressionMethod,
        mut from: impl Read,
    ) -> Result<Sum, WaczError> {
        self.start(path, method)?;
        let mut out = Hashed::new(&mut self.zip);
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(WaczError::Read(e)),
            };
            out.write_all(&buf[..n])
                .map_err(|e| self.target.failed(e))?;
        }
        let sum = out.sum();
        self.meta.add(path, sum.clone());
        Ok(sum)
    }

    fn start(&mut self, path: &str, method: CompressionMethod) -> Result<(), WaczError> {
        let options = SimpleFileOptions::default()
            .compression_method(method)
            .last_modified_time(self.stamp)
            .unix_permissions(0o644)
            .large_file(method == CompressionMethod::Stored);
        self.zip
            .start_file(path, options)
            .map_err(|e| self.target.failed(e.into()))
    }

    /// A failed copy: the package's fault when its writer refused, else the archive's.
    fn error(&self, package_side: bool, e: io::Error) -> WaczError {
        match package_side {
            true => self.target.failed(e),
            false => WaczError::Read(e),
        }
    }
}

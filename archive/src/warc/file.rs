//! One WARC file on disk: naming (Annex C), `.open` while written, create-new, fsync and rename.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use time::macros::format_description;

use super::compress::Compression;
use super::member::Deflaters;
use time::OffsetDateTime;

/// The suffix of a file that is still being written.
pub const OPEN_SUFFIX: &str = ".open";

/// Bytes gathered before they go to the file: the records of an item leave in one `write`.
const BUFFER: usize = 256 * 1024;

/// A file being written; counts its bytes so offsets need no `seek`. Writes are buffered:
/// [`flush`](Write::flush) (done by the writer at the end of each group, before a sync and on
/// close) puts them in the file.
#[derive(Debug)]
pub(crate) struct OpenFile {
    /// Final name, `….warc.gz`.
    pub(crate) name: String,
    pub(crate) open_path: PathBuf,
    pub(crate) final_path: PathBuf,
    pub(crate) file: File,
    pub(crate) pos: u64,
    pub(crate) warcinfo_id: String,
    deflaters: Deflaters,
    /// Written but not yet in the file: the last `buf.len()` bytes before `pos`.
    buf: Vec<u8>,
}

/// `PREFIX-TIMESTAMP-SERIAL-HOST.warc.gz`, TIMESTAMP being 17 digits UTC (Annex C's 14 plus
/// milliseconds, as Heritrix writes them), SERIAL 5 digits.
pub(crate) fn file_name(prefix: &str, begun: OffsetDateTime, serial: u32, host: &str) -> String {
    let fmt = format_description!("[year][month][day][hour][minute][second][subsecond digits:3]");
    let ts = begun
        .to_offset(time::UtcOffset::UTC)
        .format(&fmt)
        .expect("a 4-digit year formats");
    format!("{prefix}-{ts}-{serial:05}-{host}.warc.gz")
}

impl OpenFile {
    /// Creates `dir/name.open` with create-new; `AlreadyExists` also when the final name exists.
    pub(crate) fn create(dir: &Path, name: String) -> io::Result<Self> {
        let final_path = dir.join(&name);
        let open_path = dir.join(format!("{name}{OPEN_SUFFIX}"));
        if final_path.exists() {
            return Err(io::ErrorKind::AlreadyExists.into());
        }
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&open_path)?;
        Ok(Self {
            name,
            open_path,
            final_path,
            file,
            pos: 0,
            warcinfo_id: String::new(),
            deflaters: Deflaters::default(),
            buf: Vec::with_capacity(BUFFER),
        })
    }

    /// Writes one record as its own gzip member; on error, truncates the file back to where the
    /// member began, so no partial record stays behind.
    pub(crate) fn write_member(
        &mut self,
        level: Compression,
        write_block: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<(u64, u64)> {
        let start = self.pos;
        let mut deflaters = std::mem::take(&mut self.deflaters);
        let result = deflaters.member(level, &mut *self, |w| {
            write_block(w)?;
            w.write_all(b"\r\n\r\n")
        });
        self.deflaters = deflaters;
        match result {
            Ok(()) => Ok((start, self.pos - start)),
            Err(e) => {
                self.cut(start)?;
                Err(e)
            }
        }
    }

    /// Cuts the file back to `len` bytes and writes on from there.
    pub(crate) fn cut(&mut self, len: u64) -> io::Result<()> {
        let on_disk = self.pos - self.buf.len() as u64;
        if len >= on_disk {
            self.buf.truncate((len - on_disk) as usize);
        } else {
            self.buf.clear();
            self.file.set_len(len)?;
            self.file.seek(SeekFrom::Start(len))?;
        }
        self.pos = len;
        Ok(())
    }

    /// Makes everything written so far durable.
    pub(crate) fn sync(&mut self) -> io::Result<()> {
        self.flush()?;
        self.file.sync_all()
    }

    /// Puts the buffered bytes in the file. If that fails (a full disk), the bytes that did
    /// not fit are dropped and the file is cut back to what it held before.
    fn drain(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let on_disk = self.pos - self.buf.len() as u64;
        match self.file.write_all(&self.buf) {
            Ok(()) => {
                self.buf.clear();
                Ok(())
            }
            Err(e) => {
                self.buf.clear();
                self.pos = on_disk;
                self.file.set_len(on_disk)?;
                self.file.seek(SeekFrom::Start(on_disk))?;
                Err(e)
            }
        }
    }

    /// fsyncs, renames `….open` to its final name and fsyncs the directory.
    pub(crate) fn close(mut self) -> io::Result<PathBuf> {
        self.sync()?;
        finish_rename(&self.open_path, &self.final_path)?;
        Ok(self.final_path.clone())
    }
}

/// Renames without replacing an existing file, then makes the rename durable.
pub(crate) fn finish_rename(from: &Path, to: &Path) -> io::Result<()> {
    if to.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} exists; not replacing it", to.display()),
        ));
    }
    fs::rename(from, to)?;
    sync_dir(to)
}

fn sync_dir(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => File::open(dir)?.sync_all(),
        _ => File::open(".")?.sync_all(),
    }
}

impl Write for OpenFile {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.buf.len() + data.len() > BUFFER {
            self.drain()?;
        }
        if data.len() >= BUFFER {
            let n = self.file.write(data)?;
            self.pos += n as u64;
            return Ok(n);
        }
        self.buf.extend_from_slice(data);
        self.pos += data.len() as u64;
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.drain()?;
        self.file.flush()
    }
}

impl Drop for OpenFile {
    /// A file dropped unclosed (an error ended the run) keeps its records, `.open`, for
    /// recovery, as if the process had stopped there.
    fn drop(&mut self) {
        let _ = self.drain();
    }
}

/// The host name for file names: the kernel's, else `localhost`; characters outside
/// `[A-Za-z0-9.-]` become `_`.
pub(crate) fn default_host() -> String {
    let raw = fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let host = sanitize(raw.trim());
    if host.is_empty() {
        "localhost".to_owned()
    } else {
        host
    }
}

pub(crate) fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn annex_c_name() {
        let t = datetime!(2024-05-01 14:03:09.5 +02:00);
        assert_eq!(
            file_name("oai", t, 7, "host-1"),
            "oai-20240501120309500-00007-host-1.warc.gz"
        );
        assert_eq!(sanitize("a b/c"), "a_b_c");
        assert!(!default_host().is_empty());
    }

    #[test]
    fn create_new_refuses_existing_names() {
        let dir = tempfile::tempdir().unwrap();
        let f = OpenFile::create(dir.path(), "x.warc.gz".into()).unwrap();
        let err = OpenFile::create(dir.path(), "x.warc.gz".into()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        let done = f.close().unwrap();
        assert_eq!(done, dir.path().join("x.warc.gz"));
        let err = OpenFile::create(dir.path(), "x.warc.gz".into()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
    }
}

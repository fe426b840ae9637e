//! [`Writer`]: records into rotating `.warc.gz` files, each record its own gzip member.

use std::io::{self, Read, Write};
use std::path::PathBuf;

use time::OffsetDateTime;

use super::compress::Compression;
use super::digest::{sha1_digest, EMPTY_SHA1};
use super::file::{self, OpenFile};
use super::record::{
    invalid, new_record_id, warc_date, Head, RecordRef, RecordType, WarcFields,
    IDENTICAL_PAYLOAD_DIGEST,
};
use super::spool::{self, Spool, DEFAULT_SPOOL_THRESHOLD};

/// Where and how a [`Writer`] writes. Built with consuming setters.
#[derive(Clone, Debug)]
pub struct WriterConfig {
    dir: PathBuf,
    prefix: String,
    host: String,
    max_file_size: u64,
    spool_threshold: usize,
    spool_dir: Option<PathBuf>,
    warcinfo: WarcFields,
}

impl WriterConfig {
    /// Files go to `dir`, named `PREFIX-TIMESTAMP-SERIAL-HOST.warc.gz`; characters outside
    /// `[A-Za-z0-9.-]` in the prefix become `_`.
    pub fn new(dir: impl Into<PathBuf>, prefix: &str) -> Self {
        Self {
            dir: dir.into(),
            prefix: file::sanitize(prefix),
            host: file::default_host(),
            max_file_size: 1_000_000_000,
            spool_threshold: DEFAULT_SPOOL_THRESHOLD,
            spool_dir: None,
            warcinfo: WarcFields::new(),
        }
    }

    /// The host part of file names. Defaults to the kernel's host name (else `localhost`).
    pub fn host(mut self, host: &str) -> Self {
        self.host = file::sanitize(host);
        self
    }

    /// Once a record takes a file to this size or past it, the next record goes to a new file;
    /// records are never split (so 0 means one record per file). Defaults to 1 GB (Annex C).
    pub fn max_file_size(mut self, bytes: u64) -> Self {
        self.max_file_size = bytes;
        self
    }

    /// Payloads up to this many bytes are spooled in memory, larger ones in a temporary file
    /// (0: every non-empty payload goes to a file). Defaults to 1 MiB.
    pub fn spool_threshold(mut self, bytes: usize) -> Self {
        self.spool_threshold = bytes;
        self
    }

    /// Directory of spool files. Defaults to the output directory (same disk, not a tmpfs).
    pub fn spool_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.spool_dir = Some(dir.into());
        self
    }

    /// Extra `warcinfo` fields (e.g. `isPartOf`, `description`) after `software`, `format` and
    /// `hostname`. Defaults to none.
    pub fn warcinfo(mut self, fields: WarcFields) -> Self {
        self.warcinfo = fields;
        self
    }
}

/// A durable point: every byte of `file_name` before `offset` has been fsynced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// Final file name (`….warc.gz`; while open it is on disk with `.open` appended).
    pub file_name: String,
    /// Length of the durable prefix.
    pub offset: u64,
}

/// Writes WARC 1.1 records to `.warc.gz` files, one gzip member per record.
///
/// A file is created (create-new, as `….warc.gz.open`, warcinfo first) with the first record
/// after a rotation, and renamed when closed. Call [`close`](Self::close) at the end; a dropped
/// writer leaves its file `.open` for [`recover`](super::recover).
#[derive(Debug)]
pub struct Writer {
    config: WriterConfig,
    serial: u32,
    file: Option<OpenFile>,
    last: Option<Position>,
    closed: Vec<PathBuf>,
    /// Inside [`Writer::group`]: no rotation.
    hold: bool,
    /// Groups stay in the buffer for [`Writer::flush`] ([`Writer::hold_groups`]).
    hold_groups: bool,
}

/// The block of a record being written.
enum Block<'a> {
    Bytes(&'a [u8]),
    Spooled(&'a mut Spool),
}

impl Writer {
    /// A writer that has not created a file yet.
    pub fn new(config: WriterConfig) -> Self {
        Self {
            config,
            serial: 0,
            file: None,
            last: None,
            closed: Vec::new(),
            hold: false,
            hold_groups: false,
        }
    }

    /// Writes a `resource` record whose block (= payload) is read from `payload` to its end.
    /// The compression follows [`Compression::for_content_type`].
    pub fn write_resource(
        &mut self,
        target_uri: &str,
        content_type: &str,
        date: OffsetDateTime,
        extra_headers: &[(&str, &str)],
        mut payload: impl Read,
    ) -> io::Result<RecordRef> {
        let mut spool = self.begin_payload();
        spool::fill(&mut spool, &mut payload)?;
        self.finish_payload(target_uri, content_type, date, extra_headers, spool)
    }

    /// A sink for a payload written in chunks, to be passed to [`finish_payload`](Self::finish_payload).
    pub fn begin_payload(&self) -> Spool {
        let dir = self.config.spool_dir.as_ref().unwrap_or(&self.config.dir);
        Spool::new(dir.clone(), self.config.spool_threshold)
    }

    /// Writes the `resource` record of a payload collected with [`begin_payload`](Self::begin_payload).
    pub fn finish_payload(
        &mut self,
        target_uri: &str,
        content_type: &str,
        date: OffsetDateTime,
        extra_headers: &[(&str, &str)],
        mut payload: Spool,
    ) -> io::Result<RecordRef> {
        let id = new_record_id();
        let digest = payload.digest();
        let mut head = Head::new(RecordType::Resource, &id, date);
        head.field("WARC-Target-URI", target_uri)?;
        self.common_fields(&mut head)?;
        head.field("Content-Type", content_type)?;
        head.extra(extra_headers)?;
        head.field("WARC-Payload-Digest", &digest)?;
        let head = head.finish(payload.len(), &digest);
        let level = Compression::for_payload(content_type, &mut payload)?;
        let r = self.emit(&head, Block::Spooled(&mut payload), level)?;
        Ok(self.reference(r, id, Some(target_uri), date, digest))
    }

    /// Writes the records of `f` into one file: a rotation that is due happens before them,
    /// never between them, so a crash recovery that cuts a file never splits a group. If `f`
    /// fails (a full disk, say), the file is cut back to where the group began: no record of a
    /// group that failed stays behind.
    pub fn group<T>(&mut self, f: impl FnOnce(&mut Self) -> io::Result<T>) -> io::Result<T> {
        let start = self.open_file()?.pos;
        self.hold = true;
        let result = f(self);
        self.hold = false;
        let Some(file) = &mut self.file else {
            return result;
        };
        // The group's records go to the file together, before the caller records them.
        let result = match self.hold_groups {
            true => result,
            false => result.and_then(|r| file.flush().map(|()| r)),
        };
        if result.is_err() {
            file.cut(start)?;
        }
        result
    }

    /// While `on`, a [`group`](Self::group) leaves its records in the buffer (256 KiB, written
    /// when full) for [`flush`](Self::flush), so that the records of many groups leave in one
    /// `write`; a group that fails may then take earlier groups' buffered records with it.
    pub fn hold_groups(&mut self, on: bool) {
        self.hold_groups = on;
    }

    /// Puts the buffered records in the file.
    pub fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }

    /// Writes a `metadata` record (`application/warc-fields`) describing `describes`, at its
    /// target URI and date, linked by `WARC-Refers-To` and `WARC-Concurrent-To`.
    ///
    /// Only warc-fields go under the described URI: with another type at the same URI and date,
    /// pywb replays the metadata instead of the resource.
    pub fn write_metadata(
        &mut self,
        describes: &RecordRef,
        fields: &WarcFields,
        extra_headers: &[(&str, &str)],
    ) -> io::Result<RecordRef> {
        let id = new_record_id();
        let date = describes.date;
        let mut head = Head::new(RecordType::Metadata, &id, date);
        if let Some(uri) = &describes.target_uri {
            head.field("WARC-Target-URI", uri)?;
        }
        self.common_fields(&mut head)?;
        head.field("WARC-Refers-To", &describes.record_id)?;
        head.field("WARC-Concurrent-To", &describes.record_id)?;
        head.field("Content-Type", "application/warc-fields")?;
        head.extra(extra_headers)?;
        let block = fields.as_bytes();
        let digest = sha1_digest(block);
        let head = head.finish(block.len() as u64, &digest);
        let r = self.emit(&head, Block::Bytes(block), Compression::Fast)?;
        let uri = describes.target_uri.as_deref();
        Ok(self.reference(r, id, uri, date, digest))
    }

    /// Writes a `metadata` record with any content type at its own `target_uri` (e.g. XML under
    /// a synthesized or OAI request URI, never under a resource's URI: see
    /// [`write_metadata`](Self::write_metadata)), optionally linked to the record it describes.
    pub fn write_metadata_payload(
        &mut self,
        target_uri: &str,
        content_type: &str,
        date: OffsetDateTime,
        describes: Option<&RecordRef>,
        mut payload: Spool,
    ) -> io::Result<RecordRef> {
        let id = new_record_id();
        let mut head = Head::new(RecordType::Metadata, &id, date);
        head.field("WARC-Target-URI", target_uri)?;
        self.common_fields(&mut head)?;
        if let Some(d) = describes {
            head.field("WARC-Refers-To", &d.record_id)?;
            head.field("WARC-Concurrent-To", &d.record_id)?;
        }
        head.field("Content-Type", content_type)?;
        let digest = payload.digest();
        let head = head.finish(payload.len(), &digest);
        let level = Compression::for_payload(content_type, &mut payload)?;
        let r = self.emit(&head, Block::Spooled(&mut payload), level)?;
        Ok(self.reference(r, id, Some(target_uri), date, digest))
    }

    /// Writes an empty-block `revisit` record (WARC 1.1 §6.7.2, identical-payload-digest) of
    /// `target_uri` at `date` whose payload is identical to `original`'s, which must have a
    /// target URI.
    pub fn write_revisit(
        &mut self,
        target_uri: &str,
        date: OffsetDateTime,
        original: &RecordRef,
        extra_headers: &[(&str, &str)],
    ) -> io::Result<RecordRef> {
        let original_uri = original
            .target_uri
            .as_deref()
            .ok_or_else(|| invalid("revisit of a record without target URI".into()))?;
        let id = new_record_id();
        let mut head = Head::new(RecordType::Revisit, &id, date);
        head.field("WARC-Target-URI", target_uri)?;
        self.common_fields(&mut head)?;
        head.field("WARC-Profile", IDENTICAL_PAYLOAD_DIGEST)?;
        head.field("WARC-Refers-To-Target-URI", original_uri)?;
        head.field("WARC-Refers-To-Date", &warc_date(original.date))?;
        head.field("WARC-Refers-To", &original.record_id)?;
        head.extra(extra_headers)?;
        head.field("WARC-Payload-Digest", &original.payload_digest)?;
        let head = head.finish(0, EMPTY_SHA1);
        let r = self.emit(&head, Block::Bytes(b""), Compression::Fast)?;
        let digest = original.payload_digest.clone();
        Ok(self.reference(r, id, Some(target_uri), date, digest))
    }

    /// fsyncs the open file and returns the durable position: everything written before it
    /// survives a crash. `None` before the first record.
    pub fn sync(&mut self) -> io::Result<Option<Position>> {
        match &mut self.file {
            Some(f) => {
                f.sync()?;
                Ok(Some(Position {
                    file_name: f.name.clone(),
                    offset: f.pos,
                }))
            }
            None => Ok(self.last.clone()),
        }
    }

    /// The files this writer has closed so far, in order.
    pub fn closed_files(&self) -> &[PathBuf] {
        &self.closed
    }

    /// Closes the open file, if any (fsync, then rename from `.open`), and returns every file
    /// this writer closed, in order.
    pub fn close(mut self) -> io::Result<Vec<PathBuf>> {
        self.close_file()?;
        Ok(std::mem::take(&mut self.closed))
    }

    fn common_fields(&mut self, head: &mut Head) -> io::Result<()> {
        let f = self.open_file()?;
        head.field("WARC-Warcinfo-ID", &f.warcinfo_id)
    }

    /// Writes one record as one gzip member of the open file.
    fn emit(&mut self, head: &[u8], block: Block<'_>, c: Compression) -> io::Result<(u64, u64)> {
        let f = self.open_file()?;
        let (offset, length) = f.write_member(c, |out| {
            out.write_all(head)?;
            match block {
                Block::Bytes(b) => out.write_all(b),
                Block::Spooled(s) => s.copy_into(out),
            }
        })?;
        Ok((offset, length))
    }

    fn reference(
        &self,
        (offset, length): (u64, u64),
        record_id: String,
        target_uri: Option<&str>,
        date: OffsetDateTime,
        payload_digest: String,
    ) -> RecordRef {
        let f = self.file.as_ref().expect("a record was just written");
        RecordRef {
            file_name: f.name.clone(),
            offset,
            length,
            record_id,
            target_uri: target_uri.map(str::to_owned),
            date,
            payload_digest,
        }
    }

    /// The file for the next record. Rotation happens here, before a record rather than right
    /// after the one that passed the limit, so a failed close is reported and never mistaken
    /// for a failed record.
    fn open_file(&mut self) -> io::Result<&mut OpenFile> {
        if self
            .file
            .as_ref()
            .is_some_and(|f| !self.hold && f.pos >= self.config.max_file_size)
        {
            self.close_file()?;
        }
        if self.file.is_none() {
            let f = self.create_file()?;
            self.file = Some(f);
        }
        Ok(self.file.as_mut().expect("just opened"))
    }

    /// Creates the next file (skipping serials whose names exist) and writes its warcinfo.
    fn create_file(&mut self) -> io::Result<OpenFile> {
        let now = OffsetDateTime::now_utc();
        let c = &self.config;
        let mut f = loop {
            let name = file::file_name(&c.prefix, now, self.serial, &c.host);
            self.serial += 1;
            match OpenFile::create(&c.dir, name) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && self.serial < 100_000 => {}
                other => break other?,
            }
        };
        let id = new_record_id();
        let mut fields = WarcFields::new();
        fields.field(
            "software",
            concat!("modoai-harvester/", env!("CARGO_PKG_VERSION")),
        )?;
        fields.field("format", "WARC File Format 1.1")?;
        fields.field("hostname", &c.host)?;
        let mut block = fields.as_bytes().to_vec();
        block.extend_from_slice(c.warcinfo.as_bytes());
        let mut head = Head::new(RecordType::Warcinfo, &id, now);
        head.field("WARC-Filename", &f.name)?;
        head.field("Content-Type", "application/warc-fields")?;
        let head = head.finish(block.len() as u64, &sha1_digest(&block));
        f.write_member(Compression::Fast, |out| {
            out.write_all(&head)?;
            out.write_all(&block)
        })?;
        f.warcinfo_id = id;
        Ok(f)
    }

    fn close_file(&mut self) -> io::Result<()> {
        if let Some(f) = self.file.take() {
            let position = Position {
                file_name: f.name.clone(),
                offset: f.pos,
            };
            self.closed.push(f.close()?);
            self.last = Some(position);
        }
        Ok(())
    }
}

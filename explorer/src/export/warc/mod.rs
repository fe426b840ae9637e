//! A WARC export: a `warcinfo` record saying what the file is, then the records of the
//! search's captures as stored (`resource`, `response`, `revisit`), each revisit's original
//! (once, before the first revisit that needs it, from whichever collection holds it:
//! [`find_originals`](crate::search::find_originals)) and the CRATE `metadata` record a modoai
//! archive holds for a capture: one gzip member per record (WARC 1.1 Annex D), concatenated
//! as one `.warc.gz` (`docs/explorer.md`, "Exports").
//!
//! Memory is a record's copy buffer and the set of records written, so that none is written
//! twice (an original several revisits need, a CRATE record several parts share): eight bytes
//! of a hash per record, some 2 MB for 100,000 captures, whatever the payloads weigh.

mod chunks;
mod info;
mod record;

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::io::{self, Write};
use std::path::PathBuf;

use modoai_archive::any::{open, Framing, Location, Source};
use modoai_archive::archive::{timestamp14, ReadError, Reader, ResolveError};
use time::OffsetDateTime;

pub use chunks::Chunks;

use crate::capture::host_and_path;
use crate::capture::{CaptureKind, RecordAt};
use crate::search::{Facet, Item, Scope, Stored};

/// What a WARC export says of itself and where the modoai archives are.
#[derive(Clone, Debug, Default)]
pub struct WarcContext {
    /// The search, as a query string.
    pub query: String,
    /// When the export started, whole seconds.
    pub created: Option<OffsetDateTime>,
    /// The captures it holds.
    pub count: u64,
    /// The folder of each archive served, by its place among them.
    pub archives: Vec<PathBuf>,
    /// What the caller may see: a revisit's original at another host goes along only if the
    /// scope admits that host (a URL-agnostic revisit's original is another URL's record).
    pub scope: Scope,
}

/// Why a WARC export stopped.
#[derive(Debug, thiserror::Error)]
pub enum WarcError {
    /// The client went away.
    #[error("the client went away")]
    Gone,
    /// A record cannot be read or written.
    #[error("capture {capture}: {source}")]
    Record {
        /// The capture's id.
        capture: String,
        /// What failed.
        source: io::Error,
    },
    /// A modoai archive cannot be opened.
    #[error("archive {}: {source}", archive.display())]
    Archive {
        /// Its folder.
        archive: PathBuf,
        /// What failed.
        source: ReadError,
    },
}

/// A record written into the export: where it came from, and where it is in the export.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The record in its archive.
    pub at: Location,
    /// Offset of its gzip member in the export.
    pub offset: u64,
    /// Length of that member.
    pub length: u64,
}

/// Writes a WARC export, a page of captures at a time.
#[derive(Debug)]
pub struct WarcExport {
    context: WarcContext,
    readers: HashMap<usize, Reader>,
    written: HashSet<u64>,
    last_file: record::LastFile,
    /// Bytes written.
    position: u64,
    /// The records written since [`WarcExport::take_placed`], when they are kept.
    placed: Option<Vec<Placed>>,
}

impl WarcExport {
    /// An export of `context`'s search.
    pub fn new(context: WarcContext) -> WarcExport {
        WarcExport {
            context,
            readers: HashMap::new(),
            written: HashSet::new(),
            last_file: record::LastFile::default(),
            position: 0,
            placed: None,
        }
    }

    /// Keeps where each record is written, for [`WarcExport::take_placed`] (an index of the
    /// export needs it).
    pub fn keeping_places(mut self) -> WarcExport {
        self.placed = Some(Vec::new());
        self
    }

    /// The records written since the last call.
    pub fn take_placed(&mut self) -> Vec<Placed> {
        self.placed.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Writes the `warcinfo` record.
    pub fn head(&mut self, out: &mut dyn Write) -> Result<(), WarcError> {
        let c = &self.context;
        let created = c.created.unwrap_or_else(OffsetDateTime::now_utc);
        let mut out = Counted {
            inner: out,
            n: self.position,
        };
        let written = info::warcinfo(&c.query, created, c.count, &mut out);
        self.position = out.n;
        written.map_err(|e| failed("warcinfo", e))
    }

    /// Writes the records of `captures`, each in the archive at its place in `places`.
    pub fn page(
        &mut self,
        captures: &[(Item, Stored)],
        places: &[usize],
        out: &mut dyn Write,
    ) -> Result<(), WarcError> {
        let mut out = Counted {
            inner: out,
            n: self.position,
        };
        let mut written = Ok(());
        for ((item, stored), place) in captures.iter().zip(places) {
            written = self.capture(item, stored, *place, &mut out);
            if written.is_err() {
                break;
            }
        }
        self.position = out.n;
        written
    }

    /// Writes the last bytes held back.
    pub fn finish(&mut self, out: &mut dyn Write) -> Result<(), WarcError> {
        out.flush().map_err(|e| failed("the end", e))
    }

    fn capture(
        &mut self,
        item: &Item,
        stored: &Stored,
        place: usize,
        out: &mut Counted<'_>,
    ) -> Result<(), WarcError> {
        let fail = |e| failed(&item.id, e);
        let modoai = stored.location.is_none();
        let (own, original, crate_at) = match &stored.location {
            Some(location) => {
                let original = match item.kind {
                    CaptureKind::Revisit => stored.payload_at.clone(),
                    _ => None,
                };
                (location.clone(), original, None)
            }
            None => {
                let own = self.modoai(place, &stored.record, &item.id)?;
                let original = match item.kind {
                    CaptureKind::Revisit => self.original(place, &own, &item.id)?,
                    _ => None,
                };
                let crate_at = match &stored.crate_at {
                    Some(at) => Some(self.modoai(place, at, &item.id)?),
                    None => None,
                };
                (own, original, crate_at)
            }
        };
        let original = match original {
            Some(at) if !self.admits(&at, item)? => None,
            original => original,
        };
        let records = [original.as_ref(), Some(&own), crate_at.as_ref()];
        for at in records.into_iter().flatten() {
            if self.written.insert(key(at)) {
                let offset = out.n;
                match modoai {
                    true => self.last_file.copy_member(at, out),
                    false => record::copy_record(at, out),
                }
                .map_err(fail)?;
                if let Some(placed) = &mut self.placed {
                    placed.push(Placed {
                        at: at.clone(),
                        offset,
                        length: out.n - offset,
                    });
                }
            }
        }
        Ok(())
    }

    /// Where a record of the modoai archive at `place` is.
    fn modoai(
        &mut self,
        place: usize,
        at: &RecordAt,
        capture: &str,
    ) -> Result<Location, WarcError> {
        let reader = self.reader(place)?;
        let file = reader
            .warc_file(&at.file)
            .and_then(|f| {
                f.ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "the WARC file is gone"))
            })
            .map_err(|e| failed(capture, e))?;
        Ok(gzip_member(file.path, at.offset, at.length))
    }

    /// The original a modoai revisit at `at` refers to (WARC 1.1 §6.7), `None` when the archive
    /// does not hold it.
    fn original(
        &mut self,
        place: usize,
        at: &Location,
        capture: &str,
    ) -> Result<Option<Location>, WarcError> {
        let fields = open(at).map_err(|e| failed(capture, e))?.fields;
        let (Some(uri), Some(date)) = (fields.refers_to_target_uri, fields.refers_to_date) else {
            return Ok(None);
        };
        match self.reader(place)?.find(&uri, &timestamp14(date)) {
            Ok(r) => Ok(Some(gzip_member(r.file, r.offset, r.length))),
            Err(ResolveError::NotFound { .. }) => Ok(None),
            Err(e) => Err(failed(capture, io::Error::other(e))),
        }
    }

    /// Whether the caller's scope admits the original at `at` of `revisit`: always at the
    /// revisit's own host; at another host, if the scope admits that host.
    fn admits(&self, at: &Location, revisit: &Item) -> Result<bool, WarcError> {
        if self.context.scope.is_all() {
            return Ok(true);
        }
        let fields = open(at).map_err(|e| failed(&revisit.id, e))?.fields;
        let (host, _) = host_and_path(fields.target_uri.as_deref().unwrap_or_default());
        Ok(host == revisit.host || self.context.scope.admits(Facet::Host, &host))
    }

    fn reader(&mut self, place: usize) -> Result<&Reader, WarcError> {
        if !self.readers.contains_key(&place) {
            let dir = self
                .context
                .archives
                .get(place)
                .cloned()
                .unwrap_or_default();
            let reader = Reader::open(&dir).map_err(|source| WarcError::Archive {
                archive: dir,
                source,
            })?;
            self.readers.insert(place, reader);
        }
        Ok(&self.readers[&place])
    }
}

/// A writer that counts what it passes on: the position in the export.
struct Counted<'a> {
    inner: &'a mut dyn Write,
    n: u64,
}

impl Write for Counted<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(bytes)?;
        self.n += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn gzip_member(file: PathBuf, offset: u64, length: u64) -> Location {
    Location {
        source: Source::file(file),
        offset,
        length,
        framing: Framing::Gzip,
    }
}

/// What names a record among those written.
fn key(at: &Location) -> u64 {
    let mut h = DefaultHasher::new();
    (&at.source, at.offset).hash(&mut h);
    h.finish()
}

fn failed(capture: &str, source: io::Error) -> WarcError {
    match source.kind() {
        io::ErrorKind::BrokenPipe => WarcError::Gone,
        _ => WarcError::Record {
            capture: capture.to_owned(),
            source,
        },
    }
}

//! An archive directory: rotating WARC files, a sorted CDXJ index, the ledger of harvested items
//! and the harvest state, behind an exclusive lock.
//!
//! ```text
//! ARCHIVE/warcs/*.warc.gz   WARC 1.1, one gzip member per record (`.open` while written)
//! ARCHIVE/index.cdxj        CDXJ, SURT-keyed, sorted (pywb reads it as is)
//! ARCHIVE/ledger.jsonl      one line per harvested item, written after its records
//! ARCHIVE/state.json        per list: the next resumption token, the incremental `from`
//! ARCHIVE/spool/            payloads being received (cleared on open)
//! ARCHIVE/lock              held (flock) while a harvester uses the archive
//! ```
//!
//! Opening an archive finishes whatever a crashed run left: `.open` WARC files are cut back to the
//! end of the last item the ledger knows (an item written without its ledger line is harvested
//! again), then checked and closed; ledger lines not yet in the index are indexed.

mod ledger;
mod parts;
mod recovery;
mod state;

use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};
use time::OffsetDateTime;

use crate::cdxj::{CdxjError, CdxjIndex};
use crate::pwid::check_archive_id;
use crate::warc::{RecordRef, RecordType, WarcFields, Writer, WriterConfig};

pub use ledger::{Entry, Written};
pub use parts::{
    entries, extract, parts_of, resolve, stored_archive_id, Part, ResolveError, Resolved,
};
pub use recovery::Recovery;
pub use state::{ListKey, ListState, Run, Running, State};

use ledger::Ledger;

/// Why an archive could not be opened or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArchiveError {
    /// Another process holds the archive.
    #[error("archive {0} is in use by another harvester (lock held on its `lock` file)")]
    Locked(PathBuf),
    /// File system trouble.
    #[error("archive {path}: {source}")]
    Io {
        /// Where.
        path: PathBuf,
        /// What.
        #[source]
        source: io::Error,
    },
    /// The index could not be updated.
    #[error("archive index: {0}")]
    Index(#[from] CdxjError),
    /// The archive id asked for is not the archive's, or not a valid one.
    #[error("{0}")]
    ArchiveId(String),
}

fn at(path: &Path) -> impl FnOnce(io::Error) -> ArchiveError + '_ {
    move |source| ArchiveError::Io {
        path: path.to_owned(),
        source,
    }
}

/// The archive id: the stored one, which `options` may only repeat; else the one asked for, else
/// this machine's name.
fn archive_id(state: &State, options: &ArchiveOptions) -> Result<String, ArchiveError> {
    let asked = options.archive_id.as_deref();
    if let Some(asked) = asked {
        check_archive_id(asked).map_err(|e| ArchiveError::ArchiveId(e.to_string()))?;
    }
    match (&state.archive_id, asked) {
        (Some(have), Some(asked)) if have != asked => Err(ArchiveError::ArchiveId(format!(
            "the archive's id is {have:?}, not {asked:?}: its PWIDs name it, so it cannot change"
        ))),
        (Some(have), _) => Ok(have.clone()),
        (None, Some(asked)) => Ok(asked.to_owned()),
        (None, None) => Ok(crate::warc::default_host()),
    }
}

/// Ledger bytes after which a checkpoint also merges the new entries into the index, so a long
/// harvest keeps its index current and the merge batch (held in memory) small.
const INDEX_BATCH: u64 = 8 << 20;

/// How new WARC files are written.
#[derive(Clone, Debug)]
pub struct ArchiveOptions {
    /// File name prefix. Default `modoai`.
    pub prefix: String,
    /// Rotation size. Default 1 GB.
    pub max_file_size: u64,
    /// Host part of file names; `None` = this machine's name.
    pub host: Option<String>,
    /// The archive id of its PWIDs (`1*unreserved`, in practice a domain). Set once: the first
    /// harvest stores it (`None` = this machine's name), and asking for another one later is an
    /// error, since the PWIDs already given out would stop resolving.
    pub archive_id: Option<String>,
}

impl Default for ArchiveOptions {
    fn default() -> Self {
        Self {
            prefix: "modoai".into(),
            max_file_size: 1_000_000_000,
            host: None,
            archive_id: None,
        }
    }
}

/// The original capture of a payload, for revisit records.
#[derive(Clone, Debug)]
pub struct Original {
    /// Its record.
    pub record: RecordRef,
}

/// An open archive. See the [module docs](self).
#[derive(Debug)]
pub struct Archive {
    dir: PathBuf,
    options: ArchiveOptions,
    _lock: Flock<File>,
    writer: Option<Writer>,
    ledger: Ledger,
    state: State,
    /// Digests of (endpoint, prefix, identifier, datestamp) of every item held: 20 bytes per
    /// item, so ten million items fit in a few hundred MB.
    seen: HashSet<[u8; 20]>,
    /// Hash of a payload digest → ledger offset of the first item with a resource of that
    /// payload (16 bytes per payload; the record itself is read back from the ledger).
    originals: HashMap<u64, u64>,
    recovery: Recovery,
}

impl Archive {
    /// Opens (creating if needed) the archive at `dir`, locks it, and recovers from a crash.
    pub fn open(dir: &Path, options: ArchiveOptions) -> Result<Archive, ArchiveError> {
        for sub in ["warcs", "spool"] {
            fs::create_dir_all(dir.join(sub)).map_err(at(dir))?;
        }
        let lock_path = dir.join("lock");
        let lock_file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(at(&lock_path))?;
        let lock = Flock::lock(lock_file, FlockArg::LockExclusiveNonblock)
            .map_err(|_| ArchiveError::Locked(dir.to_owned()))?;
        // Spool files are unnamed on Linux; remove named leftovers of other platforms.
        if let Ok(read) = fs::read_dir(dir.join("spool")) {
            for e in read.flatten() {
                let _ = fs::remove_file(e.path());
            }
        }
        let ledger_path = dir.join("ledger.jsonl");
        let mut ends = recovery::Ends::default();
        let mut known = Vec::new();
        let ledger = Ledger::open(&ledger_path, |offset, entry| {
            ends.add(&entry);
            known.push(remembered(offset, &entry));
        })
        .map_err(at(&ledger_path))?;
        let state_path = dir.join("state.json");
        let mut state = State::load(&state_path).map_err(at(&state_path))?;
        state.archive_id = Some(archive_id(&state, &options)?);
        let warcs = dir.join("warcs");
        let recovery = recovery::recover_open_files(&warcs, &ends).map_err(at(&warcs))?;
        let mut archive = Archive {
            dir: dir.to_owned(),
            options,
            _lock: lock,
            writer: None,
            ledger,
            state,
            seen: HashSet::new(),
            originals: HashMap::new(),
            recovery,
        };
        for (key, originals) in known {
            archive.learn(key, originals);
        }
        archive.update_index()?;
        Ok(archive)
    }

    /// The archive's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The archive id of its PWIDs.
    pub fn archive_id(&self) -> &str {
        self.state.archive_id.as_deref().unwrap_or("localhost")
    }

    /// What opening the archive had to repair.
    pub fn recovery(&self) -> &Recovery {
        &self.recovery
    }

    /// The harvest state.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The harvest state, to change before [`checkpoint`](Self::checkpoint).
    pub fn state_mut(&mut self) -> &mut State {
        &mut self.state
    }

    /// Whether the archive holds this item already.
    pub fn contains(
        &self,
        endpoint: &str,
        prefix: &str,
        identifier: &str,
        datestamp: &str,
    ) -> bool {
        self.seen
            .contains(&item_key(endpoint, prefix, identifier, datestamp))
    }

    /// The first resource archived with this payload digest, if any.
    pub fn original(&self, digest: &str) -> Result<Option<RecordRef>, ArchiveError> {
        let Some(&offset) = self.originals.get(&digest_hash(digest)) else {
            return Ok(None);
        };
        let path = self.dir.join("ledger.jsonl");
        let entry = self.ledger.read_at(offset).map_err(at(&path))?;
        Ok(entry
            .records
            .iter()
            .find(|r| r.kind == RecordType::Resource && r.digest == digest)
            .map(record_ref))
    }

    /// The WARC writer, created with `warcinfo` fields on first use in this run.
    pub fn writer(&mut self, warcinfo: impl FnOnce() -> WarcFields) -> &mut Writer {
        let (dir, options) = (&self.dir, &self.options);
        self.writer.get_or_insert_with(|| {
            let mut config = WriterConfig::new(dir.join("warcs"), &options.prefix)
                .max_file_size(options.max_file_size)
                .spool_dir(dir.join("spool"))
                .warcinfo(warcinfo());
            if let Some(host) = &options.host {
                config = config.host(host);
            }
            Writer::new(config)
        })
    }

    /// Records an item whose WARC records were just written (one ledger `write`).
    pub fn commit(&mut self, entry: &Entry) -> Result<(), ArchiveError> {
        let path = self.dir.join("ledger.jsonl");
        let offset = self.ledger.append(entry).map_err(at(&path))?;
        let (key, originals) = remembered(offset, entry);
        self.learn(key, originals);
        Ok(())
    }

    /// Makes everything so far durable (WARC file, then ledger), then saves the state: after a
    /// crash the harvest continues from here.
    pub fn checkpoint(&mut self) -> Result<(), ArchiveError> {
        if let Some(w) = &mut self.writer {
            w.sync().map_err(at(&self.dir))?;
        }
        let ledger = self.dir.join("ledger.jsonl");
        self.ledger.sync().map_err(at(&ledger))?;
        if self.ledger.len() - self.state.indexed >= INDEX_BATCH {
            // Saves the state too.
            return self.update_index();
        }
        let path = self.dir.join("state.json");
        self.state.save(&path).map_err(at(&path))
    }

    /// Merges ledger entries not yet indexed into `index.cdxj`.
    pub fn update_index(&mut self) -> Result<(), ArchiveError> {
        let ledger = self.dir.join("ledger.jsonl");
        if self.state.indexed >= self.ledger.len() {
            return Ok(());
        }
        self.ledger.sync().map_err(at(&ledger))?;
        let entries = self
            .ledger
            .entries_from(self.state.indexed)
            .map_err(at(&ledger))?;
        let lines = entries
            .iter()
            .flat_map(|e| e.records.iter().filter_map(Written::cdxj));
        self.index().add(lines)?;
        self.state.indexed = self.ledger.len();
        let path = self.dir.join("state.json");
        self.state.save(&path).map_err(at(&path))
    }

    /// The CDXJ index.
    pub fn index(&self) -> CdxjIndex {
        CdxjIndex::open(self.dir.join("index.cdxj"))
    }

    /// Ends a harvest run: closes its WARC file (the next run starts a new one with its own
    /// warcinfo), indexes what it added, and saves the state.
    pub fn end_run(&mut self) -> Result<(), ArchiveError> {
        if let Some(w) = self.writer.take() {
            w.close().map_err(at(&self.dir))?;
        }
        self.update_index()?;
        self.checkpoint()
    }

    /// Closes the WARC file, indexes, and saves the state.
    pub fn close(mut self) -> Result<Vec<PathBuf>, ArchiveError> {
        let files = match self.writer.take() {
            Some(w) => w.close().map_err(at(&self.dir))?,
            None => Vec::new(),
        };
        self.update_index()?;
        self.checkpoint()?;
        Ok(files)
    }

    fn learn(&mut self, key: [u8; 20], originals: Vec<(u64, u64)>) {
        self.seen.insert(key);
        for (hash, offset) in originals {
            self.originals.entry(hash).or_insert(offset);
        }
    }
}

/// What the archive keeps in memory of an entry: its item key, and (digest hash, ledger offset)
/// of its resources.
fn remembered(offset: u64, entry: &Entry) -> ([u8; 20], Vec<(u64, u64)>) {
    let key = item_key(
        &entry.endpoint,
        &entry.prefix,
        &entry.identifier,
        &entry.datestamp,
    );
    let originals = entry
        .records
        .iter()
        .filter(|r| r.kind == RecordType::Resource)
        .map(|r| (digest_hash(&r.digest), offset))
        .collect();
    (key, originals)
}

/// 64 bits of a payload digest's text (a hit is confirmed against the ledger).
fn digest_hash(digest: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(digest)
}

/// SHA-1 of the four parts, each length-prefixed so that no two tuples collide by concatenation.
fn item_key(endpoint: &str, prefix: &str, identifier: &str, datestamp: &str) -> [u8; 20] {
    use sha1::{Digest, Sha1};
    let mut h = Sha1::new();
    for part in [endpoint, prefix, identifier, datestamp] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize().into()
}

/// The [`RecordRef`] of a ledger record.
pub fn record_ref(r: &Written) -> RecordRef {
    let date = time::PrimitiveDateTime::parse(
        &r.date,
        time::macros::format_description!("[year][month][day][hour][minute][second]"),
    )
    .map(|d| d.assume_utc())
    .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    RecordRef {
        file_name: r.file.clone(),
        offset: r.offset,
        length: r.length,
        record_id: r.id.clone(),
        target_uri: Some(r.uri.clone()),
        date,
        payload_digest: r.digest.clone(),
    }
}

/// The ledger form of a record just written.
pub fn written(r: &RecordRef, kind: RecordType, mime: &str, indexed: bool) -> Written {
    Written {
        kind,
        file: r.file_name.clone(),
        offset: r.offset,
        length: r.length,
        id: r.record_id.clone(),
        uri: r.target_uri.clone().unwrap_or_default(),
        mime: mime.to_owned(),
        digest: r.payload_digest.clone(),
        date: timestamp14(r.date),
        indexed,
    }
}

/// `yyyyMMddHHmmss` in UTC.
pub fn timestamp14(date: OffsetDateTime) -> String {
    let d = date.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}{:02}{:02}{:02}{:02}{:02}",
        d.year(),
        u8::from(d.month()),
        d.day(),
        d.hour(),
        d.minute(),
        d.second()
    )
}

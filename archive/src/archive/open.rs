//! An open archive: [`Archive`], locked, recovered on open, written item by item or in
//! batches of items ([`batch`]).

mod batch;

use std::collections::{hash_map, HashMap, HashSet};
use std::fs::{self, File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::error::{at, index_error};
use super::ledger::{record_ref, Ledger};
use super::options::archive_id;
use super::pending::{merge_due, Pending};
use super::recovery::{self, Recovery};
use super::{ArchiveError, ArchiveLayout, ArchiveOptions, Entry, State, Written};
use crate::cdxj::CdxjIndex;
use crate::warc::{RecordRef, RecordType, WarcFields, Writer, WriterConfig};
use batch::Learned;

/// How often [`Archive::checkpoint_soon`] makes the archive durable: a handful of fsyncs a
/// second, whatever the size of the pages.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

/// The original capture of a payload, for revisit records.
#[derive(Clone, Debug)]
pub struct Original {
    /// Its record.
    pub record: RecordRef,
}

/// An open archive. See the [module docs](crate::archive).
#[derive(Debug)]
pub struct Archive {
    layout: ArchiveLayout,
    options: ArchiveOptions,
    /// The lock file, held with an exclusive `flock` while the archive is open.
    _lock: File,
    writer: Option<Writer>,
    ledger: Ledger,
    state: State,
    /// The archive id of its PWIDs; stored in the state when the first item is committed.
    archive_id: String,
    /// Digests of (endpoint, prefix, identifier, datestamp) of every item held: 20 bytes per
    /// item, so ten million items fit in a few hundred MB.
    seen: HashSet<[u8; 20]>,
    /// Hash of a payload digest → ledger offset of the first item with a resource of that
    /// payload (16 bytes per payload; the record itself is read back from the ledger).
    originals: HashMap<u64, u64>,
    recovery: Recovery,
    /// When the last checkpoint ended.
    checkpointed: Instant,
    /// The CDXJ lines of the entries committed since the index was last updated, when they are
    /// all of the ledger past `state.indexed` (`None` until then): merged without reading the
    /// ledger back.
    unindexed: Option<Pending>,
    /// A batch is open: ledger lines wait in memory ([`Archive::begin_batch`]).
    batch: bool,
    /// What each item committed since the last ledger write taught the archive (empty: nothing
    /// is staged).
    staged: Vec<Learned>,
}

impl Archive {
    /// Opens (creating if needed) the archive at `dir`, locks it, and recovers from a crash.
    pub fn open(dir: &Path, options: ArchiveOptions) -> Result<Archive, ArchiveError> {
        let layout = ArchiveLayout::new(dir);
        for sub in [layout.warcs(), layout.spool()] {
            fs::create_dir_all(sub).map_err(at(dir))?;
        }
        let lock_path = layout.lock();
        let lock_file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(at(&lock_path))?;
        match lock_file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(ArchiveError::Locked(dir.to_owned())),
            Err(TryLockError::Error(e)) => return Err(at(&lock_path)(e)),
        }
        let lock = lock_file;
        // Spool files are unnamed on Linux; remove named leftovers of other platforms.
        if let Ok(read) = fs::read_dir(layout.spool()) {
            for e in read.flatten() {
                let _ = fs::remove_file(e.path());
            }
        }
        let ledger_path = layout.ledger();
        let mut ends = recovery::Ends::default();
        let mut known = Vec::new();
        let ledger = Ledger::open(&ledger_path, |offset, entry| {
            ends.add(&entry);
            known.push(remembered(offset, &entry));
        })
        .map_err(at(&ledger_path))?;
        let state_path = layout.state();
        let mut state = State::load(&state_path).map_err(at(&state_path))?;
        let fixed = ledger.len() > 0;
        let archive_id = archive_id(&state, &options, fixed)?;
        if !fixed {
            // Stored with the first item (an older version stored it on opening).
            state.archive_id = None;
            state.archive_id_fixed = None;
        } else if state.archive_id.is_none() {
            // A crash between the first item's ledger line and the state that names its id.
            state.archive_id = Some(archive_id.clone());
        }
        let warcs = layout.warcs();
        let recovery = recovery::recover_open_files(&warcs, &ends).map_err(at(&warcs))?;
        let mut archive = Archive {
            layout,
            options,
            _lock: lock,
            writer: None,
            ledger,
            state,
            archive_id,
            seen: HashSet::new(),
            originals: HashMap::new(),
            recovery,
            checkpointed: Instant::now(),
            unindexed: None,
            batch: false,
            staged: Vec::new(),
        };
        for (key, originals) in known {
            let _ = archive.learn(key, originals);
        }
        archive.update_index()?;
        Ok(archive)
    }

    /// The archive's folder.
    pub fn dir(&self) -> &Path {
        self.layout.dir()
    }

    /// Where the archive keeps what.
    pub fn layout(&self) -> &ArchiveLayout {
        &self.layout
    }

    /// The archive id of its PWIDs.
    pub fn archive_id(&self) -> &str {
        &self.archive_id
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
        let path = self.layout.ledger();
        let entry = self.ledger.read_at(offset).map_err(at(&path))?;
        Ok(entry
            .records
            .iter()
            .find(|r| r.kind == RecordType::Resource && r.digest == digest)
            .map(record_ref))
    }

    /// The WARC writer, created with `warcinfo` fields on first use in this run.
    pub fn writer(&mut self, warcinfo: impl FnOnce() -> WarcFields) -> &mut Writer {
        let (layout, options) = (&self.layout, &self.options);
        self.writer.get_or_insert_with(|| {
            let mut config = WriterConfig::new(layout.warcs(), &options.prefix)
                .max_file_size(options.max_file_size)
                .spool_dir(layout.spool())
                .warcinfo(warcinfo());
            if let Some(host) = &options.host {
                config = config.host(host);
            }
            Writer::new(config)
        })
    }

    /// Writes one item's records with [`Writer::group`] (created with `warcinfo` fields if
    /// needed). A failure names the WARC folder, and a full disk is
    /// [`ArchiveError::DiskFull`]: the group's records are cut back, none stays half-written.
    pub fn write_group<T>(
        &mut self,
        warcinfo: impl FnOnce() -> WarcFields,
        f: impl FnOnce(&mut Writer) -> std::io::Result<T>,
    ) -> Result<T, ArchiveError> {
        let (warcs, batch) = (self.layout.warcs(), self.batch);
        let writer = self.writer(warcinfo);
        writer.hold_groups(batch);
        writer.group(f).map_err(at(&warcs))
    }

    /// Records an item whose WARC records were just written: its ledger line is written at
    /// once (one `write`, after the WARC records), or with the batch's lines at
    /// [`end_batch`](Self::end_batch) while a batch is open. If the line cannot be written,
    /// the WARC file is left `.open` for the next opening to cut back to the last item the
    /// ledger has (as after a crash): an item is in the archive with its line or not at all.
    pub fn commit(&mut self, entry: &Entry) -> Result<(), ArchiveError> {
        let path = self.layout.ledger();
        let offset = self.ledger.stage(entry).map_err(at(&path))?;
        let (key, originals) = remembered(offset, entry);
        let learned = self.learn(key, originals);
        self.staged.push(learned);
        if let Some(pending) = &mut self.unindexed {
            let valid = entry
                .records
                .iter()
                .filter_map(Written::cdxj)
                .all(|line| pending.push(&line));
            if !valid {
                self.unindexed = None; // the merge reads the ledger and reports the line
            }
        }
        match self.batch {
            true => Ok(()),
            false => self.write_staged(),
        }
    }

    /// Stores the archive id with the first archived item: from now on its PWIDs name it. The
    /// state is saved at once, so the id is never missing beside a ledgered item.
    fn fix_archive_id(&mut self) -> Result<(), ArchiveError> {
        self.state.archive_id = Some(self.archive_id.clone());
        let now = time::OffsetDateTime::now_utc();
        self.state.archive_id_fixed = Some(crate::warc::warc_date(now));
        let path = self.layout.state();
        self.state.save(&path).map_err(at(&path))
    }

    /// Makes everything so far durable (WARC file, then ledger), then saves the state: after a
    /// crash the harvest continues from here.
    pub fn checkpoint(&mut self) -> Result<(), ArchiveError> {
        self.write_staged()?;
        if let Some(w) = &mut self.writer {
            w.sync().map_err(at(&self.layout.warcs()))?;
        }
        let ledger = self.layout.ledger();
        self.ledger.sync().map_err(at(&ledger))?;
        self.checkpointed = Instant::now();
        // Without the lines in memory (after opening), the ledger's bytes stand for theirs.
        let pending = self
            .unindexed
            .as_ref()
            .map_or_else(|| self.ledger.len() - self.state.indexed, Pending::bytes);
        let index = fs::metadata(self.layout.index()).map_or(0, |m| m.len());
        if self.ledger.len() > self.state.indexed && merge_due(pending, index) {
            // Saves the state too.
            return self.update_index();
        }
        let path = self.layout.state();
        self.state.save(&path).map_err(at(&path))
    }

    /// A [`checkpoint`](Self::checkpoint) if the last one is a second old or more, else
    /// nothing: what was saved before stays valid (a crash continues from an earlier point and
    /// skips the items the ledger has), so a list of many small pages is not held up by an
    /// fsync per page.
    pub fn checkpoint_soon(&mut self) -> Result<(), ArchiveError> {
        if self.checkpointed.elapsed() < CHECKPOINT_EVERY {
            return Ok(());
        }
        self.checkpoint()
    }

    /// Merges ledger entries not yet indexed into `index.cdxj`.
    pub fn update_index(&mut self) -> Result<(), ArchiveError> {
        let ledger = self.layout.ledger();
        if self.state.indexed >= self.ledger.len() {
            self.unindexed = Some(Pending::default());
            return Ok(());
        }
        self.ledger.sync().map_err(at(&ledger))?;
        // Taken: if the merge fails, the next update reads the ledger again.
        let index = self.layout.index();
        let merged = match self.unindexed.take() {
            Some(pending) => self.index().add_formatted(pending.lines),
            None => {
                let entries = self
                    .ledger
                    .entries_from(self.state.indexed)
                    .map_err(at(&ledger))?;
                let lines = entries
                    .iter()
                    .flat_map(|e| e.records.iter().filter_map(Written::cdxj));
                self.index().add(lines)
            }
        };
        merged.map_err(|e| index_error(&index, e))?;
        self.state.indexed = self.ledger.len();
        self.unindexed = Some(Pending::default());
        let path = self.layout.state();
        self.state.save(&path).map_err(at(&path))
    }

    /// The CDXJ index.
    pub fn index(&self) -> CdxjIndex {
        CdxjIndex::open(self.layout.index())
    }

    /// Ends a harvest run: closes its WARC file (the next run starts a new one with its own
    /// warcinfo), indexes what it added, and saves the state.
    pub fn end_run(&mut self) -> Result<(), ArchiveError> {
        if let Some(w) = self.writer.take() {
            w.close().map_err(at(&self.layout.warcs()))?;
        }
        self.update_index()?;
        self.checkpoint()
    }

    /// Closes the WARC file, indexes, and saves the state.
    pub fn close(mut self) -> Result<Vec<PathBuf>, ArchiveError> {
        let files = match self.writer.take() {
            Some(w) => w.close().map_err(at(&self.layout.warcs()))?,
            None => Vec::new(),
        };
        self.update_index()?;
        self.checkpoint()?;
        Ok(files)
    }

    /// Remembers an item and the payloads it is the first capture of; returns what was new.
    fn learn(&mut self, key: [u8; 20], originals: Vec<(u64, u64)>) -> Learned {
        let mut learned = Learned {
            key: self.seen.insert(key).then_some(key),
            originals: Vec::new(),
        };
        for (hash, offset) in originals {
            if let hash_map::Entry::Vacant(v) = self.originals.entry(hash) {
                v.insert(offset);
                learned.originals.push(hash);
            }
        }
        learned
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

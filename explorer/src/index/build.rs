//! Building an archive's index incrementally: the ledger from the last checkpoint on, captures
//! loaded by worker threads, added in ledger order, committed with their checkpoint. The
//! ledger's deletions, followed with the archive's [`Timeline`], go to the deletions file in
//! the same order, and each commit covers them too.

use std::collections::BTreeMap;
use std::io;
use std::mem::take;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};

use modoai_archive::archive::{Reader, Timeline};
use modoai_tools::ToolRunner;
use tantivy::{IndexWriter, TantivyError};

use super::document::add_all;
use super::gone::{Gone, GoneWriter};
use super::jobs;
use super::schema::SCHEMA_VERSION;
use super::store::{ArchiveIndex, Checkpoint};
use crate::capture::{Capture, Loader, Planner};
use crate::identify::{Batcher, Identifier, MetadataTools};
use crate::ExplorerError;

/// Captures a job carries at least (fewer at the ledger's end, or with a smaller commit
/// interval).
const BATCH: usize = 64;

/// How an index is built.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Captures between two commits (each commit is a checkpoint a killed run restarts from).
    pub commit_every: usize,
    /// Threads that read captures and extract their text.
    pub threads: usize,
    /// Memory of the index writer, bytes (split between two writer threads).
    pub memory: usize,
    /// How the PDF text workers (MuPDF) run.
    pub tools: ToolRunner,
    /// The runtime the PDF text workers are driven on.
    pub runtime: tokio::runtime::Handle,
    /// Identifies the format of captures without one (no CRATE); none: not identified.
    pub identify: Option<Identifier>,
    /// Runs a `plugins.toml`'s tools on captures without a CRATE (`--tools`); none: not run.
    pub metadata_tools: Option<MetadataTools>,
    /// Set to stop at the next capture: what was added is committed, then
    /// [`ExplorerError::Interrupted`].
    pub cancel: Arc<AtomicBool>,
    /// How long a foreign collection's file must be unchanged to be read (younger ones may
    /// still be written: they wait for the next run).
    pub settle: std::time::Duration,
}

impl BuildOptions {
    /// Defaults: a commit every 50,000 captures, one reading thread per core, 256 MB, files
    /// unchanged for 60 s.
    pub fn new(tools: ToolRunner, runtime: tokio::runtime::Handle) -> Self {
        BuildOptions {
            commit_every: 50_000,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            memory: 256 << 20,
            tools,
            runtime,
            identify: None,
            metadata_tools: None,
            cancel: Arc::new(AtomicBool::new(false)),
            settle: std::time::Duration::from_secs(60),
        }
    }
}

/// What a build did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildReport {
    /// Captures added by this run.
    pub added: u64,
    /// Captures in the index now.
    pub total: u64,
    /// Whether the index was rebuilt because it could not be used.
    pub rebuilt: bool,
    /// Captures whose text could not be extracted (indexed without it).
    pub problems: u64,
    /// Deleted files added by this run.
    pub deletions: u64,
    /// Revisits among the captures added (foreign collections).
    pub revisits: u64,
    /// Revisits added whose original was not found (indexed and flagged).
    pub unresolved: u64,
    /// Records read whose block or payload digest did not match (foreign collections).
    pub digest_mismatches: u64,
    /// What reading a foreign collection's files found this run (`None` for an archive).
    pub read: Option<modoai_archive::any::Summary>,
    /// What the `metadata` records read this run came to (foreign collections).
    pub metadata: super::MetadataCounts,
    /// Files of a foreign folder that are not read: their names are none of `*.warc`,
    /// `*.warc.gz`, `*.arc`, `*.arc.gz` (the first 100).
    pub not_read: Vec<std::path::PathBuf>,
}

/// Told how a build goes: ledger bytes done of the total, captures added.
pub trait Progress: Sync {
    /// The build of `archive` starts with `todo` ledger bytes to read.
    fn begin(&self, archive: &str, todo: u64);
    /// `done` ledger bytes are read; `added` captures added so far.
    fn advance(&self, done: u64, added: u64);
    /// The build ended.
    fn end(&self);
}

/// No progress shown.
impl Progress for () {
    fn begin(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64, _: u64) {}
    fn end(&self) {}
}

/// One ledger entry's captures, numbered in ledger order, with the files the entry records as
/// deleted and the ledger position after it.
type Job = jobs::Job<(Vec<Gone>, u64)>;

/// Indexes what the archive at `archive` (named `name`) holds beyond the index's checkpoint.
pub fn build(
    archive: &Path,
    name: &str,
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<BuildReport, ExplorerError> {
    let reader = Reader::open(archive)?;
    let (index, rebuilt) = ArchiveIndex::open_or_create(archive)?;
    let start = index.checkpoint()?;
    let mut report = BuildReport {
        total: start.captures,
        rebuilt,
        ..BuildReport::default()
    };
    // An index from before deletions were kept has them added even when nothing else is new.
    if start.ledger >= reader.ledger_len() && start.deletions.is_some() {
        return Ok(report);
    }
    let mut gone = GoneWriter::open(index.path(), start.deletions.unwrap_or(0))
        .map_err(ExplorerError::io(index.path()))?;
    let mut writer: IndexWriter = index
        .index()
        .writer_with_num_threads(2, options.memory.max(30 << 20))
        .map_err(|e| match e {
            TantivyError::LockFailure(..) => ExplorerError::Busy {
                path: index.path().to_owned(),
            },
            e => ExplorerError::index(index.path())(e),
        })?;
    progress.begin(name, reader.ledger_len() - start.ledger);
    let result = run(
        &reader,
        name,
        &index,
        &mut writer,
        &mut gone,
        start,
        options,
        progress,
        &mut report,
    );
    progress.end();
    writer
        .wait_merging_threads()
        .map_err(ExplorerError::index(index.path()))?;
    result.map(|()| report)
}

#[allow(clippy::too_many_arguments)]
fn run(
    reader: &Reader,
    name: &str,
    index: &ArchiveIndex,
    writer: &mut IndexWriter,
    gone: &mut GoneWriter,
    start: Checkpoint,
    options: &BuildOptions,
    progress: &dyn Progress,
    report: &mut BuildReport,
) -> Result<(), ExplorerError> {
    let threads = options.threads.max(1);
    let (job_tx, job_rx) = sync_channel::<Job>(threads * 8);
    let (done_tx, done_rx) = sync_channel::<jobs::Done<(Vec<Gone>, u64)>>(threads * 8);
    let job_rx = Arc::new(Mutex::new(job_rx));
    let fields = index.fields();
    let fail = |e| ExplorerError::index(index.path())(e);
    std::thread::scope(|scope| {
        let cancel = &options.cancel;
        let batch = options.commit_every.clamp(1, BATCH);
        let producer = scope.spawn(move || produce(reader, name, start, batch, job_tx, cancel));
        for _ in 0..threads {
            let (rx, tx) = (Arc::clone(&job_rx), done_tx.clone());
            let loader = Loader::new(reader, options.tools.clone(), options.runtime.clone());
            scope.spawn(move || jobs::work(&loader, &rx, &tx));
        }
        drop(done_tx);
        let mut at = start;
        // Jobs done, waiting for their turn.
        let mut pending = BTreeMap::new();
        let (mut next, mut since_commit) = (0u64, 0usize);
        let mut outcome = Ok(());
        // Whether the deletions file holds those of the ledger up to `at` (not yet for an
        // index from before they were kept, until its first job is in).
        let mut kept = start.deletions.is_some() || start.ledger == 0;
        // Loaded captures wait here, in order, until a batch of them is analysed.
        let loader = Loader::new(reader, options.tools.clone(), options.runtime.clone());
        let tools = options.metadata_tools.clone();
        let mut batcher = Batcher::new(options.identify.clone(), tools, loader);
        let mut add = |captures: Vec<Capture>, deleted: Vec<Gone>, end: u64| {
            report.problems += captures.iter().filter(|c| c.problem.is_some()).count() as u64;
            add_all(writer, &fields, &captures).map_err(fail)?;
            for g in &deleted {
                gone.append(g).map_err(ExplorerError::io(gone.path()))?;
            }
            report.deletions += deleted.len() as u64;
            kept = true;
            let n = captures.len() as u64;
            (at.ledger, at.captures) = (end, at.captures + n);
            report.added += n;
            since_commit += captures.len();
            progress.advance(end - start.ledger, report.added);
            if since_commit >= options.commit_every {
                commit(writer, gone, &mut at, kept)?;
                since_commit = 0;
            }
            Ok::<(), ExplorerError>(())
        };
        for (seq, captures, then) in done_rx.iter() {
            pending.insert(seq, (captures, then));
            while let Some((captures, then)) = pending.remove(&next) {
                next += 1;
                let captures = match captures {
                    Ok(c) => c,
                    Err(e) => {
                        outcome = Err(ExplorerError::io(reader.dir())(e));
                        options.cancel.store(true, Ordering::Relaxed);
                        break;
                    }
                };
                for (captures, (deleted, end)) in batcher.push(captures, then) {
                    add(captures, deleted, end)?;
                }
            }
            if outcome.is_err() {
                break;
            }
        }
        drop(done_rx);
        for (captures, (deleted, end)) in batcher.finish() {
            add(captures, deleted, end)?;
        }
        let cancelled = match producer.join().unwrap_or(Ok(true)) {
            Ok(cancelled) => cancelled,
            Err(e) => {
                outcome = outcome.and(Err(ExplorerError::io(reader.dir())(e)));
                false
            }
        };
        commit(writer, gone, &mut at, kept)?;
        report.total = at.captures;
        match outcome {
            Ok(()) if cancelled => Err(ExplorerError::Interrupted),
            other => other,
        }
    })
}

/// Reads the ledger from the checkpoint `start` and sends the complete entries' captures and
/// deletions, `batch` captures or more a job (a job per capture cost two thread wake-ups per
/// capture); true if cancelled. The first job is the one of the ledger before the checkpoint
/// when the index does not have its deletions yet.
///
/// A deletion names the file of the item's last capture, which may be before the checkpoint:
/// the ledger before it is read again (only the ledger, no WARC record) to know them. An index
/// from before deletions were kept gets the deletions of that part too, as a first job.
fn produce(
    reader: &Reader,
    name: &str,
    start: Checkpoint,
    batch: usize,
    jobs: SyncSender<Job>,
    cancel: &AtomicBool,
) -> io::Result<bool> {
    let mut timeline = Timeline::new();
    let earlier = warm_up(reader, start, &mut timeline)?;
    let mut entries = reader.entries_after(start.ledger)?.stop_at_incomplete();
    let mut seq = 0;
    let mut send = |planned, then| {
        let sent = jobs.send(Job { seq, planned, then }).is_ok();
        seq += 1;
        sent
    };
    if start.deletions.is_none() && start.ledger > 0 && !send(Vec::new(), (earlier, start.ledger)) {
        return Ok(cancel.load(Ordering::Relaxed));
    }
    let mut planner = Planner::new(reader, name);
    let (mut planned, mut deleted) = (Vec::new(), Vec::new());
    let (mut end, mut sent) = (start.ledger, start.ledger);
    while let Some(Ok(entry)) = entries.next() {
        if cancel.load(Ordering::Relaxed) {
            return Ok(true);
        }
        end = entries.position();
        let deletion = timeline.see(end, &entry);
        planned.extend(planner.plan(&entry));
        deleted.extend(deletion.iter().flat_map(Gone::of));
        if planned.len() >= batch {
            if !send(take(&mut planned), (take(&mut deleted), end)) {
                return Ok(cancel.load(Ordering::Relaxed));
            }
            sent = end;
        }
    }
    // The entries read since the last job, whether or not they had captures: the checkpoint
    // moves past them.
    if end > sent && !send(planned, (deleted, end)) {
        return Ok(cancel.load(Ordering::Relaxed));
    }
    Ok(cancel.load(Ordering::Relaxed))
}

/// Follows the ledger before the checkpoint `start` with `timeline`; the deletions there when
/// the index does not have them yet.
fn warm_up(reader: &Reader, start: Checkpoint, timeline: &mut Timeline) -> io::Result<Vec<Gone>> {
    let mut earlier = Vec::new();
    if start.ledger == 0 {
        return Ok(earlier);
    }
    let mut entries = reader.entries_after(0)?;
    while entries.position() < start.ledger {
        let Some(entry) = entries.next() else { break };
        let deletion = timeline.see(entries.position(), &entry?);
        if start.deletions.is_none() {
            earlier.extend(deletion.iter().flat_map(Gone::of));
        }
    }
    Ok(earlier)
}

/// Commits the documents added and the deletions appended (synced first, and covered when
/// `kept`), with `at` as the commit's payload.
fn commit(
    writer: &mut IndexWriter,
    gone: &mut GoneWriter,
    at: &mut Checkpoint,
    kept: bool,
) -> Result<(), ExplorerError> {
    let synced = gone.sync().map_err(ExplorerError::io(gone.path()))?;
    at.deletions = kept.then_some(synced);
    at.schema = SCHEMA_VERSION;
    let payload = serde_json::to_string(&at).expect("a checkpoint serializes");
    let dir = gone.path().parent().unwrap_or(gone.path()).to_owned();
    let fail = |e| ExplorerError::index(&dir)(e);
    let mut prepared = writer.prepare_commit().map_err(fail)?;
    prepared.set_payload(&payload);
    prepared.commit().map_err(fail)?;
    Ok(())
}

//! Building a foreign collection's index (WARC, ARC, WACZ of any crawler) incrementally: the
//! files added or grown since the last commit are read in order, their captures planned (a
//! revisit's original found), loaded by worker threads, added in file order and committed with
//! how far each file is read ([`FilesCheckpoint`]).

use std::collections::BTreeMap;
use std::io::{self, Seek};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};

use modoai_archive::any::{
    Format, Found, Input, ListOptions, ReadOptions, Record, Records, Source, Summary,
};
use tantivy::{IndexWriter, TantivyError};

use super::build::{BuildOptions, BuildReport, Progress};
use super::document::document;
use super::files::{files_checkpoint, size_of, FileRead, FilesCheckpoint};
use super::resolve::Resolver;
use super::schema::{Fields, SCHEMA_VERSION};
use super::store::ArchiveIndex;
use crate::capture::{plan_record, revisit_of, Capture, CaptureKind, Loader, Planned};
use crate::collection::Collection;
use crate::ExplorerError;

/// Records whose captures go to a worker at once.
const BATCH: usize = 64;

/// Captures of records read, numbered in file order, with how far their file is read after.
struct Job {
    seq: u64,
    planned: Vec<Planned>,
    file: String,
    read: FileRead,
}

type Done = (u64, io::Result<Vec<Capture>>, String, FileRead);

/// Indexes what the foreign collection `c` holds beyond its index's last commit. Files still
/// being written (`*.open`, or changed within `settle`) wait for the next run.
pub fn build_foreign(
    c: &Collection,
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<BuildReport, ExplorerError> {
    let mut list = ListOptions::default();
    list.settle = options.settle;
    let listing = c.input.list(&list).map_err(ExplorerError::Input)?;
    let (index, rebuilt) = ArchiveIndex::open_or_create_at(&c.index)?;
    let start = files_checkpoint(&index)?;
    let mut todo = Vec::new();
    for source in listing.ready {
        let size = size_of(&source).map_err(ExplorerError::io(&source.path))?;
        let read = start
            .files
            .get(&source.to_string())
            .copied()
            .unwrap_or_default();
        if read.last.is_none() || size != read.size {
            todo.push((source, size, read));
        }
    }
    let mut report = BuildReport {
        total: start.base.captures,
        rebuilt,
        ..BuildReport::default()
    };
    let mut summary = Summary {
        waiting: listing.waiting.len() as u64,
        ..Summary::default()
    };
    if todo.is_empty() {
        report.read = Some(summary);
        return Ok(report);
    }
    let mut writer: IndexWriter = index
        .index()
        .writer_with_num_threads(2, options.memory.max(30 << 20))
        .map_err(|e| match e {
            TantivyError::LockFailure(..) => ExplorerError::Busy {
                path: index.path().to_owned(),
            },
            e => ExplorerError::index(index.path())(e),
        })?;
    let searcher = index
        .index()
        .reader()
        .map(|r| (r.searcher(), index.fields()))
        .ok();
    progress.begin(&c.name, todo.iter().map(|(_, size, _)| size).sum());
    let result = run(
        c,
        &index,
        &mut writer,
        start,
        todo,
        searcher,
        options,
        progress,
        &mut report,
        &mut summary,
    );
    progress.end();
    writer
        .wait_merging_threads()
        .map_err(ExplorerError::index(index.path()))?;
    report.digest_mismatches = summary.digest_mismatches;
    report.read = Some(summary);
    result.map(|()| report)
}

/// What the producer counted.
#[derive(Default)]
struct Counted {
    summary: Summary,
    cancelled: bool,
}

#[allow(clippy::too_many_arguments)]
fn run(
    c: &Collection,
    index: &ArchiveIndex,
    writer: &mut IndexWriter,
    start: FilesCheckpoint,
    todo: Vec<(Source, u64, FileRead)>,
    searcher: Option<(tantivy::Searcher, Fields)>,
    options: &BuildOptions,
    progress: &dyn Progress,
    report: &mut BuildReport,
    summary: &mut Summary,
) -> Result<(), ExplorerError> {
    let threads = options.threads.max(1);
    let (job_tx, job_rx) = sync_channel::<Job>(threads * 8);
    let (done_tx, done_rx) = sync_channel::<Done>(threads * 8);
    let job_rx = Arc::new(Mutex::new(job_rx));
    let fields = index.fields();
    let fail = |e| ExplorerError::index(index.path())(e);
    std::thread::scope(|scope| {
        let cancel = &options.cancel;
        let name = c.name.clone();
        let producer = scope.spawn(move || produce(&name, todo, searcher, job_tx, cancel));
        for _ in 0..threads {
            let (rx, tx) = (Arc::clone(&job_rx), done_tx.clone());
            let loader = Loader::foreign(options.tools.clone(), options.runtime.clone());
            scope.spawn(move || work(&loader, &rx, &tx));
        }
        drop(done_tx);
        let mut at = start;
        let mut pending: BTreeMap<u64, (io::Result<Vec<Capture>>, String, FileRead)> =
            BTreeMap::new();
        let (mut next, mut since_commit, mut bytes) = (0u64, 0usize, 0u64);
        let mut outcome = Ok(());
        for (seq, captures, file, read) in done_rx.iter() {
            pending.insert(seq, (captures, file, read));
            while let Some((captures, file, read)) = pending.remove(&next) {
                next += 1;
                let captures = match captures {
                    Ok(c) => c,
                    Err(e) => {
                        outcome = Err(ExplorerError::io(c.input.path())(e));
                        options.cancel.store(true, Ordering::Relaxed);
                        break;
                    }
                };
                for capture in &captures {
                    count(report, capture);
                    writer
                        .add_document(document(&fields, capture))
                        .map_err(fail)?;
                }
                let before = at.files.get(&file).and_then(|r| r.resume_at).unwrap_or(0);
                bytes += read.resume_at.unwrap_or(before).saturating_sub(before);
                at.files.insert(file, read);
                at.base.captures += captures.len() as u64;
                since_commit += captures.len();
                progress.advance(bytes, report.added);
                if since_commit >= options.commit_every {
                    commit(writer, index, &mut at)?;
                    since_commit = 0;
                }
            }
            if outcome.is_err() {
                break;
            }
        }
        drop(done_rx);
        let counted = producer.join().unwrap_or_default();
        *summary = Summary {
            waiting: summary.waiting,
            ..counted.summary
        };
        commit(writer, index, &mut at)?;
        report.total = at.base.captures;
        match outcome {
            Ok(()) if counted.cancelled => Err(ExplorerError::Interrupted),
            other => other,
        }
    })
}

/// Counts a capture added in `report`.
fn count(report: &mut BuildReport, capture: &Capture) {
    report.added += 1;
    report.problems += u64::from(capture.problem.is_some());
    let planned = &capture.planned;
    if planned.kind == CaptureKind::Revisit {
        report.revisits += 1;
        let unresolved = planned.foreign.as_ref().is_some_and(|f| f.is_unresolved());
        report.unresolved += u64::from(unresolved);
    }
}

/// Reads the files of `todo` in order, from where each was left, and sends their captures in
/// batches; what it found, and whether it was cancelled.
fn produce(
    name: &str,
    todo: Vec<(Source, u64, FileRead)>,
    searcher: Option<(tantivy::Searcher, Fields)>,
    jobs: SyncSender<Job>,
    cancel: &AtomicBool,
) -> Counted {
    let mut counted = Counted::default();
    let mut resolver = Resolver::new(searcher);
    let mut seq = 0;
    for (source, size, mut read) in todo {
        let key = source.to_string();
        let records = match open_at(&source, &read) {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(file = %source, error = %e, "cannot read the file; it is left for the next run");
                continue;
            }
        };
        let base = resume_at(&source, &read);
        let mut batch = Vec::new();
        let mut gzip_stream = false;
        let mut harvest = String::new();
        for found in records {
            if cancel.load(Ordering::Relaxed) {
                counted.cancelled = true;
                return counted;
            }
            let record = match found {
                Found::Record(record) => shifted(*record, base),
                Found::Skipped(mut skipped) => {
                    skipped.start += base.unwrap_or(0);
                    skipped.end += base.unwrap_or(0);
                    if read.last.is_none_or(|(offset, _)| skipped.start > offset) {
                        counted.summary.add_skip(&skipped);
                    }
                    continue;
                }
            };
            gzip_stream |= Summary::is_gzip_stream(&record.location.framing);
            if let Some(info) = &record.warcinfo {
                harvest = (info.is_part_of.clone().or(info.software.clone())).unwrap_or_default();
            }
            if read.has(&record.location) {
                continue;
            }
            counted.summary.add_record(&record);
            read.read(&record.location, matches!(record.format, Format::Warc(_)));
            if let Some(planned) = plan(&record, name, &harvest, &mut resolver) {
                batch.push(planned);
            }
            if batch.len() >= BATCH {
                let job = Job {
                    seq,
                    planned: std::mem::take(&mut batch),
                    file: key.clone(),
                    read,
                };
                if jobs.send(job).is_err() {
                    counted.cancelled = cancel.load(Ordering::Relaxed);
                    return counted;
                }
                seq += 1;
            }
        }
        counted.summary.add_file(gzip_stream);
        // Only a file read to its end is marked with its size (unchanged files are not read).
        read.size = size;
        let job = Job {
            seq,
            planned: batch,
            file: key,
            read,
        };
        if jobs.send(job).is_err() {
            counted.cancelled = cancel.load(Ordering::Relaxed);
            return counted;
        }
        seq += 1;
    }
    counted.cancelled = cancel.load(Ordering::Relaxed);
    counted
}

/// Where the last run left `source`, when it can be read from there: a file of WARC records,
/// plain or gzip per record (a WACZ's files, which do not grow, are read again from their start).
fn resume_at(source: &Source, read: &FileRead) -> Option<u64> {
    read.resume_at
        .filter(|_| read.last.is_some() && source.entry.is_none())
}

/// The records of `source`, from where the last run left it when it can be read from there.
fn open_at(source: &Source, read: &FileRead) -> io::Result<Records> {
    match resume_at(source, read) {
        Some(offset) => {
            let mut file = std::fs::File::open(&source.path)?;
            file.seek(io::SeekFrom::Start(offset))?;
            Records::new(source.clone(), Box::new(file), options())
        }
        None => Records::open(source, options()),
    }
}

/// What of each block is kept while reading: the HTTP head and enough to find a title.
fn options() -> ReadOptions {
    ReadOptions::default().keep(64 << 10)
}

/// `record` with its location moved by `by` bytes (read from there on).
fn shifted(mut record: Record, by: Option<u64>) -> Record {
    if let Some(by) = by {
        record.location.offset += by;
    }
    record
}

/// The capture of `record`, its revisit resolved; remembered as an original when it has its
/// payload.
fn plan(record: &Record, name: &str, harvest: &str, resolver: &mut Resolver) -> Option<Planned> {
    let mut planned = plan_record(record, name, harvest)?;
    if let Some(of) = revisit_of(record) {
        let original = resolver.resolve(&planned, &of);
        if let Some(foreign) = planned.foreign.as_mut() {
            foreign.payload = original;
        }
    }
    resolver.remember(&planned);
    Some(planned)
}

/// Loads the captures of jobs until there are none.
fn work(loader: &Loader<'_>, jobs: &Mutex<Receiver<Job>>, done: &SyncSender<Done>) {
    loop {
        let job = jobs.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(job) = job else { return };
        let captures = job
            .planned
            .into_iter()
            .map(|p| loader.load(p))
            .collect::<io::Result<Vec<_>>>();
        if done.send((job.seq, captures, job.file, job.read)).is_err() {
            return;
        }
    }
}

/// Commits the documents added, with `at` (each file's progress) as the commit's payload.
fn commit(
    writer: &mut IndexWriter,
    index: &ArchiveIndex,
    at: &mut FilesCheckpoint,
) -> Result<(), ExplorerError> {
    at.base.schema = SCHEMA_VERSION;
    let payload = serde_json::to_string(&at).expect("a checkpoint serializes");
    let fail = |e| ExplorerError::index(index.path())(e);
    let mut prepared = writer.prepare_commit().map_err(fail)?;
    prepared.set_payload(&payload);
    prepared.commit().map_err(fail)?;
    Ok(())
}

/// Indexes what the collection `c` added since its index's last commit: through its ledger for
/// a modoai archive ([`super::build`]), else with [`build_foreign`].
pub fn build_collection(
    c: &Collection,
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<BuildReport, ExplorerError> {
    match &c.input {
        Input::Archive(dir) => super::build(dir, &c.name, options, progress),
        _ => build_foreign(c, options, progress),
    }
}

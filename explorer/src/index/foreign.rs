//! Building a foreign collection's index (WARC, ARC, WACZ of any crawler) incrementally: the
//! files added or grown since the last commit are read in order, their captures planned (a
//! revisit's original found), loaded by worker threads, added in file order and committed with
//! how far each file is read ([`FilesCheckpoint`]).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Mutex};

use modoai_archive::any::{Input, ListOptions, Source, Summary};
use tantivy::{IndexWriter, TantivyError};

use super::build::{BuildOptions, BuildReport, Progress};
use super::document::add_all;
use super::files::{files_checkpoint, not_read, size_of, FileRead, FilesCheckpoint};
use super::jobs;
use super::reading::{produce, Job};
use super::schema::{Fields, SCHEMA_VERSION};
use super::store::ArchiveIndex;
use crate::capture::{Capture, CaptureKind, Loader};
use crate::collection::Collection;
use crate::identify::Batcher;
use crate::ExplorerError;

/// Indexes what the foreign collection `c` holds beyond its index's last commit. Files still
/// being written (`*.open`, or changed within [`BuildOptions::settle`]) wait for the next run.
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
    if let Input::Folder(dir) = &c.input {
        report.not_read = not_read(dir);
    }
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
    let (done_tx, done_rx) = sync_channel::<jobs::Done<(String, FileRead)>>(threads * 8);
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
            scope.spawn(move || jobs::work(&loader, &rx, &tx));
        }
        drop(done_tx);
        let mut at = start;
        // Jobs done, waiting for their turn.
        let mut pending = BTreeMap::new();
        let (mut next, mut since_commit, mut bytes) = (0u64, 0usize, 0u64);
        let mut outcome = Ok(());
        // Loaded captures wait here, in order, until a batch of them is analysed.
        let loader = Loader::foreign(options.tools.clone(), options.runtime.clone());
        let tools = options.metadata_tools.clone();
        let mut batcher = Batcher::new(options.identify.clone(), tools, loader);
        let mut add = |captures: Vec<Capture>, file: String, read: FileRead| {
            for capture in &captures {
                count(report, capture);
            }
            add_all(writer, &fields, &captures).map_err(fail)?;
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
            Ok::<(), ExplorerError>(())
        };
        for (seq, captures, then) in done_rx.iter() {
            pending.insert(seq, (captures, then));
            while let Some((captures, then)) = pending.remove(&next) {
                next += 1;
                let captures = match captures {
                    Ok(c) => c,
                    Err(e) => {
                        outcome = Err(ExplorerError::io(c.input.path())(e));
                        options.cancel.store(true, Ordering::Relaxed);
                        break;
                    }
                };
                for (captures, (file, read)) in batcher.push(captures, then) {
                    add(captures, file, read)?;
                }
            }
            if outcome.is_err() {
                break;
            }
        }
        for (captures, (file, read)) in batcher.finish() {
            add(captures, file, read)?;
        }
        drop(done_rx);
        let counted = producer.join().unwrap_or_default();
        *summary = Summary {
            waiting: summary.waiting,
            ..counted.summary
        };
        report.metadata = counted.metadata;
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

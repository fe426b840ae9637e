//! Reading a foreign collection's files in order, each from where the last run left it: their
//! records planned as captures (a revisit's original found, a CRATE `metadata` record tied),
//! sent to the workers in batches with how far their file is read.

use std::io::{self, Seek};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;

use modoai_archive::any::{Format, Found, ReadOptions, Record, Records, Source, Summary};

use super::files::FileRead;
use super::metadata::Ties;
use super::resolve::Resolver;
use super::schema::Fields;
use crate::capture::{plan_record, revisit_of, Planned};
use crate::index::MetadataCounts;

/// Records whose captures go to a worker at once.
const BATCH: usize = 64;

/// Captures of records read, numbered in file order, with their file and how far it is read
/// after them.
pub(super) type Job = super::jobs::Job<(String, FileRead)>;

/// What the producer counted.
#[derive(Default)]
pub(super) struct Counted {
    pub(super) summary: Summary,
    pub(super) metadata: MetadataCounts,
    pub(super) cancelled: bool,
}

/// Reads the files of `todo` in order, from where each was left, and sends their captures in
/// batches; what it found, and whether it was cancelled.
pub(super) fn produce(
    name: &str,
    todo: Vec<(Source, u64, FileRead)>,
    searcher: Option<(tantivy::Searcher, Fields)>,
    jobs: SyncSender<Job>,
    cancel: &AtomicBool,
) -> Counted {
    let mut counted = Counted::default();
    let mut resolver = Resolver::new(searcher);
    let mut ties = Ties::default();
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
            // How far the file is read before this record: a batch sent now ends there.
            let before = read;
            read.read(&record.location, matches!(record.format, Format::Warc(_)));
            if ties.see(&record, &mut batch) {
                continue;
            }
            let Some(mut planned) = plan(&record, name, &harvest, &mut resolver) else {
                continue;
            };
            ties.tie(&mut planned);
            // A full batch goes when the next capture comes, so the metadata records after a
            // capture (its CRATE, Heritrix's request and metadata) find it still here.
            if batch.len() >= BATCH {
                let job = Job {
                    seq,
                    planned: std::mem::take(&mut batch),
                    then: (key.clone(), before),
                };
                if jobs.send(job).is_err() {
                    counted.cancelled = cancel.load(Ordering::Relaxed);
                    return counted;
                }
                seq += 1;
            }
            batch.push(planned);
        }
        counted.summary.add_file(gzip_stream);
        // Only a file read to its end is marked with its size (unchanged files are not read).
        read.size = size;
        let job = Job {
            seq,
            planned: batch,
            then: (key, read),
        };
        if jobs.send(job).is_err() {
            counted.cancelled = cancel.load(Ordering::Relaxed);
            return counted;
        }
        seq += 1;
    }
    counted.cancelled = cancel.load(Ordering::Relaxed);
    counted.metadata = ties.finish();
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

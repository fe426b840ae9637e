//! Moving an archive to its store: closed WARC files first (each verified, then removed
//! locally), then the ledger, index and state. Every step is journaled, so a run killed at any
//! point is finished by the next one.

use std::fs;
use std::path::Path;

use super::error::io_at;
use super::fault::{crash_at, CrashPoint};
use super::journal::{Journal, Pending, Step};
use super::transfer::{local_sum, stored_sum, upload, verify, Sum};
use super::{Store, StoreError};
use crate::archive::ArchiveLayout;

/// The files an archive keeps beside its WARC folder, uploaded (and kept) at the end of a run,
/// in this order.
const FILES: [&str; 3] = ["ledger.jsonl", "index.cdxj", "state.json"];

/// What a push moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pushed {
    /// The files moved, by name.
    pub files: Vec<String>,
    /// Their bytes.
    pub bytes: u64,
}

/// Moves every closed WARC file of the archive `dir` to `store`: uploads it (unless the store
/// already holds it whole), reads it back to check size and SHA-256, then removes the local copy.
/// First finishes what a killed run left (see the [module docs](self)). Takes the archive's
/// lock for granted: call it from the process that holds it.
pub async fn push_warcs(store: &Store, dir: &Path) -> Result<Pushed, StoreError> {
    let warcs = ArchiveLayout::new(dir).warcs();
    let mut journal = Journal::load(dir)?;
    if journal.store != store.url() {
        journal.store = store.url();
        journal.save()?;
    }
    recover(store, &mut journal, &warcs).await?;
    let mut pushed = Pushed::default();
    for name in closed_warcs(&warcs)? {
        pushed.bytes += push_one(store, &mut journal, &warcs, &name).await?;
        pushed.files.push(name);
    }
    Ok(pushed)
}

/// Uploads (and verifies) the ledger, index and state of the archive `dir`, keeping them: call
/// it after [`push_warcs`], so the stored index names only WARC files the store holds.
pub async fn push_files(store: &Store, dir: &Path) -> Result<Pushed, StoreError> {
    let mut pushed = Pushed::default();
    for name in FILES {
        let local = dir.join(name);
        if !local.exists() {
            continue;
        }
        let sum = upload(store, &local, name, |_| Ok(())).await?;
        verify(store, name, &sum, &local).await?;
        pushed.bytes += sum.size;
        pushed.files.push(name.to_owned());
    }
    Ok(pushed)
}

/// Aborts the multipart uploads a killed run left, and settles the uploads it finished whose
/// local copy is already gone.
async fn recover(store: &Store, journal: &mut Journal, warcs: &Path) -> Result<(), StoreError> {
    use object_store::multipart::MultipartStore as _;
    for p in journal.pending.clone() {
        let rel = warc_key(&p.file);
        if let Some(id) = &p.upload {
            // Absent when the upload completed or was aborted already: nothing to do then.
            let _ = store.s3.abort_multipart(&store.key(&rel), id).await;
        }
        match (p.step, warcs.join(&p.file).exists()) {
            (_, true) => {}
            (Step::Uploading, false) => journal.pending.retain(|q| q.file != p.file),
            (Step::Uploaded, false) => {
                let whole =
                    journaled(&p).is_some() && stored_sum(store, &rel).await? == journaled(&p);
                if !whole {
                    return Err(StoreError::Lost {
                        name: p.file,
                        dir: warcs.to_owned(),
                        url: store.url_of(&rel),
                    });
                }
                journal.done(&p.file)?;
            }
        }
    }
    journal.save()
}

/// Moves one WARC file; returns its size.
async fn push_one(
    store: &Store,
    journal: &mut Journal,
    warcs: &Path,
    name: &str,
) -> Result<u64, StoreError> {
    let (local, rel) = (warcs.join(name), warc_key(name));
    let sum = match stored_whole(store, journal, &local, &rel, name).await? {
        Some(sum) => sum,
        None => send(store, journal, &local, &rel, name).await?,
    };
    crash_at(CrashPoint::Verified);
    fs::remove_file(&local).map_err(io_at(&local))?;
    fs::File::open(warcs)
        .and_then(|d| d.sync_all())
        .map_err(io_at(warcs))?;
    journal.done(name)?;
    Ok(sum.size)
}

/// The sum of the file when the store holds it whole already (a run killed after the upload),
/// `None` when it must be sent. An object with other bytes that this archive did not send is a
/// conflict.
async fn stored_whole(
    store: &Store,
    journal: &Journal,
    local: &Path,
    rel: &str,
    name: &str,
) -> Result<Option<Sum>, StoreError> {
    let Some(stored) = stored_sum(store, rel).await? else {
        return Ok(None);
    };
    let ours = journal.pending.iter().find(|p| p.file == name);
    let expected = match ours.and_then(journaled) {
        Some(sum) => sum,
        None => local_sum(local).await?,
    };
    match (stored == expected, ours.is_some()) {
        (true, _) => Ok(Some(expected)),
        // Our own upload, cut short or damaged: send it again.
        (false, true) => Ok(None),
        (false, false) => Err(StoreError::Conflict {
            url: store.url_of(rel),
            local: local.to_owned(),
        }),
    }
}

/// Uploads, journals and verifies one file.
async fn send(
    store: &Store,
    journal: &mut Journal,
    local: &Path,
    rel: &str,
    name: &str,
) -> Result<Sum, StoreError> {
    let pending = |step, upload: Option<&str>, sum: Option<&Sum>| Pending {
        file: name.to_owned(),
        step,
        upload: upload.map(str::to_owned),
        size: sum.map(|s| s.size),
        sha256: sum.map(|s| s.sha256.clone()),
    };
    let sum = upload(store, local, rel, |id| {
        journal.set(pending(Step::Uploading, id, None))
    })
    .await?;
    journal.set(pending(Step::Uploaded, None, Some(&sum)))?;
    verify(store, rel, &sum, local).await?;
    Ok(sum)
}

/// The sum a journal entry recorded, once uploaded.
fn journaled(p: &Pending) -> Option<Sum> {
    match (p.step, p.size, &p.sha256) {
        (Step::Uploaded, Some(size), Some(sha256)) => Some(Sum {
            size,
            sha256: sha256.clone(),
        }),
        _ => None,
    }
}

fn warc_key(name: &str) -> String {
    format!("warcs/{name}")
}

/// The closed WARC files of the folder, by name, in order (`.open` files are still written).
fn closed_warcs(warcs: &Path) -> Result<Vec<String>, StoreError> {
    let mut names: Vec<String> = fs::read_dir(warcs)
        .map_err(io_at(warcs))?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".warc.gz"))
        .collect();
    names.sort();
    Ok(names)
}

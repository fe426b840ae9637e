//! Merging archives: [`merge`] makes one archive of several, typically the shards of a harvest
//! list harvested on several machines (`modoai-harvester harvest-list --shard`).
//!
//! The merged archive is a new folder holding every input's WARC files under their own names
//! (copied and read back to compare size and SHA-1, or hard-linked), one ledger with every
//! input's entries (input by input, in ledger order), one sorted CDXJ index built from it, and one
//! state with every input's lists, so a harvest into the merged archive continues each list
//! incrementally. Records keep their file names, offsets, dates and URIs, and the archive keeps
//! the inputs' archive id, so every PWID minted on a shard resolves in the merged archive.
//!
//! Inputs that would make a wrong archive are refused before anything is written: different
//! archive ids, a list or an item or a WARC file name in two inputs, open WARC files (a killed
//! harvest: repair first), an archive a harvester is writing (its lock is held while merging).
//! The archive is built in a hidden folder beside the output (`.NAME.merging`) and renamed into
//! place when complete: an interrupted merge leaves no half archive, and the next merge removes
//! the leftover.
//!
//! ```
//! use modoai_archive::archive::{Archive, ArchiveOptions};
//! use modoai_archive::merge::{merge, MergeOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let (a, b) = (dir.path().join("a"), dir.path().join("b"));
//! Archive::open(&a, ArchiveOptions::default())?.close()?;
//! Archive::open(&b, ArchiveOptions::default())?.close()?;
//! let report = merge(&[a, b], &dir.path().join("all"), MergeOptions::default())?;
//! assert_eq!((report.archives, report.items), (2, 0));
//! assert!(dir.path().join("all/ledger.jsonl").exists());
//! assert!(!dir.path().join(".all.merging").exists());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod copy;
mod error;
mod inputs;

use std::fs;
use std::path::{Path, PathBuf};

pub use error::MergeError;

use crate::archive::{Archive, ArchiveOptions, Entry, State};
use error::at;
use inputs::Input;

/// Entries committed between two checkpoints of the merged archive (each checkpoint merges a
/// bounded batch into the index).
const CHECKPOINT: u64 = 10_000;

/// How [`merge`] places WARC files.
#[derive(Clone, Copy, Debug, Default)]
pub struct MergeOptions {
    /// Hard-link WARC files instead of copying them (same file system only; the inputs and the
    /// merged archive then share the files). Defaults to `false`: copy and verify.
    pub link: bool,
}

/// What a merge put into the merged archive.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Archives merged.
    pub archives: usize,
    /// OAI items.
    pub items: u64,
    /// Ledger entries (items and captured site pages).
    pub entries: u64,
    /// Payload bytes of those entries.
    pub payload_bytes: u64,
    /// WARC files placed.
    pub warc_files: usize,
    /// Their bytes.
    pub warc_bytes: u64,
    /// The archive id of the PWIDs, if any input has archived an item.
    pub archive_id: Option<String>,
}

/// Merges the archives `inputs` into the new archive `out`. See the [module docs](self).
pub fn merge(
    inputs: &[PathBuf],
    out: &Path,
    options: MergeOptions,
) -> Result<MergeReport, MergeError> {
    let inputs = inputs::open(inputs)?;
    if fs::symlink_metadata(out).is_ok() {
        return Err(MergeError::OutExists(out.to_owned()));
    }
    let tmp = temp_path(out);
    if fs::symlink_metadata(&tmp).is_ok() {
        tracing::warn!(folder = %tmp.display(), "removing what an interrupted merge left");
        fs::remove_dir_all(&tmp).map_err(at(&tmp))?;
    }
    match build(&inputs, &tmp, options) {
        Ok(report) => {
            fs::rename(&tmp, out).map_err(at(out))?;
            if let Some(parent) = out.parent().and_then(|p| fs::File::open(p).ok()) {
                let _ = parent.sync_all();
            }
            Ok(report)
        }
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            Err(e)
        }
    }
}

/// `.NAME.merging` beside `out`.
fn temp_path(out: &Path) -> PathBuf {
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned());
    out.with_file_name(format!(".{}.merging", name.unwrap_or_default()))
}

fn build(inputs: &[Input], tmp: &Path, options: MergeOptions) -> Result<MergeReport, MergeError> {
    let id = inputs
        .iter()
        .find_map(|i| i.reader.archive_id().map(str::to_owned));
    let archive_options = ArchiveOptions {
        archive_id: id.clone(),
        ..ArchiveOptions::default()
    };
    let mut archive = Archive::open(tmp, archive_options)?;
    let mut report = MergeReport {
        archives: inputs.len(),
        archive_id: id,
        ..MergeReport::default()
    };
    for input in inputs {
        for name in &input.warcs {
            let from = input.reader.layout().warcs().join(name);
            let to = archive.layout().warcs().join(name);
            report.warc_bytes += copy::place(&from, &to, options.link)?;
            report.warc_files += 1;
        }
    }
    for i in 0..inputs.len() {
        add_entries(&mut archive, inputs, i, &mut report)?;
    }
    merge_state(archive.state_mut(), inputs);
    archive.close()?;
    Ok(report)
}

/// Commits input `i`'s ledger entries to the merged archive, refusing an item already there.
fn add_entries(
    archive: &mut Archive,
    inputs: &[Input],
    i: usize,
    report: &mut MergeReport,
) -> Result<(), MergeError> {
    let ledger = inputs[i].reader.layout().ledger();
    for entry in inputs[i].reader.entries().map_err(at(&ledger))? {
        let entry = entry.map_err(at(&ledger))?;
        if entry.kind.is_item() {
            if archive.contains(
                &entry.endpoint,
                &entry.prefix,
                &entry.identifier,
                &entry.datestamp,
            ) {
                return Err(item_overlap(inputs, i, &entry));
            }
            report.items += 1;
        }
        report.entries += 1;
        report.payload_bytes += entry.bytes;
        archive.commit(&entry)?;
        if report.entries.is_multiple_of(CHECKPOINT) {
            archive.checkpoint()?;
        }
    }
    Ok(())
}

/// The error for an item of input `i` that an earlier input holds too (looked up only then).
fn item_overlap(inputs: &[Input], i: usize, entry: &Entry) -> MergeError {
    let same = |e: &Entry| {
        e.kind.is_item()
            && (&e.endpoint, &e.prefix, &e.identifier, &e.datestamp)
                == (
                    &entry.endpoint,
                    &entry.prefix,
                    &entry.identifier,
                    &entry.datestamp,
                )
    };
    let holds = |input: &Input| {
        input
            .reader
            .entries()
            .is_ok_and(|mut es| es.any(|e| e.is_ok_and(|e| same(&e))))
    };
    let first = inputs[..i]
        .iter()
        .find(|input| holds(input))
        .unwrap_or(&inputs[i]);
    let what = format!(
        "the item {} of {} ({}, datestamp {})",
        entry.identifier, entry.endpoint, entry.prefix, entry.datestamp
    );
    inputs::overlap(first, &inputs[i], what)
}

/// Every input's lists (disjoint, checked before), and the earliest time an id was fixed.
fn merge_state(state: &mut State, inputs: &[Input]) {
    for input in inputs {
        let theirs = input.reader.state();
        for (key, list) in &theirs.lists {
            state.lists.insert(key.clone(), list.clone());
        }
        if let Some(fixed) = &theirs.archive_id_fixed {
            if state.archive_id_fixed.as_ref().is_none_or(|f| fixed < f) {
                state.archive_id_fixed = Some(fixed.clone());
            }
        }
    }
}

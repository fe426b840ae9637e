//! Finishing what a crashed run left: `.open` WARC files cut back to the last ledgered item.

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io;
use std::path::Path;

use super::Entry;
use crate::warc::{recover, OPEN_SUFFIX};

/// What opening the archive repaired.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// `.open` files closed after a crash.
    pub files_closed: usize,
    /// `.open` files removed because no item in them was complete.
    pub files_removed: usize,
    /// Bytes cut: records of items whose ledger line was never written, and partial records.
    pub bytes_dropped: u64,
}

impl Recovery {
    /// Whether anything had to be repaired.
    pub fn is_empty(&self) -> bool {
        *self == Recovery::default()
    }
}

/// Where the last ledgered item of each WARC file ends.
#[derive(Debug, Default)]
pub(super) struct Ends(HashMap<String, u64>);

impl Ends {
    pub(super) fn add(&mut self, entry: &Entry) {
        if let Some((file, end)) = entry.end() {
            let e = self.0.entry(file.to_owned()).or_default();
            *e = (*e).max(end);
        }
    }
}

pub(super) fn recover_open_files(warcs: &Path, ends: &Ends) -> io::Result<Recovery> {
    let ends = &ends.0;
    let mut out = Recovery::default();
    for e in fs::read_dir(warcs)? {
        let path = e?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let Some(final_name) = name.strip_suffix(OPEN_SUFFIX) else {
            continue;
        };
        let len = fs::metadata(&path)?.len();
        match ends.get(final_name) {
            None => {
                tracing::warn!(file = %path.display(), "removing a WARC file with no complete item");
                fs::remove_file(&path)?;
                out.files_removed += 1;
                out.bytes_dropped += len;
            }
            Some(&end) => {
                if end < len {
                    let f = OpenOptions::new().write(true).open(&path)?;
                    f.set_len(end)?;
                    f.sync_all()?;
                } else if end > len {
                    tracing::error!(file = %path.display(), end, len, "WARC file is shorter than the ledger says");
                }
                let r = recover(&path)?;
                tracing::warn!(file = %path.display(), kept = r.length, dropped = len - r.length, "closed a WARC file left open by a crash");
                out.files_closed += 1;
                out.bytes_dropped += len.saturating_sub(r.length);
            }
        }
    }
    Ok(out)
}

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

pub(super) fn recover_open_files(warcs: &Path, entries: &[Entry]) -> io::Result<Recovery> {
    let mut ends: HashMap<&str, u64> = HashMap::new();
    for (file, end) in entries.iter().filter_map(Entry::end) {
        let e = ends.entry(file).or_default();
        *e = (*e).max(end);
    }
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

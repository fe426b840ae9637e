//! The CDXJ lines committed since the index was last merged, and when to merge them.
//!
//! Each merge rewrites the whole index, so merging a fixed amount at a time rewrites it once per
//! batch: quadratic in the archive's size. A merge is due when the pending lines are as large as
//! the index (between 4 and 64 MiB): the index doubles between merges, so every line is
//! rewritten a bounded number of times on average, and the lines held in memory stay bounded.

use crate::cdxj::CdxjLine;

/// Pending lines below this size never make a merge due.
const MIN_BATCH: u64 = 4 << 20;
/// Pending lines of this size always make a merge due.
const MAX_BATCH: u64 = 64 << 20;

/// CDXJ lines, formatted, waiting for the next merge.
#[derive(Debug, Default)]
pub(super) struct Pending {
    pub(super) lines: Vec<Vec<u8>>,
    bytes: u64,
}

impl Pending {
    /// Adds `line`; false if it is not a valid line (the merge reads the ledger again then, and
    /// reports it).
    pub(super) fn push(&mut self, line: &CdxjLine) -> bool {
        if line.validate().is_err() {
            return false;
        }
        let text = line.to_line().into_bytes();
        self.bytes += text.len() as u64;
        self.lines.push(text);
        true
    }

    /// Bytes pending.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// Whether `pending` bytes of lines should be merged into an index of `index` bytes.
pub(super) fn merge_due(pending: u64, index: u64) -> bool {
    pending >= index.clamp(MIN_BATCH, MAX_BATCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_double_the_index_until_the_cap() {
        let mut index = 0u64;
        let mut merges = 0;
        let mut pending = 0u64;
        // 1 GiB of lines, 1 MiB at a time.
        for _ in 0..1024 {
            pending += 1 << 20;
            if merge_due(pending, index) {
                index += pending;
                pending = 0;
                merges += 1;
            }
        }
        // 4, 8, 16, 32, 64 MiB, then every 64 MiB.
        assert_eq!(merges, 5 + (1024 - 64) / 64);
        assert!(!merge_due(MIN_BATCH - 1, 0));
        assert!(merge_due(MAX_BATCH, u64::MAX));
    }

    #[test]
    fn invalid_lines_are_refused() {
        let mut p = Pending::default();
        let line = CdxjLine {
            surt: "com,example)/".into(),
            timestamp: "20240101000000".into(),
            fields: Vec::new(),
        };
        assert!(p.push(&line));
        assert_eq!(p.bytes(), line.to_line().len() as u64);
        let bad = CdxjLine {
            timestamp: "2024".into(),
            ..line
        };
        assert!(!p.push(&bad));
        assert_eq!(p.lines.len(), 1);
    }
}

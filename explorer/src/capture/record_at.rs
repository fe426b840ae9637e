//! Where a WARC record is, and its one written form in the index (`FILE OFFSET LENGTH`).

use std::fmt;
use std::str::FromStr;

use modoai_archive::archive::Written;

/// Where a WARC record is: its file's final name, the offset and length of its gzip member.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordAt {
    /// The WARC file's final name (in the archive's `warcs/`).
    pub file: String,
    /// Offset of the record's gzip member.
    pub offset: u64,
    /// Compressed length.
    pub length: u64,
}

impl RecordAt {
    /// Where the ledger says `w` was written.
    pub fn of(w: &Written) -> Self {
        RecordAt {
            file: w.file.clone(),
            offset: w.offset,
            length: w.length,
        }
    }
}

/// `FILE OFFSET LENGTH`, as the index stores it ([`FromStr`] reads it back).
impl fmt::Display for RecordAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.file, self.offset, self.length)
    }
}

/// A stored location that is not `FILE OFFSET LENGTH`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a record location (FILE OFFSET LENGTH)")]
pub struct RecordAtError(String);

/// Reads what [`Display`](fmt::Display) wrote. The numbers are taken from the end, so a file
/// name with spaces reads back whole.
impl FromStr for RecordAt {
    type Err = RecordAtError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || RecordAtError(s.to_owned());
        let mut parts = s.rsplitn(3, ' ');
        let length = parts.next().and_then(|l| l.parse().ok()).ok_or_else(bad)?;
        let offset = parts.next().and_then(|o| o.parse().ok()).ok_or_else(bad)?;
        let file = parts.next().filter(|f| !f.is_empty()).ok_or_else(bad)?;
        Ok(RecordAt {
            file: file.to_owned(),
            offset,
            length,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_location_reads_back_as_it_was_written() {
        for at in [
            RecordAt {
                file: "m-20240101000000000-00000-h.warc.gz".into(),
                offset: 1234,
                length: 567,
            },
            RecordAt {
                file: "a name with spaces.warc.gz".into(),
                offset: 0,
                length: u64::MAX,
            },
        ] {
            assert_eq!(at.to_string().parse::<RecordAt>(), Ok(at));
        }
        assert_eq!(
            "f.warc.gz 10 20".parse::<RecordAt>().unwrap().offset,
            10,
            "the stored form of earlier indexes"
        );
        for bad in ["", "f.warc.gz", "f.warc.gz 10", "f.warc.gz x 20", " 10 20"] {
            assert!(bad.parse::<RecordAt>().is_err(), "{bad:?}");
        }
    }
}

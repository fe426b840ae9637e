//! The archive's journal of uploads to its store, `ARCHIVE/store.json`: which upload is under
//! way (to abort a multipart upload a crash left), which one is uploaded but its local copy not
//! yet removed (to verify it again and finish), and which WARC files the store holds.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::io_at;
use super::StoreError;

/// The journal's file name in the archive folder.
pub const JOURNAL: &str = "store.json";

/// How far the upload of one file went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Step {
    /// Started; a multipart upload may be incomplete in the store.
    Uploading,
    /// Complete and verified; the local copy may still exist.
    Uploaded,
}

/// One upload under way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct Pending {
    /// The WARC file's name.
    pub(crate) file: String,
    /// How far it went.
    pub(crate) step: Step,
    /// The multipart upload's id, to abort it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) upload: Option<String>,
    /// Size and SHA-256 (hex) of the file, once uploaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sha256: Option<String>,
}

/// The journal's contents.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct Journal {
    /// The store the archive's WARC files went to.
    #[serde(default)]
    pub(crate) store: String,
    /// Uploads begun and not finished.
    #[serde(default)]
    pub(crate) pending: Vec<Pending>,
    /// WARC files moved to the store, in order.
    #[serde(default)]
    pub(crate) uploaded: Vec<String>,
    #[serde(skip)]
    path: PathBuf,
}

impl Journal {
    /// The journal of the archive `dir` (empty when it has none).
    pub(crate) fn load(dir: &Path) -> Result<Journal, StoreError> {
        let path = dir.join(JOURNAL);
        let mut journal = match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| StoreError::Io {
                path: path.clone(),
                source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Journal::default(),
            Err(e) => return Err(io_at(&path)(e)),
        };
        journal.path = path;
        Ok(journal)
    }

    /// Replaces (or adds) the entry of `p.file` and saves.
    pub(crate) fn set(&mut self, p: Pending) -> Result<(), StoreError> {
        self.pending.retain(|q| q.file != p.file);
        self.pending.push(p);
        self.save()
    }

    /// Drops the entry of `file`, notes it as uploaded, and saves.
    pub(crate) fn done(&mut self, file: &str) -> Result<(), StoreError> {
        self.pending.retain(|q| q.file != file);
        if !self.uploaded.iter().any(|u| u == file) {
            self.uploaded.push(file.to_owned());
        }
        self.save()
    }

    /// Writes the journal durably: a temporary file, fsync, rename.
    pub(crate) fn save(&self) -> Result<(), StoreError> {
        let tmp = self.path.with_extension("json.tmp");
        let bytes = serde_json::to_vec_pretty(self).expect("the journal serializes");
        let write = || -> std::io::Result<()> {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            fs::rename(&tmp, &self.path)?;
            if let Some(dir) = self.path.parent() {
                fs::File::open(dir)?.sync_all()?;
            }
            Ok(())
        };
        write().map_err(io_at(&self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_journal_survives_a_reload() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::load(dir.path()).unwrap();
        assert!(j.pending.is_empty());
        j.store = "s3://b/p".into();
        let p = Pending {
            file: "a.warc.gz".into(),
            step: Step::Uploading,
            upload: Some("id-1".into()),
            size: None,
            sha256: None,
        };
        j.set(p.clone()).unwrap();
        j.set(Pending {
            step: Step::Uploaded,
            ..p.clone()
        })
        .unwrap();
        let again = Journal::load(dir.path()).unwrap();
        assert_eq!(again.pending.len(), 1);
        assert_eq!(again.pending[0].step, Step::Uploaded);
        j.done("a.warc.gz").unwrap();
        let again = Journal::load(dir.path()).unwrap();
        assert!(again.pending.is_empty());
        assert_eq!(again.uploaded, ["a.warc.gz"]);
        assert_eq!(again.store, "s3://b/p");
    }
}

//! Where an archive keeps what: every file and folder name of the archive in one place.

use std::path::{Path, PathBuf};

/// The paths of an archive folder (see the [module docs](super) for what each holds).
///
/// ```
/// use modoai_archive::archive::ArchiveLayout;
///
/// let layout = ArchiveLayout::new("/data/archive");
/// assert!(layout.index().ends_with("index.cdxj"));
/// assert!(layout.warcs().ends_with("warcs"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveLayout {
    dir: PathBuf,
}

/// A folder that lacks a file every archive of its use has.
#[derive(Debug, thiserror::Error)]
#[error("{} is not an archive (no {missing})", dir.display())]
pub struct NotAnArchive {
    dir: PathBuf,
    missing: &'static str,
}

impl ArchiveLayout {
    const WARCS: &'static str = "warcs";
    const INDEX: &'static str = "index.cdxj";
    const LEDGER: &'static str = "ledger.jsonl";
    const STATE: &'static str = "state.json";
    const SPOOL: &'static str = "spool";
    const LOCK: &'static str = "lock";

    /// The layout of the archive folder `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ArchiveLayout { dir: dir.into() }
    }

    /// The archive folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folder of the WARC files.
    pub fn warcs(&self) -> PathBuf {
        self.dir.join(Self::WARCS)
    }

    /// The CDXJ index.
    pub fn index(&self) -> PathBuf {
        self.dir.join(Self::INDEX)
    }

    /// The ledger of harvested items.
    pub fn ledger(&self) -> PathBuf {
        self.dir.join(Self::LEDGER)
    }

    /// The harvest state.
    pub fn state(&self) -> PathBuf {
        self.dir.join(Self::STATE)
    }

    /// The folder of payloads being received.
    pub fn spool(&self) -> PathBuf {
        self.dir.join(Self::SPOOL)
    }

    /// The file locked while a harvester uses the archive.
    pub fn lock(&self) -> PathBuf {
        self.dir.join(Self::LOCK)
    }

    /// Fails unless the folder has a ledger: it is an archive that can be read item by item.
    pub fn require_ledger(&self) -> Result<(), NotAnArchive> {
        self.require(Self::LEDGER)
    }

    /// Fails unless the folder has an index: it is an archive whose records can be looked up.
    pub fn require_index(&self) -> Result<(), NotAnArchive> {
        self.require(Self::INDEX)
    }

    fn require(&self, name: &'static str) -> Result<(), NotAnArchive> {
        match self.dir.join(name).exists() {
            true => Ok(()),
            false => Err(NotAnArchive {
                dir: self.dir.clone(),
                missing: name,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_without_the_file_is_no_archive() {
        let dir = tempfile::tempdir().unwrap();
        let layout = ArchiveLayout::new(dir.path());
        let err = layout.require_ledger().unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{} is not an archive (no ledger.jsonl)",
                dir.path().display()
            )
        );
        std::fs::write(layout.ledger(), "").unwrap();
        assert!(layout.require_ledger().is_ok());
        assert!(layout.require_index().is_err());
    }
}

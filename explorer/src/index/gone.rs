//! The deletions of an archive, beside its index (`explorer-index/deletions.jsonl`): one JSON
//! line per deletion ([`Gone`]), appended in ledger order as the build meets them.
//!
//! The file only grows. Each commit of the index records in its checkpoint
//! ([`super::Checkpoint::deletions`]) how many of its bytes the commit covers, after they are
//! synced to disk; readers read no further, and the next build cuts what a killed run wrote past
//! that point before it appends. So the deletions are exactly as durable as the captures.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use modoai_archive::archive::Deletion;
use serde::{Deserialize, Serialize};

/// The file's name, in the index's folder.
pub const DELETIONS_FILE: &str = "deletions.jsonl";

/// A file deleted on its site, as the index keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gone {
    /// The file's URL (the one of the item's last capture before the deletion).
    pub url: String,
    /// The OAI identifier.
    pub identifier: String,
    /// The endpoint's base URL.
    pub endpoint: String,
    /// The deletion's datestamp, as the endpoint sent it: when the file went.
    pub datestamp: String,
    /// When the deletion was harvested, 14 digits.
    pub harvested: String,
}

impl Gone {
    /// One record per URL the deletion removed (none when the archive never captured it).
    pub fn of(d: &Deletion) -> impl Iterator<Item = Gone> + '_ {
        d.urls.iter().map(|url| Gone {
            url: url.clone(),
            identifier: d.identifier.clone(),
            endpoint: d.endpoint.clone(),
            datestamp: d.datestamp.clone(),
            harvested: d.harvested.clone(),
        })
    }
}

/// The deletions file, open to append.
#[derive(Debug)]
pub struct GoneWriter {
    path: PathBuf,
    file: File,
    len: u64,
}

impl GoneWriter {
    /// Opens the file of the index in `dir`, cut to the `covered` bytes the last commit covers.
    pub fn open(dir: &Path, covered: u64) -> io::Result<GoneWriter> {
        let path = dir.join(DELETIONS_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)?;
        let len = covered.min(file.metadata()?.len());
        file.set_len(len)?;
        let mut file = file;
        file.seek(SeekFrom::Start(len))?;
        Ok(GoneWriter { path, file, len })
    }

    /// Appends `gone`.
    pub fn append(&mut self, gone: &Gone) -> io::Result<()> {
        let mut line = serde_json::to_vec(gone).map_err(io::Error::other)?;
        line.push(b'\n');
        self.file.write_all(&line)?;
        self.len += line.len() as u64;
        Ok(())
    }

    /// Syncs what was appended; the bytes a commit may now cover.
    pub fn sync(&mut self) -> io::Result<u64> {
        self.file.sync_data()?;
        Ok(self.len)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The deletions of the index in `dir`: its first `covered` bytes (none when it has no file).
pub fn read_gone(dir: &Path, covered: u64) -> io::Result<Vec<Gone>> {
    let file = match File::open(dir.join(DELETIONS_FILE)) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for line in BufReader::new(file.take(covered)).lines() {
        let line = line?;
        let gone = serde_json::from_str(&line)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        out.push(gone);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gone(url: &str) -> Gone {
        Gone {
            url: url.into(),
            identifier: url.into(),
            endpoint: "http://s/oai".into(),
            datestamp: "2026-02-01T00:00:00Z".into(),
            harvested: "20260201000000".into(),
        }
    }

    #[test]
    fn readers_see_what_a_commit_covers_and_a_new_run_cuts_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = GoneWriter::open(dir.path(), 0).unwrap();
        w.append(&gone("http://s/a")).unwrap();
        let covered = w.sync().unwrap();
        w.append(&gone("http://s/b")).unwrap();
        drop(w);
        assert_eq!(
            read_gone(dir.path(), covered).unwrap(),
            [gone("http://s/a")]
        );
        let mut w = GoneWriter::open(dir.path(), covered).unwrap();
        w.append(&gone("http://s/c")).unwrap();
        let all = w.sync().unwrap();
        let urls: Vec<String> = read_gone(dir.path(), all)
            .unwrap()
            .into_iter()
            .map(|g| g.url)
            .collect();
        assert_eq!(urls, ["http://s/a", "http://s/c"]);
        assert!(read_gone(&dir.path().join("none"), 10).unwrap().is_empty());
    }
}

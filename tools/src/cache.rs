//! The persistent result cache: one file per (file version, plugin fingerprint), so a second
//! harvest of an unchanged site, even after a restart, starts no tool process at all.
//!
//! A file version is its path, size, mtime (ns) and inode; a plugin fingerprint is its label,
//! tool version, runner, command and output kind. Entries are written to a temporary file and
//! renamed, so a crash never leaves a torn entry. Only deterministic outcomes (`ok`, `error`,
//! `skipped`) are kept; timeouts and missing tools are retried next time.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::status::{Cached, Status};

/// [`Cache::key`] for one fingerprint, its part of the hash computed once: a warm page makes a
/// key per plugin and file.
#[derive(Clone, Debug)]
pub(crate) struct Keyer(Sha256);

impl Keyer {
    pub(crate) fn new(fingerprint: &str) -> Self {
        let mut h = Sha256::new();
        h.update(fingerprint.as_bytes());
        h.update([0]);
        Keyer(h)
    }

    /// The key of the result for the file version `identity`.
    pub(crate) fn key(&self, identity: &[u8]) -> Key {
        let mut h = self.0.clone();
        h.update(identity);
        Key(h.finalize().into())
    }
}

/// A cache key: a SHA-256, written as 64 lowercase hex digits where it names a file. Kept as
/// bytes, so that looking a result up in memory neither formats nor compares text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key([u8; 32]);

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut hex = [0u8; 64];
        hex::encode_to_slice(self.0, &mut hex).expect("32 bytes are 64 hex digits");
        f.write_str(std::str::from_utf8(&hex).expect("hex digits are ASCII"))
    }
}

#[derive(Serialize, Deserialize)]
struct Header {
    #[serde(flatten)]
    cached: Cached,
    stdout_len: usize,
    stderr_len: usize,
}

/// A cache folder.
#[derive(Debug)]
pub(crate) struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub(crate) fn new(dir: PathBuf) -> Self {
        Cache { dir }
    }

    /// The key of a plugin's result for one version of one file.
    pub(crate) fn key(fingerprint: &str, identity: &[u8]) -> Key {
        Keyer::new(fingerprint).key(identity)
    }

    /// `ab/cdef…`: the key's 64 hex digits, the first two naming a subfolder.
    fn path(&self, key: &Key) -> PathBuf {
        let hex = key.to_string();
        self.dir.join(&hex[..2]).join(&hex[2..])
    }

    pub(crate) fn get(&self, key: &Key) -> Option<Cached> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        let nl = bytes.iter().position(|&b| b == b'\n')?;
        let header: Header = serde_json::from_slice(&bytes[..nl]).ok()?;
        let body = &bytes[nl + 1..];
        if body.len() != header.stdout_len + header.stderr_len {
            return None;
        }
        let mut cached = header.cached;
        cached.stdout = body[..header.stdout_len].to_vec();
        cached.stderr = body[header.stdout_len..].to_vec();
        Some(cached)
    }

    pub(crate) fn put(&self, key: &Key, c: &Cached) {
        if let Err(err) = self.write(key, c) {
            tracing::warn!(dir = %self.dir.display(), error = %err, "cannot write the plugin cache");
        }
    }

    fn write(&self, key: &Key, c: &Cached) -> std::io::Result<()> {
        let path = self.path(key);
        let folder = path.parent().expect("cache paths have a folder");
        std::fs::create_dir_all(folder)?;
        let header = Header {
            cached: c.clone(),
            stdout_len: c.stdout.len(),
            stderr_len: c.stderr.len(),
        };
        let mut tmp = tempfile::NamedTempFile::new_in(folder)?;
        serde_json::to_writer(&mut tmp, &header)?;
        tmp.write_all(b"\n")?;
        tmp.write_all(&c.stdout)?;
        tmp.write_all(&c.stderr)?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }

    /// A small text value (a tool's version) under a key.
    pub(crate) fn get_text(&self, key: &Key) -> Option<String> {
        self.get(key).and_then(|c| String::from_utf8(c.stdout).ok())
    }

    pub(crate) fn put_text(&self, key: &Key, text: &str) {
        let c = Cached {
            status: Status::Ok,
            exit_code: Some(0),
            duration_ms: 0,
            truncated: false,
            note: None,
            stdout: text.as_bytes().to_vec(),
            stderr: Vec::new(),
        };
        self.put(key, &c);
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_torn_entries() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().to_path_buf());
        let key = Cache::key("fp", b"identity");
        assert!(cache.get(&key).is_none());
        let c = Cached {
            status: Status::Error,
            exit_code: Some(3),
            duration_ms: 12,
            truncated: false,
            note: None,
            stdout: b"out\n{}".to_vec(),
            stderr: b"\xffbad".to_vec(),
        };
        cache.put(&key, &c);
        assert_eq!(cache.get(&key), Some(c));
        let path = cache.path(&key);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.pop();
        std::fs::write(&path, bytes).unwrap();
        assert!(cache.get(&key).is_none(), "a torn entry is a miss");
        assert_ne!(Cache::key("fp", b"a"), Cache::key("fp", b"b"));
        // The same key as hashing it all at once, as entries written before were named.
        let whole = hex::encode(Sha256::digest(b"fp\0identity"));
        assert_eq!(key.to_string(), whole);
        assert_eq!(Keyer::new("fp").key(b"identity").to_string(), whole);
        let path = cache.path(&key);
        assert_eq!(path, dir.path().join(&whole[..2]).join(&whole[2..]));
    }
}

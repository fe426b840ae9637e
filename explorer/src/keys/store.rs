//! The key file: `[[key]]` tables with a name, the key's digest, its limits and its scope.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use modoai_gate::{generate_api_key, hash_api_key, KeyDigest};
use serde::{Deserialize, Serialize};

use crate::search::{Filter, Scope};

/// One key as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ApiKey {
    /// Its name (who has it).
    pub name: String,
    /// `sha256:` and the hex SHA-256 of the key.
    pub digest: String,
    /// Requests per hour; none: no quota.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota_per_hour: Option<u64>,
    /// Requests per second (sustained; bursts of up to one second's worth, at least 1); none: no
    /// rate limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_per_sec: Option<f64>,
    /// What it may see (`host:example.org`, `mime:image/*`, `archive:NAME`); empty: everything.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<Filter>,
    /// When it was made (RFC 3339).
    pub created: String,
}

impl ApiKey {
    /// Its scope.
    pub fn scope(&self) -> Scope {
        Scope(self.allow.clone())
    }
}

/// Why the key file cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// Reading or writing it failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It is not a key file (toml's message names line and key).
    #[error("{}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A request the file cannot honour.
    #[error("{0}")]
    Invalid(String),
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    key: Vec<ApiKey>,
}

/// The keys of a key file, with their parsed digests.
#[derive(Clone, Debug, Default)]
pub struct KeyFile {
    path: PathBuf,
    keys: Vec<(ApiKey, KeyDigest)>,
}

impl KeyFile {
    /// Reads `path`; a file that does not exist holds no keys.
    pub fn load(path: &Path) -> Result<KeyFile, KeyError> {
        let text = match fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => {
                return Err(KeyError::Io {
                    path: path.to_owned(),
                    source,
                })
            }
        };
        KeyFile::parse(path, &text)
    }

    /// The keys of `text`, the contents of the key file at `path` (named in errors).
    pub fn parse(path: &Path, text: &str) -> Result<KeyFile, KeyError> {
        let file: File = toml::from_str(text).map_err(|e| KeyError::Syntax {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        let mut keys = Vec::new();
        for k in file.key {
            let syntax = |message: String| KeyError::Syntax {
                path: path.to_owned(),
                message: format!("key {:?}: {message}", k.name),
            };
            let digest = KeyDigest::parse(&k.digest).map_err(|e| syntax(e.to_string()))?;
            // What `keys add` refuses, a file edited by hand may hold: refused here too.
            if k.quota_per_hour == Some(0) {
                return Err(syntax("quota-per-hour must be at least 1".into()));
            }
            if k.rate_per_sec.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
                return Err(syntax("rate-per-sec must be a number above 0".into()));
            }
            keys.push((k, digest));
        }
        Ok(KeyFile {
            path: path.to_owned(),
            keys,
        })
    }

    /// Loads `path`, changes it with `change` and saves it, holding an exclusive lock on
    /// `path` + `.lock` (made beside it) from before the read to after the write: two commands
    /// that add or revoke at once both take effect. Makes the file's folder when it is missing.
    pub fn edit<T>(
        path: &Path,
        change: impl FnOnce(&mut KeyFile) -> Result<T, KeyError>,
    ) -> Result<T, KeyError> {
        let io = |source| KeyError::Io {
            path: path.to_owned(),
            source,
        };
        if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(io)?;
        }
        let mut lock_name = path.as_os_str().to_owned();
        lock_name.push(".lock");
        let lock = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(PathBuf::from(lock_name))
            .map_err(io)?;
        lock.lock().map_err(io)?;
        let mut file = KeyFile::load(path)?;
        change(&mut file)
        // The lock ends when `lock` is closed.
    }

    /// The keys, in the file's order.
    pub fn keys(&self) -> impl Iterator<Item = &ApiKey> {
        self.keys.iter().map(|(k, _)| k)
    }

    /// The key a caller presented, compared in constant time with every stored digest.
    pub fn find(&self, presented: &str) -> Option<&ApiKey> {
        let digest = KeyDigest::of(presented);
        let mut found = None;
        for (k, d) in &self.keys {
            if d.matches(&digest) && found.is_none() {
                found = Some(k);
            }
        }
        found
    }

    /// Makes a new key named `name` and saves the file; returns the key (shown once).
    pub fn add(
        &mut self,
        name: &str,
        quota_per_hour: Option<u64>,
        rate_per_sec: Option<f64>,
        allow: Vec<Filter>,
    ) -> Result<String, KeyError> {
        if name.is_empty() || name.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err(KeyError::Invalid(format!(
                "{name:?}: a key name is one word"
            )));
        }
        if self.keys().any(|k| k.name == name) {
            return Err(KeyError::Invalid(format!(
                "a key named {name:?} exists; revoke it first or choose another name"
            )));
        }
        if quota_per_hour == Some(0) {
            return Err(KeyError::Invalid("--quota must be at least 1/hour".into()));
        }
        if rate_per_sec.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
            return Err(KeyError::Invalid("--rate must be more than 0/s".into()));
        }
        let key = generate_api_key();
        let digest = hash_api_key(&key).map_err(|e| KeyError::Invalid(e.to_string()))?;
        let created = time::OffsetDateTime::now_utc()
            .replace_nanosecond(0)
            .unwrap_or_else(|_| time::OffsetDateTime::now_utc())
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        let stored = ApiKey {
            name: name.to_owned(),
            digest: digest.clone(),
            quota_per_hour,
            rate_per_sec,
            allow,
            created,
        };
        let parsed = KeyDigest::parse(&digest).map_err(|e| KeyError::Invalid(e.to_string()))?;
        self.keys.push((stored, parsed));
        self.save()?;
        Ok(key)
    }

    /// Removes the key named `name` and saves the file; false when there is none.
    pub fn revoke(&mut self, name: &str) -> Result<bool, KeyError> {
        let before = self.keys.len();
        self.keys.retain(|(k, _)| k.name != name);
        if self.keys.len() == before {
            return Ok(false);
        }
        self.save()?;
        Ok(true)
    }

    /// The file's text, as [`KeyFile::parse`] reads it (without the header comment).
    pub fn text(&self) -> Result<String, KeyError> {
        let file = File {
            key: self.keys().cloned().collect(),
        };
        toml::to_string(&file).map_err(|e| KeyError::Invalid(e.to_string()))
    }

    /// Writes the file whole, readable by its owner only, replacing the old one atomically.
    fn save(&self) -> Result<(), KeyError> {
        let io = |source| KeyError::Io {
            path: self.path.clone(),
            source,
        };
        let text = self.text()?;
        let dir = self
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
        tmp.write_all(b"# API keys of modoai-explorer: written by `modoai-explorer keys`; keys are stored as SHA-256 digests.\n").map_err(io)?;
        tmp.write_all(text.as_bytes()).map_err(io)?;
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist(&self.path).map_err(|e| io(e.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_added_found_and_revoked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.toml");
        let mut file = KeyFile::load(&path).unwrap();
        let key = file
            .add(
                "alice",
                Some(100),
                Some(2.0),
                vec!["host:a.org".parse().unwrap()],
            )
            .unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(!text.contains(&key), "only the digest is stored");
        let file = KeyFile::load(&path).unwrap();
        let alice = file.find(&key).unwrap();
        assert_eq!(
            (alice.name.as_str(), alice.quota_per_hour),
            ("alice", Some(100))
        );
        assert_eq!(alice.scope().0.len(), 1);
        assert!(file.find("not-the-key-not-the-key-not-the-key").is_none());
        let mut file = file;
        assert!(file.add("alice", None, None, vec![]).is_err());
        assert!(file.add("bob", Some(0), None, vec![]).is_err());
        assert!(file.revoke("alice").unwrap());
        assert!(!file.revoke("alice").unwrap());
        assert!(KeyFile::load(&path).unwrap().find(&key).is_none());
    }

    #[test]
    fn edits_at_once_keep_every_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/keys.toml");
        std::thread::scope(|s| {
            for i in 0..16 {
                let path = &path;
                s.spawn(move || {
                    KeyFile::edit(path, |f| f.add(&format!("k{i}"), None, None, vec![])).unwrap()
                });
            }
        });
        assert_eq!(KeyFile::load(&path).unwrap().keys().count(), 16);
    }
}

//! [`OwnFiles`]: the server's own files and folders (its configuration, the plugins file, the
//! plugin cache, the access log), which are never records, never served and never analysed,
//! even when a webmaster puts them inside the document root.
//!
//! Without this, a plugins file and its cache inside the root became records, the tools then
//! analysed their own cache, and every `oai_crate` pass added records.

use std::fmt;
use std::path::{Path, PathBuf};

/// What one of the server's own paths is, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OwnKind {
    /// The configuration file (`--config`), which may hold secrets.
    Config,
    /// The plugins file of `oai_crate`.
    Plugins,
    /// The folder where plugin results are cached.
    PluginCache,
    /// The access log file.
    AccessLog,
    /// The state folder that keeps the site index.
    State,
    /// A path the embedding application names with [`Config::own_path`](crate::Config::own_path).
    Other,
}

impl fmt::Display for OwnKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OwnKind::Config => "configuration file",
            OwnKind::Plugins => "plugins file",
            OwnKind::PluginCache => "plugin cache",
            OwnKind::AccessLog => "access log",
            OwnKind::State => "state folder",
            OwnKind::Other => "server file",
        })
    }
}

/// One of the server's own paths: a file, or a folder and everything below it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnFile {
    /// What it is.
    pub kind: OwnKind,
    /// Its path, absolute and with symlinks resolved as far as it exists.
    pub path: PathBuf,
}

/// The server's own paths. Cheap to clone; small (a handful of entries).
#[derive(Clone, Debug, Default)]
pub struct OwnFiles {
    files: Vec<OwnFile>,
}

impl OwnFiles {
    /// Adds `path` (relative paths are taken from the current directory).
    pub(crate) fn add(&mut self, kind: OwnKind, path: &Path) {
        let path = resolve(path);
        if !self.files.iter().any(|f| f.path == path) {
            self.files.push(OwnFile { kind, path });
        }
    }

    /// The own path that `real` (absolute, symlinks resolved) is, or lies below.
    pub fn find(&self, real: &Path) -> Option<&OwnFile> {
        self.files.iter().find(|f| real.starts_with(&f.path))
    }

    /// The own paths inside the folder `canonical_root`.
    pub fn inside<'a>(&'a self, canonical_root: &'a Path) -> impl Iterator<Item = &'a OwnFile> {
        self.files
            .iter()
            .filter(move |f| f.path.starts_with(canonical_root))
    }

    /// The same paths resolved again: a folder created since (the plugin cache is made on first
    /// use) may sit behind a symlink that did not exist when it was added.
    pub(crate) fn resolved(&self) -> OwnFiles {
        OwnFiles {
            files: self
                .files
                .iter()
                .map(|f| OwnFile {
                    kind: f.kind,
                    path: resolve(&f.path),
                })
                .collect(),
        }
    }
}

/// `path` made absolute, with the symlinks of its longest existing ancestor resolved; the part
/// that does not exist yet is kept as written.
fn resolve(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return rest.iter().rev().fold(real, |p, name| p.join(name));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return abs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_file_and_everything_below_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("plugins.toml"), "").unwrap();
        let mut own = OwnFiles::default();
        own.add(OwnKind::Plugins, &root.join("plugins.toml"));
        own.add(OwnKind::PluginCache, &root.join("cache/not/yet"));
        assert_eq!(
            own.find(&root.join("plugins.toml")).map(|f| f.kind),
            Some(OwnKind::Plugins)
        );
        assert!(own.find(&root.join("plugins.toml.bak")).is_none());
        assert!(own.find(&root.join("cache/not/yet/ab/cd")).is_some());
        assert!(own.find(&root.join("cache/not")).is_none());
        assert_eq!(own.inside(&root).count(), 2);
        assert_eq!(own.inside(&root.join("cache")).count(), 1);
    }

    #[test]
    fn resolves_symlinked_ancestors_of_paths_that_do_not_exist_yet() {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        let mut own = OwnFiles::default();
        own.add(OwnKind::PluginCache, &dir.path().join("link/cache"));
        assert!(own.find(&real.join("cache/x")).is_some());
    }
}

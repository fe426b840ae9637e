//! Document roots for a test: empty, a copy of `examples/site`, or a copy of any folder.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use tempfile::TempDir;

/// The repository's top folder.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// A document root in a temporary folder.
pub struct TestSite {
    dir: TempDir,
}

impl TestSite {
    /// An empty site.
    pub fn empty() -> Self {
        TestSite {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// A copy of `examples/site`, hidden files included (they must stay out of the index).
    pub fn example() -> Self {
        let site = Self::empty();
        copy_dir(&repo_root().join("examples/site"), site.path());
        site
    }

    /// A copy of any folder.
    pub fn from_dir(dir: &Path) -> Self {
        let site = Self::empty();
        copy_dir(dir, site.path());
        site
    }

    /// The root folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file (creating folders) and sets its mtime to `unix` seconds, if given.
    pub fn write(&self, rel: &str, bytes: &[u8], unix: Option<u64>) -> PathBuf {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&path, bytes).expect("write");
        if let Some(secs) = unix {
            set_mtime(&path, secs);
        }
        path
    }
}

/// Sets a file's modification time.
pub fn set_mtime(path: &Path, unix: u64) {
    let f = std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open for mtime");
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(unix))
        .expect("set mtime");
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read example site") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

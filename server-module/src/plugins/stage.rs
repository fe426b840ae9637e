//! Neutral names for the tools: each file of a page is linked as `f000001.EXT` in a private
//! temporary folder, so tools never see the server's paths, nor names that are not UTF-8 (which
//! some echo back raw, percent-mangle, or cannot open at all).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::subject::Subject;

/// The linked files of one page, removed with the folder when this drops.
pub(crate) struct Stage {
    dir: tempfile::TempDir,
    names: Vec<String>,
}

impl Stage {
    /// Links every subject, by its index in `subjects`.
    pub(crate) fn new(subjects: &[Subject]) -> std::io::Result<Stage> {
        let dir = tempfile::Builder::new().prefix("modoai-").tempdir()?;
        let names: Vec<String> = subjects
            .iter()
            .enumerate()
            .map(|(i, s)| neutral_name(i, &s.rel))
            .collect();
        for (s, name) in subjects.iter().zip(&names) {
            std::os::unix::fs::symlink(&s.abs, dir.path().join(name))?;
        }
        Ok(Stage { dir, names })
    }

    /// The neutral path of subject `i`.
    pub(crate) fn path(&self, i: usize) -> PathBuf {
        self.dir.path().join(&self.names[i])
    }

    /// The neutral file name of subject `i`.
    pub(crate) fn name(&self, i: usize) -> String {
        self.names[i].clone()
    }
}

/// `f000001.jpg`: a counter, and the extension when it is short ASCII (tools such as FIDO use it).
fn neutral_name(i: usize, rel: &Path) -> String {
    let ext = rel
        .extension()
        .and_then(|e| e.to_str())
        .filter(|e| e.len() <= 10 && e.bytes().all(|b| b.is_ascii_alphanumeric()));
    match ext {
        Some(e) => format!("f{:06}.{}", i + 1, e.to_ascii_lowercase()),
        None => format!("f{:06}", i + 1),
    }
}

/// The argv with `{path}`/`{paths}` replaced by the staged paths.
pub(crate) fn expand(argv: &[String], paths: &[PathBuf]) -> Vec<OsString> {
    let mut out = Vec::with_capacity(argv.len() + paths.len());
    for a in argv {
        match a.as_str() {
            "{path}" | "{paths}" => out.extend(paths.iter().map(|p| p.clone().into_os_string())),
            _ => out.push(OsString::from(a)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn neutral_names() {
        assert_eq!(neutral_name(0, Path::new("a/Photo.JPG")), "f000001.jpg");
        assert_eq!(neutral_name(9, Path::new("README")), "f000010");
        assert_eq!(
            neutral_name(1, Path::new(std::ffi::OsStr::from_bytes(b"caf\xe9.t\xfft"))),
            "f000002"
        );
    }

    #[test]
    fn placeholders() {
        let argv = vec!["t".to_owned(), "-x".to_owned(), "{paths}".to_owned()];
        let out = expand(&argv, &[PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(out, ["t", "-x", "/a", "/b"].map(OsString::from));
    }
}

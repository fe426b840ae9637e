//! Neutral names for the tools: each file of a page is linked as `f000001.EXT` in a private
//! temporary folder (in [`scratch::folder`](crate::scratch::folder)), so tools never see the
//! server's paths, nor names that are not UTF-8 (which some echo back raw, percent-mangle, or
//! cannot open at all).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::subject::Subject;

/// The linked files of one page, removed with the folder when this drops (no folder at all when
/// nothing is linked).
pub(crate) struct Stage {
    dir: Option<tempfile::TempDir>,
    names: Vec<String>,
}

impl Stage {
    /// Links the subjects whose indices in `subjects` are in `staged` (each once, however often
    /// it is listed); every subject keeps its neutral name, and only a linked one may be opened
    /// through [`Stage::path`].
    pub(crate) fn new(subjects: &[Subject], staged: &[usize]) -> std::io::Result<Stage> {
        let names: Vec<String> = subjects
            .iter()
            .enumerate()
            .map(|(i, s)| neutral_name(i, &s.rel))
            .collect();
        if staged.is_empty() {
            return Ok(Stage { dir: None, names });
        }
        let dir = crate::scratch::tempdir("modoai-")?;
        let mut linked = vec![false; subjects.len()];
        for &i in staged {
            if !std::mem::replace(&mut linked[i], true) {
                std::os::unix::fs::symlink(&subjects[i].abs, dir.path().join(&names[i]))?;
            }
        }
        Ok(Stage {
            dir: Some(dir),
            names,
        })
    }

    /// The neutral path of subject `i`, which must have been linked.
    pub(crate) fn path(&self, i: usize) -> PathBuf {
        let dir = self.dir.as_ref().expect("only linked subjects are opened");
        dir.path().join(&self.names[i])
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

    fn subject(dir: &Path, name: &str) -> Subject {
        let abs = dir.join(name);
        std::fs::write(&abs, name).unwrap();
        Subject {
            abs,
            rel: PathBuf::from(name),
            mime: "text/plain".into(),
            size: name.len() as u64,
            mtime_ns: 0,
            inode: 0,
        }
    }

    #[test]
    fn only_the_files_a_tool_opens_are_linked() {
        let site = tempfile::tempdir().unwrap();
        let subjects: Vec<Subject> = ["a.txt", "b.txt", "c.txt"]
            .iter()
            .map(|n| subject(site.path(), n))
            .collect();
        let stage = Stage::new(&subjects, &[2, 0, 2]).unwrap();
        let dir = stage.dir.as_ref().unwrap().path().to_owned();
        let mut linked: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        linked.sort();
        assert_eq!(linked, ["f000001.txt", "f000003.txt"]);
        assert_eq!(std::fs::read(stage.path(2)).unwrap(), b"c.txt");
        drop(stage);
        assert!(!dir.exists(), "the folder goes with the stage");
        let none = Stage::new(&subjects, &[]).unwrap();
        assert!(none.dir.is_none(), "nothing to link: no folder is made");
        assert_eq!(none.name(1), "f000002.txt");
    }

    #[test]
    fn placeholders() {
        let argv = vec!["t".to_owned(), "-x".to_owned(), "{paths}".to_owned()];
        let out = expand(&argv, &[PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(out, ["t", "-x", "/a", "/b"].map(OsString::from));
    }
}

//! What a path given to the explorer is: a modoai archive, a folder of WARC/ARC files, one such
//! file, or a WACZ package; and the files of it that are ready to read.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::warc::OPEN_SUFFIX;

use super::input_error::InputError;
use super::location::Source;
use super::wacz::wacz_sources;

/// The file names read as web archives.
const SUFFIXES: [&str; 4] = [".warc", ".warc.gz", ".arc", ".arc.gz"];

/// A path to read web archives from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A modoai archive (a folder with `ledger.jsonl`), read through its ledger.
    Archive(PathBuf),
    /// A folder searched recursively for `*.warc`, `*.warc.gz`, `*.arc` and `*.arc.gz`.
    Folder(PathBuf),
    /// One WARC or ARC file.
    File(PathBuf),
    /// A WACZ package, whose `archive/` WARC files are read in place.
    Wacz(PathBuf),
}

/// How a folder's files are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListOptions {
    /// A file modified less than this long ago may still be growing (a crawler writing it), so
    /// it is left for the next run. Defaults to 60 seconds.
    pub settle: Duration,
}

impl Default for ListOptions {
    fn default() -> Self {
        ListOptions {
            settle: Duration::from_secs(60),
        }
    }
}

/// The files of an input: those to read now, and those left for a later run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// Files to read, in path order.
    pub ready: Vec<Source>,
    /// Files still being written.
    pub waiting: Vec<Waiting>,
}

/// A file left for a later run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub reason: WaitReason,
}

/// Why a file is left for a later run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitReason {
    /// Named `….open`: its writer has not closed it.
    Open,
    /// Modified this long ago, less than [`ListOptions::settle`].
    Recent(Duration),
}

impl Input {
    /// What `path` is.
    pub fn detect(path: &Path) -> Result<Input, InputError> {
        let meta = std::fs::metadata(path).map_err(|error| InputError::Io {
            path: path.to_owned(),
            error,
        })?;
        let name = file_name(path);
        if meta.is_dir() {
            return Ok(match path.join("ledger.jsonl").is_file() {
                true => Input::Archive(path.to_owned()),
                false => Input::Folder(path.to_owned()),
            });
        }
        if name.ends_with(".wacz") {
            wacz_sources(path)?;
            return Ok(Input::Wacz(path.to_owned()));
        }
        let open = name.strip_suffix(OPEN_SUFFIX).unwrap_or(&name);
        if SUFFIXES.iter().any(|s| open.ends_with(s)) {
            return Ok(Input::File(path.to_owned()));
        }
        Err(InputError::NotAnInput {
            path: path.to_owned(),
        })
    }

    /// The path.
    pub fn path(&self) -> &Path {
        match self {
            Input::Archive(p) | Input::Folder(p) | Input::File(p) | Input::Wacz(p) => p,
        }
    }

    /// The input's name: its folder's or file's name, as a collection is named by default.
    pub fn name(&self) -> String {
        file_name(self.path())
    }

    /// The WARC and ARC files to read now (a modoai archive's are under `warcs/`), and those
    /// still being written.
    pub fn list(&self, options: &ListOptions) -> Result<Listing, InputError> {
        let now = SystemTime::now();
        match self {
            Input::Wacz(path) => Ok(Listing {
                ready: wacz_sources(path)?,
                waiting: Vec::new(),
            }),
            Input::File(path) => {
                let mut listing = Listing::default();
                listing.add(path, now, options).map_err(io_at(path))?;
                Ok(listing)
            }
            Input::Folder(dir) => folder(dir, now, options),
            Input::Archive(dir) => folder(&dir.join("warcs"), now, options),
        }
    }
}

impl Listing {
    fn add(&mut self, path: &Path, now: SystemTime, options: &ListOptions) -> std::io::Result<()> {
        if file_name(path).ends_with(OPEN_SUFFIX) {
            self.waiting.push(Waiting {
                path: path.to_owned(),
                reason: WaitReason::Open,
            });
            return Ok(());
        }
        let modified = std::fs::metadata(path)?.modified()?;
        let age = now.duration_since(modified).unwrap_or_default();
        match age < options.settle {
            true => self.waiting.push(Waiting {
                path: path.to_owned(),
                reason: WaitReason::Recent(age),
            }),
            false => self.ready.push(Source::file(path)),
        }
        Ok(())
    }
}

fn folder(dir: &Path, now: SystemTime, options: &ListOptions) -> Result<Listing, InputError> {
    let mut listing = Listing::default();
    let walk = walkdir::WalkDir::new(dir).sort_by_file_name().into_iter();
    let visible =
        walk.filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in visible {
        let entry = entry.map_err(|e| InputError::Io {
            path: e.path().unwrap_or(dir).to_owned(),
            error: e.into(),
        })?;
        let name = entry.file_name().to_string_lossy();
        let bare = name.strip_suffix(OPEN_SUFFIX).unwrap_or(&name);
        if entry.file_type().is_file() && SUFFIXES.iter().any(|s| bare.ends_with(s)) {
            listing
                .add(entry.path(), now, options)
                .map_err(io_at(entry.path()))?;
        }
    }
    Ok(listing)
}

fn io_at(path: &Path) -> impl Fn(std::io::Error) -> InputError + '_ {
    move |error| InputError::Io {
        path: path.to_owned(),
        error,
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

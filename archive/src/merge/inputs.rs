//! The archives to merge: each opened for reading and locked against harvesters, then checked
//! pairwise for what would make one merged archive wrong.

use std::collections::HashMap;
use std::fs::{self, File, TryLockError};
use std::path::{Path, PathBuf};

use super::error::{at, MergeError};
use crate::archive::Reader;

/// An archive to merge, locked (no harvest starts into it while it is merged).
#[derive(Debug)]
pub(super) struct Input {
    pub(super) reader: Reader,
    /// Its closed WARC files, by name.
    pub(super) warcs: Vec<String>,
    /// Its lock file, held with an exclusive `flock`; none when the archive has none.
    _lock: Option<File>,
}

impl Input {
    pub(super) fn dir(&self) -> &Path {
        self.reader.dir()
    }
}

/// Opens every input, refusing one given twice, in use, or with open WARC files.
pub(super) fn open(dirs: &[PathBuf]) -> Result<Vec<Input>, MergeError> {
    if dirs.is_empty() {
        return Err(MergeError::NoInputs);
    }
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for dir in dirs {
        let real = fs::canonicalize(dir).map_err(at(dir))?;
        if seen.contains(&real) {
            return Err(MergeError::SameInput(dir.clone()));
        }
        seen.push(real);
        out.push(open_one(dir)?);
    }
    check(&out)?;
    Ok(out)
}

fn open_one(dir: &Path) -> Result<Input, MergeError> {
    let reader = Reader::open(dir)?;
    let lock = lock(&reader.layout().lock(), dir)?;
    let open = reader.open_files().map_err(at(reader.layout().warcs()))?;
    if !open.is_empty() {
        let names: Vec<String> = open.iter().map(|p| file_name(p)).collect();
        return Err(MergeError::OpenFiles {
            archive: dir.to_owned(),
            files: names.join(", "),
        });
    }
    let warcs = closed_warcs(&reader.layout().warcs())?;
    Ok(Input {
        reader,
        warcs,
        _lock: lock,
    })
}

/// Takes the archive's lock as a harvester does; an archive without a lock file was never
/// opened by a harvester here (a copy), so there is nothing to hold.
fn lock(path: &Path, dir: &Path) -> Result<Option<File>, MergeError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(at(path)(e)),
    };
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(TryLockError::WouldBlock) => Err(MergeError::InUse(dir.to_owned())),
        Err(TryLockError::Error(e)) => Err(at(path)(e)),
    }
}

fn closed_warcs(warcs: &Path) -> Result<Vec<String>, MergeError> {
    let mut names = Vec::new();
    for entry in fs::read_dir(warcs).map_err(at(warcs))? {
        let entry = entry.map_err(at(warcs))?;
        if entry.file_type().map_err(at(entry.path()))?.is_file() {
            names.push(file_name(&entry.path()));
        }
    }
    names.sort();
    Ok(names)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One archive id among all inputs; no list, no WARC file name in two inputs.
fn check(inputs: &[Input]) -> Result<(), MergeError> {
    let mut id: Option<(usize, &str)> = None;
    for (i, input) in inputs.iter().enumerate() {
        match (id, input.reader.archive_id()) {
            (Some((j, first)), Some(other)) if first != other => {
                return Err(MergeError::ArchiveIds {
                    first: inputs[j].dir().to_owned(),
                    first_id: first.to_owned(),
                    second: input.dir().to_owned(),
                    second_id: other.to_owned(),
                })
            }
            (None, Some(other)) => id = Some((i, other)),
            _ => {}
        }
    }
    let lists = |input: &Input| {
        input
            .reader
            .state()
            .lists
            .keys()
            .map(|k| format!("the list {k}"))
            .collect()
    };
    disjoint(inputs, lists)?;
    disjoint(inputs, |input| {
        input
            .warcs
            .iter()
            .map(|n| format!("the WARC file {n}"))
            .collect()
    })
}

/// Fails when two inputs share one of the names `of` gives.
fn disjoint(inputs: &[Input], of: impl Fn(&Input) -> Vec<String>) -> Result<(), MergeError> {
    let mut owner: HashMap<String, usize> = HashMap::new();
    for (i, input) in inputs.iter().enumerate() {
        for name in of(input) {
            if let Some(&j) = owner.get(&name) {
                return Err(overlap(&inputs[j], input, name));
            }
            owner.insert(name, i);
        }
    }
    Ok(())
}

pub(super) fn overlap(first: &Input, second: &Input, what: String) -> MergeError {
    MergeError::Overlap {
        first: first.dir().to_owned(),
        second: second.dir().to_owned(),
        what,
    }
}

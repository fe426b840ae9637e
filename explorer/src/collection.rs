//! Collections: what each `--archive` names. A modoai archive, a folder of WARC/ARC files, one
//! such file or a WACZ package ([`Input`]), with its name and the folder of its index: inside a
//! modoai archive as always, under the index folder for every other input (the explorer never
//! writes into someone else's crawl, a WACZ or a read-only folder).
//!
//! ```
//! use modoai_explorer::collection::CollectionArg;
//!
//! let arg: CollectionArg = "crawl=/data/heritrix".parse()?;
//! assert_eq!(arg.name.as_deref(), Some("crawl"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use modoai_archive::any::{Input, InputError, ListOptions};

use crate::index::ArchiveIndex;

/// One `--archive` value: `PATH` or `NAME=PATH`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectionArg {
    /// The name given, if one was.
    pub name: Option<String>,
    /// The input's path.
    pub path: PathBuf,
}

/// A collection name that cannot name a folder or a PWID's archive id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a collection name (letters, digits, '.', '_', '-'; not starting with '.')")]
pub struct BadName(String);

/// `PATH`, or `NAME=PATH` when the text is not an existing path and what precedes its first
/// `=` is a valid name.
impl FromStr for CollectionArg {
    type Err = BadName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.split_once('=') {
            Some((name, path)) if !Path::new(s).exists() => {
                if !is_name(name) {
                    return Err(BadName(name.to_owned()));
                }
                Ok(CollectionArg {
                    name: Some(name.to_owned()),
                    path: PathBuf::from(path),
                })
            }
            _ => Ok(CollectionArg {
                name: None,
                path: PathBuf::from(s),
            }),
        }
    }
}

/// Whether `name` is safe as a folder name and a PWID archive id.
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// A collection served and indexed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collection {
    /// Its name (unique among those served).
    pub name: String,
    /// What it is.
    pub input: Input,
    /// Its index's folder.
    pub index: PathBuf,
}

impl Collection {
    /// A modoai archive at `dir`, named `name`, with its index inside it.
    pub fn archive(dir: &Path, name: String) -> Collection {
        Collection {
            name,
            input: Input::Archive(dir.to_owned()),
            index: ArchiveIndex::path_of(dir),
        }
    }

    /// Whether it is a modoai archive (read through its ledger).
    pub fn is_archive(&self) -> bool {
        matches!(self.input, Input::Archive(_))
    }
}

/// Why `--archive` values cannot be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CollectionError {
    /// A path is none of the inputs.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A folder that is no modoai archive holds no WARC or ARC file (a mistyped path, most
    /// likely).
    #[error(
        "{} is not an archive (no ledger.jsonl) and holds no WARC or ARC file (*.warc, \
         *.warc.gz, *.arc, *.arc.gz)",
        .0.display()
    )]
    Empty(PathBuf),
    /// Two collections were given the same name.
    #[error("two collections are named {0:?}: give one another name with NAME=PATH")]
    SameName(String),
}

/// The collections of `args`, each input detected; named by `NAME=`, else after their folder or
/// file (without `.warc.gz`, `.wacz`, …), made unique (`name-2`, …). Foreign inputs keep their
/// index in `index_dir/NAME`.
pub fn collections(
    args: &[CollectionArg],
    index_dir: &Path,
) -> Result<Vec<Collection>, CollectionError> {
    let mut names: HashSet<String> = args.iter().filter_map(|a| a.name.clone()).collect();
    if names.len() < args.iter().filter(|a| a.name.is_some()).count() {
        let mut seen = HashSet::new();
        let twice = args
            .iter()
            .filter_map(|a| a.name.clone())
            .find(|n| !seen.insert(n.clone()));
        return Err(CollectionError::SameName(twice.unwrap_or_default()));
    }
    let mut out = Vec::new();
    for arg in args {
        // One path per input, whatever the current folder: the index's per-file progress is
        // keyed by it.
        let path = arg.path.canonicalize().unwrap_or_else(|_| arg.path.clone());
        let input = Input::detect(&path)?;
        if let Input::Folder(dir) = &input {
            let listing = input.list(&ListOptions::default())?;
            if listing.ready.is_empty() && listing.waiting.is_empty() {
                return Err(CollectionError::Empty(dir.clone()));
            }
        }
        let name = match &arg.name {
            Some(n) => n.clone(),
            None => unique(&mut names, &stem(&input)),
        };
        let index = match input {
            Input::Archive(ref dir) => ArchiveIndex::path_of(dir),
            _ => index_dir.join(folder_name(&name)),
        };
        out.push(Collection { name, input, index });
    }
    Ok(out)
}

/// `base`, or `base-2`, `base-3`, … the first not in `names` (then added to it).
pub(crate) fn unique(names: &mut HashSet<String>, base: &str) -> String {
    let mut name = base.to_owned();
    let mut n = 1;
    while !names.insert(name.clone()) {
        n += 1;
        name = format!("{base}-{n}");
    }
    name
}

/// The input's folder or file name, without the suffix of its kind.
fn stem(input: &Input) -> String {
    let path = input.path();
    let path = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    let name = path.file_name().map_or_else(
        || "archive".to_owned(),
        |n| n.to_string_lossy().into_owned(),
    );
    if matches!(input, Input::Archive(_) | Input::Folder(_)) {
        return name;
    }
    let suffixes = [".open", ".gz", ".warc", ".arc", ".wacz"];
    let mut stem = name.as_str();
    for s in suffixes {
        stem = stem.strip_suffix(s).unwrap_or(stem);
    }
    match stem.is_empty() {
        true => name,
        false => stem.to_owned(),
    }
}

/// A collection name as a folder name: characters that are not safe become `_`.
fn folder_name(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                true => c,
                false => '_',
            },
        )
        .collect();
    match safe.trim_start_matches('.') {
        "" => "collection".to_owned(),
        s => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_given_or_taken_from_the_path() {
        let named: CollectionArg = "crawl=/nowhere/x".parse().unwrap();
        assert_eq!(named.name.as_deref(), Some("crawl"));
        assert_eq!(named.path, PathBuf::from("/nowhere/x"));
        let plain: CollectionArg = "/nowhere/y".parse().unwrap();
        assert_eq!(plain.name, None);
        assert!("a b=/nowhere".parse::<CollectionArg>().is_err());
        let stem_of = |p: &str| stem(&Input::File(PathBuf::from(p)));
        assert_eq!(stem_of("/d/crawl-1.warc.gz"), "crawl-1");
        assert_eq!(stem_of("/d/old.arc"), "old");
        assert_eq!(stem(&Input::Wacz(PathBuf::from("/d/site.wacz"))), "site");
        assert_eq!(folder_name("my crawl/2"), "my_crawl_2");
        let mut names = HashSet::new();
        assert_eq!(unique(&mut names, "a"), "a");
        assert_eq!(unique(&mut names, "a"), "a-2");
    }
}

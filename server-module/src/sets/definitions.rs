//! [`Definitions`]: the folder setting and the named sets in force, checked as a whole; what set a
//! request names, and which sets a record is in.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

use modoai_protocol::setspec::{folder_from_set_spec, MIME_ROOT, PATH_ROOT};
use sha2::{Digest as _, Sha256};

use super::membership::{folder_key, named_key, with_ancestors, Membership, SetKey};
use super::{FolderSets, NamedSet, SetError};
use crate::index::url_path;

/// The sets beside the MIME sets: folders and named sets.
#[derive(Clone, Debug, Default)]
pub(crate) struct Definitions {
    pub(crate) folders: FolderSets,
    /// Sorted by spec.
    named: Vec<NamedSet>,
}

/// What the index reads for a set a request names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// Every record: `mime`, or `path` (the root folder).
    All,
    /// A set of the MIME hierarchy below its root.
    Mime,
    /// A folder or named set: the records under this key.
    Key(SetKey),
    /// No such set.
    Unknown,
}

impl Definitions {
    /// The definitions, checked: specs unique, each set's parent defined, every set including
    /// something.
    pub(crate) fn new(folders: FolderSets, mut named: Vec<NamedSet>) -> Result<Self, SetError> {
        named.sort_by(|a, b| a.spec().cmp(b.spec()));
        let mut specs = HashSet::new();
        for s in &named {
            if !specs.insert(s.spec()) {
                return Err(SetError::Duplicate(s.spec().to_owned()));
            }
            if !s.has_include() {
                return Err(SetError::NoInclude(s.spec().to_owned()));
            }
        }
        for s in &named {
            if let Some(parent) = with_ancestors(s.spec()).nth(1) {
                if !specs.contains(parent) {
                    return Err(SetError::Parent {
                        spec: s.spec().to_owned(),
                        parent: parent.to_owned(),
                    });
                }
            }
        }
        Ok(Definitions { folders, named })
    }

    /// The named sets, sorted by spec.
    pub(crate) fn named(&self) -> &[NamedSet] {
        &self.named
    }

    /// The named set `spec`.
    pub(crate) fn find(&self, spec: &str) -> Option<&NamedSet> {
        self.named
            .binary_search_by(|s| s.spec().cmp(spec))
            .ok()
            .map(|i| &self.named[i])
    }

    /// The sets (besides its MIME sets) of the record at URL path `path` served as `mime`.
    pub(crate) fn membership(&self, path: &str, mime: &str) -> Membership {
        let named = if self.named.is_empty() {
            Vec::new()
        } else {
            let rel = url_path::decode(path);
            self.named
                .iter()
                .filter(|s| s.contains(&rel, mime))
                .map(|s| Arc::from(s.spec()))
                .collect()
        };
        Membership {
            folder: self.folders.depth_of(path),
            named,
        }
    }

    /// What the index reads for the set `spec`.
    pub(crate) fn lookup(&self, spec: &str) -> Lookup {
        let root = spec.split(':').next().unwrap_or("");
        if spec == MIME_ROOT {
            return Lookup::All;
        }
        if root == MIME_ROOT {
            return Lookup::Mime;
        }
        if root == PATH_ROOT {
            return match folder_from_set_spec(spec) {
                _ if self.folders == FolderSets::Off => Lookup::Unknown,
                Some(f) if f.is_empty() => Lookup::All,
                Some(f) => {
                    let rel = Path::new(OsStr::from_bytes(&f));
                    if self.folders.reaches(rel.components().count()) {
                        Lookup::Key(folder_key(&url_path::encode(rel)))
                    } else {
                        Lookup::Unknown
                    }
                }
                None => Lookup::Unknown,
            };
        }
        match self.find(spec) {
            Some(_) => Lookup::Key(named_key(spec)),
            None => Lookup::Unknown,
        }
    }

    /// A digest of what decides membership (the folder setting, each set's spec and patterns;
    /// not names or descriptions): stored with the index, so a change while the server was down
    /// is found at the next start.
    pub(crate) fn fingerprint(&self) -> String {
        let mut h = Sha256::new();
        h.update(format!("{:?}\u{2}", self.folders));
        for s in &self.named {
            h.update(s.criteria());
            h.update("\u{2}");
        }
        hex::encode(&h.finalize()[..16])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(spec: &str, include: &str) -> NamedSet {
        NamedSet::new(spec, spec).unwrap().include(include).unwrap()
    }

    #[test]
    fn checked_as_a_whole() {
        let err = |named| {
            Definitions::new(FolderSets::All, named)
                .unwrap_err()
                .to_string()
        };
        assert!(err(vec![set("a", "**"), set("a", "x")]).contains("defined twice"));
        assert!(err(vec![set("a:b", "**")]).contains("add a [[sets]] entry for \"a\""));
        assert!(err(vec![NamedSet::new("a", "A").unwrap()]).contains("includes nothing"));
        assert!(Definitions::new(FolderSets::All, vec![set("a:b", "x"), set("a", "y")]).is_ok());
    }

    #[test]
    fn lookups_and_membership() {
        let d = Definitions::new(
            FolderSets::Depth(2.try_into().unwrap()),
            vec![set("pdfs", "**/*.pdf")],
        )
        .unwrap();
        assert_eq!(d.lookup("mime"), Lookup::All);
        assert_eq!(d.lookup("path"), Lookup::All);
        assert_eq!(d.lookup("mime:image"), Lookup::Mime);
        assert_eq!(d.lookup("path:a*20b"), Lookup::Key(b"fa%20b".to_vec()));
        assert_eq!(
            d.lookup("path:a:b:c"),
            Lookup::Unknown,
            "deeper than the setting"
        );
        assert_eq!(d.lookup("pdfs"), Lookup::Key(b"npdfs".to_vec()));
        assert_eq!(d.lookup("other"), Lookup::Unknown);
        let m = d.membership("a/b/c/x.pdf", "application/pdf");
        assert_eq!(m.folder, Some(2));
        assert_eq!(m.named, [Arc::from("pdfs")]);
        let off = Definitions::default();
        assert_eq!(
            Definitions::new(FolderSets::Off, vec![])
                .unwrap()
                .lookup("path"),
            Lookup::Unknown
        );
        assert_ne!(off.fingerprint(), d.fingerprint());
        let renamed = Definitions::new(
            FolderSets::Depth(2.try_into().unwrap()),
            vec![NamedSet::new("pdfs", "Other name")
                .unwrap()
                .include("**/*.pdf")
                .unwrap()],
        )
        .unwrap();
        assert_eq!(
            renamed.fingerprint(),
            d.fingerprint(),
            "names decide no membership"
        );
    }
}

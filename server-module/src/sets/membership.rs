//! [`Membership`]: the sets a record is in besides its MIME sets, as stored with the record, and
//! the keys of those sets in the index.
//!
//! A set's key is a tag and its name: `f` and the folder's URL path for a folder set, `n` and the
//! spec for a named set. A record has a key for its folder set and each folder above it (down to
//! the root's children; the root folder is the whole site) and for each named set it is in and
//! each named set above those, so a set and its descendants are one range of the index, however
//! deep the hierarchy.

use std::sync::Arc;

use modoai_protocol::setspec::folder_set_spec;
use percent_encoding::percent_decode_str;

/// The key of a set in the index: a tag byte, then its name.
pub(crate) type SetKey = Vec<u8>;

/// Tag of a folder set's key.
pub(crate) const FOLDER: u8 = b'f';
/// Tag of a named set's key.
pub(crate) const NAMED: u8 = b'n';

/// The folder and named sets of one record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Membership {
    /// The depth of the record's folder set (0: the root folder); `None` without folder sets.
    pub(crate) folder: Option<u16>,
    /// The named sets the record is in itself (not through a set below), sorted.
    pub(crate) named: Vec<Arc<str>>,
}

/// The key of the folder set of the folder at URL path `folder` (no trailing `/`).
pub(crate) fn folder_key(folder: &str) -> SetKey {
    let mut k = Vec::with_capacity(1 + folder.len());
    k.push(FOLDER);
    k.extend_from_slice(folder.as_bytes());
    k
}

/// The key of the named set `spec`.
pub(crate) fn named_key(spec: &str) -> SetKey {
    let mut k = Vec::with_capacity(1 + spec.len());
    k.push(NAMED);
    k.extend_from_slice(spec.as_bytes());
    k
}

/// The URL paths of the folders of `path` from the root's child down to depth `depth`.
fn folders(path: &str, depth: u16) -> impl Iterator<Item = &str> {
    path.match_indices('/')
        .take(usize::from(depth))
        .map(move |(i, _)| &path[..i])
}

/// The spec of the folder set of the folder at URL path `folder` ("" for the root).
pub(crate) fn folder_spec(folder: &str) -> String {
    let bytes: Vec<u8> = percent_decode_str(folder).collect();
    folder_set_spec(&bytes)
}

/// The spec and each spec above it: `a:b:c`, `a:b`, `a`.
pub(crate) fn with_ancestors(spec: &str) -> impl Iterator<Item = &str> {
    std::iter::once(spec).chain(spec.match_indices(':').map(|(i, _)| &spec[..i]))
}

impl Membership {
    /// The keys of every set the record at URL path `path` is in, its folder's and named sets'
    /// ancestors included (the root folder excepted: it is the whole site).
    pub(crate) fn keys(&self, path: &str) -> Vec<SetKey> {
        let mut keys: Vec<SetKey> = folders(path, self.folder.unwrap_or(0))
            .map(folder_key)
            .collect();
        let mut named: Vec<&str> = self.named.iter().flat_map(|s| with_ancestors(s)).collect();
        named.sort_unstable();
        named.dedup();
        keys.extend(named.into_iter().map(named_key));
        keys
    }

    /// The setSpecs of the record's header: its folder set and its named sets (their ancestors
    /// are implied, OAI-PMH §2.7.2).
    pub(crate) fn specs(&self, path: &str) -> Vec<String> {
        let mut specs = Vec::with_capacity(1 + self.named.len());
        if let Some(depth) = self.folder {
            let folder = folders(path, depth).last().unwrap_or("");
            specs.push(folder_spec(folder));
        }
        specs.extend(self.named.iter().map(|s| s.to_string()));
        specs
    }

    /// Appends the stored form: a flag and depth, then the named specs, each with its length.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        out.push(u8::from(self.folder.is_some()));
        out.extend_from_slice(&self.folder.unwrap_or(0).to_be_bytes());
        out.extend_from_slice(&(self.named.len() as u16).to_be_bytes());
        for s in &self.named {
            out.extend_from_slice(&(s.len() as u16).to_be_bytes());
            out.extend_from_slice(s.as_bytes());
        }
    }

    /// The membership stored as `b` (all of it), if it is one.
    pub(crate) fn decode(b: &[u8]) -> Option<Membership> {
        let u16_at = |i: usize| Some(u16::from_be_bytes(b.get(i..i + 2)?.try_into().ok()?));
        let flag = *b.first()?;
        let depth = u16_at(1)?;
        let n = usize::from(u16_at(3)?);
        let mut at = 5;
        let mut named = Vec::with_capacity(n);
        for _ in 0..n {
            let len = usize::from(u16_at(at)?);
            let spec = std::str::from_utf8(b.get(at + 2..at + 2 + len)?).ok()?;
            named.push(Arc::from(spec));
            at += 2 + len;
        }
        (at == b.len() && flag <= 1).then(|| Membership {
            folder: (flag == 1).then_some(depth),
            named,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_cover_ancestors_and_specs_name_the_leaves() {
        let m = Membership {
            folder: Some(2),
            named: vec![Arc::from("conf:2019"), Arc::from("conf:2020")],
        };
        let path = "a%20b/c/d/x.txt";
        let keys: Vec<String> = m
            .keys(path)
            .iter()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect();
        assert_eq!(
            keys,
            ["fa%20b", "fa%20b/c", "nconf", "nconf:2019", "nconf:2020"]
        );
        assert_eq!(m.specs(path), ["path:a*20b:c", "conf:2019", "conf:2020"]);
        let root = Membership {
            folder: Some(0),
            named: vec![],
        };
        assert!(root.keys("x.txt").is_empty());
        assert_eq!(root.specs("x.txt"), ["path"]);
        assert!(Membership::default().specs("a/x").is_empty());
        for m in [m, root, Membership::default()] {
            let mut b = Vec::new();
            m.encode(&mut b);
            assert_eq!(Membership::decode(&b), Some(m));
        }
        assert_eq!(Membership::decode(&[1, 0]), None);
    }
}

//! One record of the index ([`Entry`]) and its place in the stable order ([`Key`]).

use std::path::PathBuf;
use std::sync::Arc;

use modoai_protocol::setspec::mime_set_specs;
use modoai_protocol::Datestamp;

use crate::sets::Membership;

/// A position in the stable order of records: datestamp first, then the URL path.
pub(crate) type Key = (Datestamp, Arc<str>);

/// What identifies one version of a file on disk; a change of any part means the file changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) size: u64,
    pub(crate) mtime_ns: i128,
    pub(crate) inode: u64,
}

/// One record: a file of the site, or the tombstone of a file deleted while the server ran.
#[derive(Debug)]
pub(crate) struct Entry {
    /// URL path relative to the site root, percent-encoded, without a leading `/`.
    pub(crate) path: Arc<str>,
    /// mtime in UTC at seconds granularity, or for a tombstone the time the deletion was seen.
    pub(crate) datestamp: Datestamp,
    /// The MIME type essence, as the site serves it.
    pub(crate) mime: Arc<str>,
    pub(crate) stamp: Stamp,
    pub(crate) deleted: bool,
    /// Its folder and named sets.
    pub(crate) sets: Membership,
}

impl Entry {
    /// Path on disk relative to the document root (decoded from `path`, not stored: a million
    /// records would hold it twice).
    pub(crate) fn rel(&self) -> PathBuf {
        super::url_path::decode(&self.path)
    }

    /// Its setSpecs: `mime`, `mime:TYPE`, `mime:TYPE:SUBTYPE`, then its folder set and its
    /// named sets.
    pub(crate) fn set_specs(&self) -> Vec<String> {
        let mut specs = mime_set_specs(&self.mime).to_vec();
        specs.extend(self.sets.specs(&self.path));
        specs
    }
}

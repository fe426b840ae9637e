//! The byte layouts of the index's keyspaces. Every key sorts bytewise in the order the index
//! needs: datestamps as big-endian integers with the sign bit flipped (so times before 1970 sort
//! first), then the URL path.
//!
//! | keyspace | key | value |
//! |---|---|---|
//! | `records` | URL path | [`Record`] |
//! | `order` | datestamp, URL path | empty |
//! | `sets` | MIME id (4 bytes), datestamp, URL path | empty |
//! | `members` | set key (tag, name), `0`, datestamp, URL path | empty |
//! | `set_counts` | set key | records (deletions included), 8 bytes |
//! | `changes` | datestamp, sequence number (8 bytes) | [`ChangeKind`] byte, URL path |
//! | `meta` | name | the [`Catalog`](super::catalog::Catalog) as JSON |

use modoai_protocol::Datestamp;

use super::entry::Stamp;
use crate::sets::Membership;

/// Bytes of an encoded datestamp.
pub(super) const DS: usize = 8;

/// A datestamp as 8 bytes that sort like the datestamps.
pub(super) fn ds_bytes(d: Datestamp) -> [u8; DS] {
    ((d.unix() as u64) ^ (1 << 63)).to_be_bytes()
}

/// The datestamp of the first 8 bytes of `b` (which must be that long).
pub(super) fn ds_from(b: &[u8]) -> Datestamp {
    let mut raw = [0u8; DS];
    raw.copy_from_slice(&b[..DS]);
    Datestamp::from_unix((u64::from_be_bytes(raw) ^ (1 << 63)) as i64)
}

/// The key of `order`: datestamp, then path.
pub(super) fn order_key(d: Datestamp, path: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(DS + path.len());
    k.extend_from_slice(&ds_bytes(d));
    k.extend_from_slice(path.as_bytes());
    k
}

/// The key of `sets`: MIME id, datestamp, path.
pub(super) fn set_key(mime: u32, d: Datestamp, path: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(4 + DS + path.len());
    k.extend_from_slice(&mime.to_be_bytes());
    k.extend_from_slice(&ds_bytes(d));
    k.extend_from_slice(path.as_bytes());
    k
}

/// The key of `members`: the set's key, a `0` byte (no set key holds one), datestamp, path.
pub(super) fn member_key(set: &[u8], d: Datestamp, path: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(set.len() + 1 + DS + path.len());
    k.extend_from_slice(set);
    k.push(0);
    k.extend_from_slice(&ds_bytes(d));
    k.extend_from_slice(path.as_bytes());
    k
}

/// The first key of a set's range of `members`, and the key after its range.
pub(super) fn member_range(set: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut start = set.to_vec();
    start.push(0);
    let mut end = set.to_vec();
    end.push(1);
    (start, end)
}

/// A count of `set_counts`.
pub(super) fn count_from(b: &[u8]) -> u64 {
    b.try_into().map_or(0, u64::from_be_bytes)
}

/// The path of an `order` key (after the datestamp), if it is UTF-8 (every stored path is).
pub(super) fn path_of_order_key(k: &[u8]) -> Option<&str> {
    std::str::from_utf8(k.get(DS..)?).ok()
}

/// What one stored record says: one version of a file, or the deletion of one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) datestamp: Datestamp,
    /// The MIME id in the catalog.
    pub(crate) mime: u32,
    pub(crate) stamp: Stamp,
    pub(crate) deleted: bool,
    /// Its folder and named sets, as linked in `members`.
    pub(crate) sets: Membership,
}

/// Bytes of an encoded [`Record`] before its sets (all of it in stores written before sets were
/// stored: their records are in no folder or named set).
const RECORD: usize = DS + 4 + 8 + 16 + 8 + 1;

impl Record {
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; RECORD];
        b[..8].copy_from_slice(&ds_bytes(self.datestamp));
        b[8..12].copy_from_slice(&self.mime.to_be_bytes());
        b[12..20].copy_from_slice(&self.stamp.size.to_be_bytes());
        b[20..36].copy_from_slice(&self.stamp.mtime_ns.to_be_bytes());
        b[36..44].copy_from_slice(&self.stamp.inode.to_be_bytes());
        b[44] = u8::from(self.deleted);
        self.sets.encode(&mut b);
        b
    }

    /// The record of `b`, or `None` if `b` is not one (a store from another version).
    pub(super) fn decode(b: &[u8]) -> Option<Record> {
        let sets = match b.get(RECORD..) {
            None => return None,
            Some([]) => Membership::default(),
            Some(rest) => Membership::decode(rest)?,
        };
        let u64_at = |i: usize| u64::from_be_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        Some(Record {
            datestamp: ds_from(b),
            mime: u32::from_be_bytes(b[8..12].try_into().expect("4 bytes")),
            stamp: Stamp {
                size: u64_at(12),
                mtime_ns: i128::from_be_bytes(b[20..36].try_into().expect("16 bytes")),
                inode: u64_at(36),
            },
            deleted: b[44] != 0,
            sets,
        })
    }
}

/// What happened to a path at one datestamp, in the change log ([`crate::OaiPmh::changes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChangeKind {
    /// A file the index had no live record of: new, or back after a deletion.
    Created,
    /// A new version of a file with a live record (size, mtime or inode changed).
    Updated,
    /// The file is gone.
    Deleted,
}

impl ChangeKind {
    fn byte(self) -> u8 {
        match self {
            ChangeKind::Created => b'c',
            ChangeKind::Updated => b'u',
            ChangeKind::Deleted => b'd',
        }
    }

    fn from_byte(b: u8) -> Option<Self> {
        match b {
            b'c' => Some(ChangeKind::Created),
            b'u' => Some(ChangeKind::Updated),
            b'd' => Some(ChangeKind::Deleted),
            _ => None,
        }
    }
}

/// The key of `changes`: datestamp, then sequence number.
pub(super) fn change_key(d: Datestamp, seq: u64) -> [u8; DS + 8] {
    let mut k = [0u8; DS + 8];
    k[..DS].copy_from_slice(&ds_bytes(d));
    k[DS..].copy_from_slice(&seq.to_be_bytes());
    k
}

/// The value of `changes`: the kind, then the path.
pub(super) fn change_value(kind: ChangeKind, path: &str) -> Vec<u8> {
    let mut v = Vec::with_capacity(1 + path.len());
    v.push(kind.byte());
    v.extend_from_slice(path.as_bytes());
    v
}

/// The sequence number of a `changes` key.
pub(super) fn change_seq(k: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(k.get(DS..DS + 8)?.try_into().ok()?))
}

/// The sequence number of a `changes` key, and the kind and path of its value.
pub(super) fn decode_change(k: &[u8], v: &[u8]) -> Option<(u64, ChangeKind, String)> {
    let seq = change_seq(k)?;
    let kind = ChangeKind::from_byte(*v.first()?)?;
    let path = std::str::from_utf8(&v[1..]).ok()?.to_owned();
    Some((seq, kind, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datestamps_sort_as_bytes() {
        let times = [-86_400_i64 * 400, -1, 0, 1, 1_700_000_000, i64::MAX / 2];
        for w in times.windows(2) {
            let (a, b) = (Datestamp::from_unix(w[0]), Datestamp::from_unix(w[1]));
            assert!(ds_bytes(a) < ds_bytes(b), "{w:?}");
            assert_eq!(ds_from(&ds_bytes(a)), a);
        }
    }

    #[test]
    fn records_and_changes_round_trip() {
        let r = Record {
            datestamp: Datestamp::from_unix(-5),
            mime: 7,
            stamp: Stamp {
                size: 1 << 40,
                mtime_ns: -3,
                inode: 99,
            },
            deleted: true,
            sets: Membership {
                folder: Some(1),
                named: vec![std::sync::Arc::from("reports")],
            },
        };
        assert_eq!(Record::decode(&r.encode()), Some(r.clone()));
        assert_eq!(Record::decode(b"short"), None);
        let old_layout = &r.encode()[..RECORD];
        assert_eq!(
            Record::decode(old_layout).map(|o| o.sets),
            Some(Membership::default()),
            "a record stored before sets is in none"
        );
        let k = change_key(Datestamp::from_unix(10), 42);
        let v = change_value(ChangeKind::Updated, "a%20b/c.txt");
        assert_eq!(
            decode_change(&k, &v),
            Some((42, ChangeKind::Updated, "a%20b/c.txt".to_owned()))
        );
        assert_eq!(
            path_of_order_key(&order_key(Datestamp::from_unix(3), "x/y")),
            Some("x/y")
        );
    }
}

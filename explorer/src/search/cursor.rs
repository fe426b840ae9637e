//! Cursors: where a page of results ends, so that the next page is a search after it, at any
//! depth and in bounded memory. A cursor holds the last hit's sort key and address, the page it
//! leads to, and two fingerprints: of the search (query, filters, dates, order, the caller's
//! scope) and of the index state it was made on (each archive's segments and deletions). A
//! cursor given to another search, or after the index changed, is refused with what to do.

use std::fmt::Debug;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use tantivy::{DocAddress, Searcher};

use super::params::{SearchParams, Sort};
use super::scope::Scope;

/// The first byte of every cursor: its layout, so that a later one can be told apart.
const VERSION: u8 = 1;
/// Bytes of an encoded cursor.
const LEN: usize = 1 + 8 + 4 + 4 + 4 + 4 + 8 + 8;

/// The position after a page's last hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cursor {
    /// The last hit's sort key (score, or capture time in seconds, negated for oldest first).
    pub key: f64,
    /// The last hit's archive, as its place among the archives searched.
    pub part: u32,
    /// The last hit's address in that archive's index.
    pub addr: DocAddress,
    /// The page the cursor leads to, from 0.
    pub page: u32,
    /// The fingerprint of the search ([`search_print`]).
    pub search: u64,
    /// The fingerprint of the index state searched (each archive's segments and deletions).
    pub state: u64,
}

/// Why a cursor cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    /// Not a cursor this server made.
    #[error("after={0:?} is not a cursor: pass the `next` of an answer as it is")]
    Malformed(String),
    /// A cursor of another search (query, filters, dates, order or key).
    #[error("this cursor belongs to another search; start again without after=")]
    OtherSearch,
    /// The index changed since the cursor was made.
    #[error("the index changed since this cursor was made; start again without after=")]
    Stale,
}

impl Cursor {
    /// The cursor as an opaque URL-safe token.
    pub fn encode(&self) -> String {
        let mut b = Vec::with_capacity(LEN);
        b.push(VERSION);
        b.extend(self.key.to_bits().to_be_bytes());
        b.extend(self.part.to_be_bytes());
        b.extend(self.addr.segment_ord.to_be_bytes());
        b.extend(self.addr.doc_id.to_be_bytes());
        b.extend(self.page.to_be_bytes());
        b.extend(self.search.to_be_bytes());
        b.extend(self.state.to_be_bytes());
        URL_SAFE_NO_PAD.encode(b)
    }

    /// The cursor of a token made by [`Cursor::encode`].
    pub fn decode(token: &str) -> Result<Cursor, CursorError> {
        let bad = || CursorError::Malformed(token.to_owned());
        let b = URL_SAFE_NO_PAD.decode(token).map_err(|_| bad())?;
        if b.len() != LEN || b[0] != VERSION {
            return Err(bad());
        }
        let u32_at = |i: usize| u32::from_be_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_be_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        Ok(Cursor {
            key: f64::from_bits(u64_at(1)),
            part: u32_at(9),
            addr: DocAddress::new(u32_at(13), u32_at(17)),
            page: u32_at(21),
            search: u64_at(25),
            state: u64_at(33),
        })
    }

    /// Whether the cursor may continue the search `search` on the index state `state`.
    pub fn check(&self, search: u64, state: u64) -> Result<(), CursorError> {
        if self.search != search {
            Err(CursorError::OtherSearch)
        } else if self.state != state {
            Err(CursorError::Stale)
        } else {
            Ok(())
        }
    }

    /// The bound of the hits of archive `part` that come after the cursor.
    pub fn bound_for(&self, part: u32) -> After {
        let from = match part.cmp(&self.part) {
            // Hits of an earlier archive with the same key came before the cursor.
            std::cmp::Ordering::Less => Some(DocAddress::new(u32::MAX, u32::MAX)),
            std::cmp::Ordering::Equal => Some(self.addr),
            std::cmp::Ordering::Greater => None,
        };
        After {
            key: self.key,
            from,
        }
    }
}

/// Which hits of one archive come after a cursor: a lower key, or the same key and a later
/// address than `from` (any address when `None`). Results are ordered by key (best first), then
/// archive, then address, so this is the exact rest of the order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct After {
    /// The cursor's key.
    pub key: f64,
    /// Among equal keys, the address after which hits come.
    pub from: Option<DocAddress>,
}

impl After {
    /// Whether the hit `(key, addr)` comes after the cursor.
    pub fn admits(&self, key: f64, addr: DocAddress) -> bool {
        match key.total_cmp(&self.key) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => self.from.is_none_or(|f| addr > f),
        }
    }
}

/// The fingerprint of a search: what selects and orders its hits, and the caller's scope (a
/// cursor never carries one key's search to another's scope).
pub fn search_print(params: &SearchParams, scope: &Scope) -> u64 {
    let mut h = Fnv::default();
    h.text(&params.q);
    for (facet, value) in &params.filters {
        h.text(facet.name());
        h.text(value);
    }
    for t in [params.from, params.until] {
        h.text(&t.map_or(String::new(), |t| t.unix_timestamp().to_string()));
    }
    h.text(match params.sort {
        Sort::Relevance => "relevance",
        Sort::Newest => "newest",
        Sort::Oldest => "oldest",
        Sort::Sample => "sample",
    });
    for f in &scope.0 {
        h.text(&f.to_string());
    }
    if params.parts_only {
        h.text("parts");
    }
    h.0
}

/// The fingerprint of the index state of the archives searched (by name): the segments of each
/// searcher and their deletions. A commit, a merge or a rebuild changes it.
pub(super) fn state_print<'a>(parts: impl IntoIterator<Item = (&'a str, &'a Searcher)>) -> u64 {
    let mut h = Fnv::default();
    for (name, searcher) in parts {
        h.text(name);
        for s in searcher.segment_readers() {
            h.text(&s.segment_id().uuid_string());
            h.text(&s.num_deleted_docs().to_string());
        }
    }
    h.0
}

/// FNV-1a, 64 bits: a fingerprint that stays the same across builds and runs (std's hasher
/// does not promise that), so a cursor outlives a restart on the same index.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Adds `s` and a separator, so that `("ab", "c")` and `("a", "bc")` differ.
    fn text(&mut self, s: &str) {
        for b in s.bytes().chain([0xff]) {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor() -> Cursor {
        Cursor {
            key: -1_700_000_000.0,
            part: 1,
            addr: DocAddress::new(2, 77),
            page: 3,
            search: 42,
            state: 7,
        }
    }

    #[test]
    fn a_cursor_round_trips_and_a_bad_token_is_malformed() {
        let c = cursor();
        assert_eq!(Cursor::decode(&c.encode()), Ok(c));
        for bad in ["", "abc", "!!!!", &c.encode()[1..]] {
            assert!(
                matches!(Cursor::decode(bad), Err(CursorError::Malformed(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn another_search_or_index_state_is_refused() {
        let c = cursor();
        assert_eq!(c.check(42, 7), Ok(()));
        assert_eq!(c.check(43, 7), Err(CursorError::OtherSearch));
        assert_eq!(c.check(42, 8), Err(CursorError::Stale));
    }

    #[test]
    fn hits_after_the_cursor_follow_key_then_archive_then_address() {
        let c = cursor();
        let at = DocAddress::new;
        let (before, same, later) = (c.bound_for(0), c.bound_for(1), c.bound_for(2));
        assert!(before.admits(c.key - 1.0, at(0, 0)));
        assert!(!before.admits(c.key, at(9, 9)), "an earlier archive's tie");
        assert!(!same.admits(c.key, at(2, 77)), "the cursor's own hit");
        assert!(same.admits(c.key, at(2, 78)) && !same.admits(c.key, at(1, 99)));
        assert!(later.admits(c.key, at(0, 0)), "a later archive's tie");
        assert!(!later.admits(c.key + 1.0, at(0, 0)));
    }

    #[test]
    fn the_search_print_changes_with_the_query_and_the_scope() {
        let p = SearchParams::default();
        let q = SearchParams {
            q: "sunset".into(),
            ..p.clone()
        };
        let all = Scope::all();
        let some = Scope(vec!["host:a.org".parse().unwrap()]);
        assert_eq!(search_print(&p, &all), search_print(&p.clone(), &all));
        assert_ne!(search_print(&p, &all), search_print(&q, &all));
        assert_ne!(search_print(&p, &all), search_print(&p, &some));
        let paged = SearchParams {
            page: 4,
            size: 50,
            ..p.clone()
        };
        assert_eq!(
            search_print(&p, &all),
            search_print(&paged, &all),
            "not the page"
        );
    }
}

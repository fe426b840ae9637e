//! Finding a revisit's original: by `WARC-Refers-To`, by `WARC-Refers-To-Target-URI` and
//! `-Date`, by payload digest (whatever the URL: URL-agnostic revisits), and for a
//! server-not-modified revisit the previous capture of its URL. Captures of this run are
//! remembered; earlier ones are looked up in the committed index.
//!
//! A crawl has an original for most of its records, so what is remembered of each is small: its
//! names as 16-byte digests, and where its payload is as its file's number and three integers
//! (about 150 bytes an original, where the names and locations themselves took about a kilobyte).

use std::collections::HashMap;

use modoai_archive::any::{Framing, Location, Source};
use modoai_archive::archive::names_key;
use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{Searcher, TantivyDocument, Term};

use super::schema::Fields;
use crate::capture::{Planned, RevisitOf};

/// Captures looked at per URL in the index for a server-not-modified revisit.
const PER_URL: usize = 1000;

/// A name (a record id, a digest, a URL with or without a time) as a 16-byte digest
/// ([`names_key`]).
type Key = [u8; 16];

/// Kinds of name, so that a record id and a URL with the same text are different keys.
#[derive(Clone, Copy)]
enum Name {
    Id,
    Sha1,
    Url,
}

impl Name {
    fn key(self, text: &str, time: Option<i64>) -> Key {
        let time = time.map(i64::to_le_bytes);
        names_key(&[
            &[self as u8],
            text.as_bytes(),
            time.as_ref().map_or(&[], |t| t),
        ])
    }
}

/// Where an original's payload is: its file as a number in [`Resolver::sources`].
#[derive(Clone, Copy)]
struct At {
    source: u32,
    offset: u64,
    length: u64,
    framing: Framing,
}

/// The originals known so far.
pub(crate) struct Resolver {
    index: Option<(Searcher, Fields)>,
    /// The files of the originals, each once, and their numbers.
    sources: Vec<Source>,
    numbers: HashMap<Source, u32>,
    by_id: HashMap<Key, At>,
    by_sha1: HashMap<Key, At>,
    by_url_time: HashMap<Key, At>,
    /// Each URL's captures with a payload, as (time, where), in the order read.
    by_url: HashMap<Key, Vec<(i64, At)>>,
}

impl Resolver {
    /// A resolver that looks in `index` (the committed index) for what this run has not seen.
    pub(crate) fn new(index: Option<(Searcher, Fields)>) -> Resolver {
        Resolver {
            index,
            sources: Vec::new(),
            numbers: HashMap::new(),
            by_id: HashMap::new(),
            by_sha1: HashMap::new(),
            by_url_time: HashMap::new(),
            by_url: HashMap::new(),
        }
    }

    /// Remembers `planned` as an original, if it has a payload.
    pub(crate) fn remember(&mut self, planned: &Planned) {
        let Some(foreign) = &planned.foreign else {
            return;
        };
        let Some(location) = &foreign.payload else {
            return;
        };
        let at = self.at(location);
        let time = planned.time.unix_timestamp();
        if let Some(id) = &foreign.record_id {
            self.by_id.insert(Name::Id.key(id, None), at);
        }
        if !planned.sha1.is_empty() {
            (self.by_sha1)
                .entry(Name::Sha1.key(&planned.sha1, None))
                .or_insert(at);
        }
        let url = &planned.url;
        (self.by_url_time).insert(Name::Url.key(url, Some(time)), at);
        let list = self.by_url.entry(Name::Url.key(url, None)).or_default();
        list.push((time, at));
    }

    /// The original's payload location for the revisit `planned`, which `of` describes.
    pub(crate) fn resolve(&self, planned: &Planned, of: &RevisitOf) -> Option<Location> {
        let time = planned.time.unix_timestamp();
        let sha1 = of
            .sha1
            .as_deref()
            .map(|s| s.strip_prefix("sha1:").unwrap_or(s));
        let found = of
            .record_id
            .as_ref()
            .and_then(|id| self.by_id.get(&Name::Id.key(id, None)))
            .or_else(|| {
                let t = of.time?;
                self.by_url_time.get(&Name::Url.key(&of.url, Some(t)))
            })
            .or_else(|| self.by_sha1.get(&Name::Sha1.key(sha1?, None)))
            .copied()
            .or_else(|| {
                of.not_modified
                    .then(|| self.last_before(&of.url, time))
                    .flatten()
            });
        found
            .map(|at| self.location(at))
            .or_else(|| self.in_index(of, sha1, time))
    }

    /// The last capture of `url` read before `time`.
    fn last_before(&self, url: &str, time: i64) -> Option<At> {
        let list = self.by_url.get(&Name::Url.key(url, None))?;
        let before = list.iter().filter(|(t, _)| *t <= time);
        before.max_by_key(|(t, _)| *t).map(|(_, at)| *at)
    }

    /// `location` as kept: its file numbered once.
    fn at(&mut self, location: &Location) -> At {
        let source = match self.numbers.get(&location.source) {
            Some(&n) => n,
            None => {
                let n = u32::try_from(self.sources.len()).expect("fewer than 2^32 files");
                self.sources.push(location.source.clone());
                self.numbers.insert(location.source.clone(), n);
                n
            }
        };
        At {
            source,
            offset: location.offset,
            length: location.length,
            framing: location.framing,
        }
    }

    fn location(&self, at: At) -> Location {
        Location {
            source: self.sources[at.source as usize].clone(),
            offset: at.offset,
            length: at.length,
            framing: at.framing,
        }
    }

    /// The same lookups in the committed index.
    fn in_index(&self, of: &RevisitOf, sha1: Option<&str>, time: i64) -> Option<Location> {
        let (searcher, f) = self.index.as_ref()?;
        let docs = |field, value: &str, n| -> Vec<TantivyDocument> {
            let query = TermQuery::new(
                Term::from_field_text(field, value),
                IndexRecordOption::Basic,
            );
            let top = searcher
                .search(&query, &TopDocs::with_limit(n).order_by_score())
                .unwrap_or_default();
            top.into_iter()
                .filter_map(|(_, a)| searcher.doc(a).ok())
                .collect()
        };
        let payload = |d: &TantivyDocument| -> Option<Location> {
            let json = d.get_first(f.payload_at)?.as_str()?;
            serde_json::from_str(json).ok()
        };
        let doc_time = |d: &TantivyDocument| {
            d.get_first(f.time)
                .and_then(|v| v.as_datetime())
                .map_or(i64::MIN, |t| t.into_timestamp_secs())
        };
        if let Some(id) = &of.record_id {
            if let Some(at) = docs(f.record_id, id, 1).iter().find_map(payload) {
                return Some(at);
            }
        }
        let of_url = docs(f.url, &of.url, PER_URL);
        if let Some(t) = of.time {
            let at = of_url.iter().filter(|d| doc_time(d) == t).find_map(payload);
            if at.is_some() {
                return at;
            }
        }
        if let Some(sha1) = sha1 {
            if let Some(at) = docs(f.sha1, sha1, 16).iter().find_map(payload) {
                return Some(at);
            }
        }
        if !of.not_modified {
            return None;
        }
        let mut before: Vec<_> = of_url.iter().filter(|d| doc_time(d) <= time).collect();
        before.sort_by_key(|d| doc_time(d));
        before.iter().rev().find_map(|d| payload(d))
    }
}

#[cfg(test)]
mod tests {
    use super::Name;

    #[test]
    fn names_that_run_together_alike_or_share_a_text_are_different_keys() {
        assert_ne!(
            Name::Url.key("x", Some(0)),
            Name::Url.key("x\0\0\0\0\0\0\0\0", None)
        );
        assert_ne!(Name::Id.key("x", None), Name::Url.key("x", None));
        assert_ne!(Name::Url.key("x", None), Name::Url.key("x", Some(0)));
        assert_eq!(Name::Sha1.key("x", None), Name::Sha1.key("x", None));
    }
}

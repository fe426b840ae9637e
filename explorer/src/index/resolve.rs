//! Finding a revisit's original: by `WARC-Refers-To`, by `WARC-Refers-To-Target-URI` and
//! `-Date`, by payload digest (whatever the URL: URL-agnostic revisits), and for a
//! server-not-modified revisit the previous capture of its URL. Captures of this run are
//! remembered; earlier ones are looked up in the committed index.

use std::collections::HashMap;

use modoai_archive::any::Location;
use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{Searcher, TantivyDocument, Term};

use super::schema::Fields;
use crate::capture::{Planned, RevisitOf};

/// Captures looked at per URL in the index for a server-not-modified revisit.
const PER_URL: usize = 1000;

/// The originals known so far.
pub(crate) struct Resolver {
    index: Option<(Searcher, Fields)>,
    by_id: HashMap<String, Location>,
    by_sha1: HashMap<String, Location>,
    by_url_time: HashMap<(String, i64), Location>,
    /// Each URL's captures with a payload, as (time, location), in the order read.
    by_url: HashMap<String, Vec<(i64, Location)>>,
}

impl Resolver {
    /// A resolver that looks in `index` (the committed index) for what this run has not seen.
    pub(crate) fn new(index: Option<(Searcher, Fields)>) -> Resolver {
        Resolver {
            index,
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
        let Some(at) = &foreign.payload else { return };
        let time = planned.time.unix_timestamp();
        if let Some(id) = &foreign.record_id {
            self.by_id.insert(id.clone(), at.clone());
        }
        if !planned.sha1.is_empty() {
            (self.by_sha1)
                .entry(planned.sha1.clone())
                .or_insert_with(|| at.clone());
        }
        let key = (planned.url.clone(), time);
        self.by_url_time.insert(key, at.clone());
        let list = self.by_url.entry(planned.url.clone()).or_default();
        list.push((time, at.clone()));
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
            .and_then(|id| self.by_id.get(id).cloned())
            .or_else(|| {
                let t = of.time?;
                self.by_url_time.get(&(of.url.clone(), t)).cloned()
            })
            .or_else(|| self.by_sha1.get(sha1?).cloned())
            .or_else(|| {
                of.not_modified
                    .then(|| self.last_before(&of.url, time))
                    .flatten()
            });
        found.or_else(|| self.in_index(of, sha1, time))
    }

    /// The last capture of `url` read before `time`.
    fn last_before(&self, url: &str, time: i64) -> Option<Location> {
        let list = self.by_url.get(url)?;
        let before = list.iter().filter(|(t, _)| *t <= time);
        before.max_by_key(|(t, _)| *t).map(|(_, at)| at.clone())
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

//! The answers of the search API.

use std::collections::BTreeMap;

use serde::Serialize;

use super::item::Item;

/// A page of search results, in PrEV's shape (`total`, `count`, `page`, `totalpage`, `data`)
/// with the facet counts and the partial-result flag. Its captures are [`Item`]s; an answer may
/// show each as something else ([`Page::map`]).
#[derive(Clone, Debug, Serialize)]
pub struct Page<T = Item> {
    /// Matching captures (counted until the time budget ran out, when `partial`).
    pub total: u64,
    /// Items in `data`.
    pub count: usize,
    /// This page, from 1.
    pub page: usize,
    /// Pages in all.
    pub totalpage: u64,
    /// Whether the time budget cut the search short: counts and results are then a part.
    pub partial: bool,
    /// Milliseconds the search took.
    pub took_ms: u64,
    /// The captures of this page.
    pub data: Vec<T>,
    /// Counts per facet: calendar facets in time order, the others most frequent first.
    pub facets: BTreeMap<String, Vec<FacetValue>>,
    /// The cursor of the following page, to pass as `after=`; absent on the last page (and on
    /// a partial or grouped one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

impl<T> Page<T> {
    /// The same page with each capture shown as `show` makes it.
    pub fn map<U>(self, show: impl FnMut(T) -> U) -> Page<U> {
        Page {
            total: self.total,
            count: self.count,
            page: self.page,
            totalpage: self.totalpage,
            partial: self.partial,
            took_ms: self.took_ms,
            data: self.data.into_iter().map(show).collect(),
            facets: self.facets,
            next: self.next,
        }
    }
}

/// One value of a facet and its count.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct FacetValue {
    /// The value.
    pub value: String,
    /// Matching captures with it.
    pub count: u64,
    /// What the value names, for people: the format name of a PUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The most frequent words of the matching captures (the word cloud).
#[derive(Clone, Debug, Serialize)]
pub struct Terms {
    /// Matching captures.
    pub total: u64,
    /// Captures the words were counted in (the best matches, at most 1,000).
    pub sampled: u64,
    /// Whether the time budget cut the search short.
    pub partial: bool,
    /// Words, most frequent first.
    pub terms: Vec<Word>,
}

/// A word and the number of sampled captures it is among the frequent words of.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Word {
    /// The word.
    pub term: String,
    /// Captures.
    pub count: u64,
}

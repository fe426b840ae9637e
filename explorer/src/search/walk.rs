//! Walking every hit of a search, a page at a time, for exports: the captures (with where their
//! records are) in the search's order, without facets, snippets or a time budget, each page
//! after the cursor of the one before. Memory is one page, whatever the depth.

use std::time::{Duration, Instant};

use tantivy::{DocAddress, TantivyDocument};

use super::cursor::{search_print, Cursor};
use super::item::{Item, Stored};
use super::library::{Library, SearchError};
use super::params::SearchParams;
use super::scope::Scope;

/// A walk has no time budget: it reads every hit; a day is only a bound against a stuck index.
const NO_BUDGET: Duration = Duration::from_secs(24 * 3600);

/// One page of a walk.
#[derive(Clone, Debug, Default)]
pub struct Walked {
    /// Its captures, in the search's order, each with where its records are.
    pub captures: Vec<(Item, Stored)>,
    /// Each capture's archive: its place among [`Library::archives`].
    pub places: Vec<usize>,
    /// The cursor after the last capture; `None` when this is the last page.
    pub next: Option<Cursor>,
    /// Matching captures in all.
    pub total: u64,
    /// The fingerprints of the search and of the index state it walks: the same two name the
    /// same result set.
    pub fingerprint: (u64, u64),
}

impl Library {
    /// The `size` captures of `params` (its query, filters, dates and order; its page, size and
    /// facets are not used) after `after` (from the first without), within `scope`. A cursor of
    /// another search or index state is refused as in [`Library::search`].
    pub fn walk(
        &self,
        params: &SearchParams,
        scope: &Scope,
        after: Option<Cursor>,
        size: usize,
    ) -> Result<Walked, SearchError> {
        let params = SearchParams {
            after,
            page: 0,
            group_sha1: false,
            facets: Vec::new(),
            ..params.clone()
        };
        let deadline = Instant::now() + NO_BUDGET;
        let (parts, state) = self.run_until(&params, scope, size, Vec::new(), deadline)?;
        let mut hits: Vec<(f64, usize, DocAddress)> = Vec::new();
        let mut past = 0;
        for (p, part) in parts.iter().enumerate() {
            past += part.gathered.past;
            hits.extend(part.gathered.hits.iter().map(|(k, a)| (*k, p, *a)));
        }
        // Stable: equal keys stay in archive order, then address order.
        hits.sort_by(|a, b| b.0.total_cmp(&a.0));
        hits.truncate(size);
        let mut captures = Vec::with_capacity(hits.len());
        let mut places = Vec::with_capacity(hits.len());
        for (_, p, addr) in &hits {
            let part = &parts[*p];
            let doc: TantivyDocument = part.searcher.doc(*addr)?;
            captures.push((Item::of(&doc, &part.fields), Stored::of(&doc, &part.fields)));
            places.push(part.archive as usize);
        }
        let print = search_print(&params, scope);
        let next = match hits.last() {
            Some(&(key, p, addr)) if past > hits.len() as u64 => Some(Cursor {
                key,
                part: parts[p].archive,
                addr,
                page: after.map_or(1, |c| c.page + 1),
                search: print,
                state,
            }),
            _ => None,
        };
        Ok(Walked {
            captures,
            places,
            next,
            total: parts.iter().map(|p| p.gathered.count).sum(),
            fingerprint: (print, state),
        })
    }
}

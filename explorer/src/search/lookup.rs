//! Looking captures up by an exact value: the captures of a URL, one capture by id, the
//! captures of the same bytes; always within the caller's scope.

use std::time::Instant;

use tantivy::collector::Count;
use tantivy::query::{BooleanQuery, Occur, Query};
use tantivy::TantivyDocument;

use super::collect::Gather;
use super::facet::Facet;
use super::item::{Item, Stored};
use super::library::{Library, SearchError};
use super::params::Sort;
use super::query::{scope_query, term};
use super::scope::Scope;
use crate::index::Fields;

/// Captures of the same bytes listed at most (a capture's page and its API answer).
pub const SAME_BYTES: usize = 100;

impl Library {
    /// Captures of one exact value of a facet-like field (`url`, `id`, `sha1`), oldest first.
    fn exact(
        &self,
        field: fn(&Fields) -> tantivy::schema::Field,
        value: &str,
        scope: &Scope,
        limit: usize,
    ) -> Result<Vec<(usize, Item, Stored)>, SearchError> {
        let mut out = Vec::new();
        for (i, a) in self.archives.iter().enumerate() {
            if !scope.admits(Facet::Archive, &a.name) {
                continue;
            }
            let Some(o) = a.opened() else { continue };
            let fields = o.index.fields();
            let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(
                Occur::Must,
                Box::new(tantivy::query::TermQuery::new(
                    tantivy::Term::from_field_text(field(&fields), value),
                    tantivy::schema::IndexRecordOption::Basic,
                )),
            )];
            if let Some(s) = scope_query(&fields, scope).map_err(SearchError::BadRequest)? {
                clauses.push((Occur::Must, s));
            }
            let searcher = o.reader.searcher();
            let gather = Gather {
                top: limit,
                sort: Sort::Oldest,
                facets: Vec::new(),
                deadline: Instant::now() + self.budget,
                after: None,
            };
            let found = searcher.search(&BooleanQuery::new(clauses), &gather)?;
            for (_, addr) in found.hits {
                let doc: TantivyDocument = searcher.doc(addr)?;
                out.push((i, Item::of(&doc, &fields), Stored::of(&doc, &fields)));
            }
        }
        out.sort_by(|a, b| a.1.time.cmp(&b.1.time));
        out.truncate(limit);
        Ok(out)
    }

    /// Every capture of `url` in scope (at most `limit`), oldest first.
    pub fn captures(
        &self,
        url: &str,
        scope: &Scope,
        limit: usize,
    ) -> Result<Vec<Item>, SearchError> {
        Ok(self
            .exact(|f| f.url, url, scope, limit)?
            .into_iter()
            .map(|c| c.1)
            .collect())
    }

    /// Every capture of `url` in scope (at most `limit`) with its archive and record, oldest
    /// first.
    pub fn captures_at(
        &self,
        url: &str,
        scope: &Scope,
        limit: usize,
    ) -> Result<Vec<(usize, Item, Stored)>, SearchError> {
        self.exact(|f| f.url, url, scope, limit)
    }

    /// One capture by id, in scope: its archive, item and record locations.
    pub fn capture(
        &self,
        id: &str,
        scope: &Scope,
    ) -> Result<Option<(usize, Item, Stored)>, SearchError> {
        Ok(self.exact(|f| f.id, id, scope, 1)?.into_iter().next())
    }

    /// Captures of the same bytes in scope (at most `limit`), oldest first.
    pub fn same_bytes(
        &self,
        sha1: &str,
        scope: &Scope,
        limit: usize,
    ) -> Result<Vec<Item>, SearchError> {
        Ok(self
            .exact(|f| f.sha1, sha1, scope, limit)?
            .into_iter()
            .map(|c| c.1)
            .collect())
    }

    pub(super) fn count_sha1(&self, sha1: &str, scope: &Scope) -> Result<u64, SearchError> {
        let mut n = 0;
        for a in &self.archives {
            let Some(o) = a.opened().filter(|_| scope.admits(Facet::Archive, &a.name)) else {
                continue;
            };
            let fields = o.index.fields();
            let mut clauses = vec![(Occur::Must, term(&fields, Facet::Sha1, sha1))];
            if let Some(s) = scope_query(&fields, scope).map_err(SearchError::BadRequest)? {
                clauses.push((Occur::Must, s));
            }
            n += o
                .reader
                .searcher()
                .search(&BooleanQuery::new(clauses), &Count)? as u64;
        }
        Ok(n)
    }
}

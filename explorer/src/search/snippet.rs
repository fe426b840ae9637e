//! The highlighted excerpt of a hit.

use tantivy::query::Query;
use tantivy::snippet::SnippetGenerator;
use tantivy::{Searcher, TantivyDocument};

use super::item::Stored;
use crate::index::Fields;

/// The snippet generators of an archive: the stemmed words of the query, and its
/// accent-folded words of any language (`zurich` marks "Zürich").
pub(super) struct Snippets {
    stemmed: Option<SnippetGenerator>,
    folded: Option<SnippetGenerator>,
}

impl Snippets {
    pub(super) fn new(searcher: &Searcher, query: &dyn Query, fields: &Fields) -> Snippets {
        let make = |field| SnippetGenerator::create(searcher, query, field).ok();
        Snippets {
            stemmed: make(fields.text),
            folded: make(fields.words),
        }
    }

    /// The highlighted excerpt of a hit: where the stemmed words mark nothing, the folded ones.
    pub(super) fn of(&self, fields: &Fields, doc: &TantivyDocument) -> Option<String> {
        let stored = Stored::of(doc, fields);
        let mut first = None;
        for generator in [&self.stemmed, &self.folded].into_iter().flatten() {
            let s = generator.snippet(&stored.excerpt);
            if !s.highlighted().is_empty() {
                return Some(s.to_html());
            }
            first = first.or((!s.is_empty()).then(|| s.to_html()));
        }
        first
    }
}

//! Names beside codes: the PRONOM format name of each PUID of the facet, as the identification
//! tool of one capture with that PUID gave it (Siegfried's `format`, FIDO's name column).

use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{Searcher, TantivyDocument, Term};

use super::page::FacetValue;
use crate::index::Fields;

/// Gives each PUID of `values` the format name stored with a capture of it, from the first of
/// `archives` that has one; a PUID no capture names keeps none.
pub(super) fn name_puids(archives: &[(&Searcher, &Fields)], values: &mut [FacetValue]) {
    for v in values {
        v.name = archives
            .iter()
            .find_map(|(searcher, fields)| format_name(searcher, fields, &v.value));
    }
}

fn format_name(searcher: &Searcher, fields: &Fields, puid: &str) -> Option<String> {
    let term = Term::from_field_text(fields.puid, puid);
    let query = TermQuery::new(term, IndexRecordOption::Basic);
    let top = searcher
        .search(&query, &TopDocs::with_limit(8).order_by_score())
        .ok()?;
    top.into_iter().find_map(|(_, address)| {
        let doc: TantivyDocument = searcher.doc(address).ok()?;
        let name = doc.get_first(fields.format)?.as_str()?.trim().to_owned();
        (!name.is_empty()).then_some(name)
    })
}

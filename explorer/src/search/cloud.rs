//! The word cloud of a search: the keywords of an even sample of its hits, counted from the
//! `keyword` column.

use std::collections::{BTreeMap, HashMap};

use tantivy::{DocAddress, DocId, Searcher};

use super::library::{Library, SearchError};
use super::page::{Terms, Word};
use super::params::{SearchParams, Sort};
use super::scope::Scope;

/// Captures whose words make a word cloud.
const TERMS_SAMPLE: usize = 1000;

impl Library {
    /// The most frequent words of the matches: of all of them, or of an even sample of
    /// 1,000 when there are more, whatever the order `params` asks the results in.
    pub fn terms(
        &self,
        params: &SearchParams,
        scope: &Scope,
        size: usize,
    ) -> Result<Terms, SearchError> {
        let params = SearchParams {
            sort: Sort::Sample,
            ..params.clone()
        };
        let (parts, _) = self.run(&params, scope, TERMS_SAMPLE, Vec::new())?;
        let mut hits: Vec<(f64, usize, tantivy::DocAddress)> = Vec::new();
        let (mut total, mut partial) = (0, false);
        for (p, part) in parts.iter().enumerate() {
            total += part.gathered.count;
            partial |= part.gathered.partial;
            hits.extend(part.gathered.hits.iter().map(|(k, a)| (*k, p, *a)));
        }
        hits.sort_by(|a, b| b.0.total_cmp(&a.0));
        hits.truncate(TERMS_SAMPLE);
        let searchers: Vec<&Searcher> = parts.iter().map(|p| &p.searcher).collect();
        let sample: Vec<(usize, tantivy::DocAddress)> =
            hits.iter().map(|(_, p, a)| (*p, *a)).collect();
        let counts = keyword_counts(&searchers, &sample)?;
        let mut terms: Vec<Word> = counts
            .into_iter()
            .map(|(term, count)| Word { term, count })
            .collect();
        terms.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.term.cmp(&b.term)));
        terms.truncate(size);
        Ok(Terms {
            total,
            sampled: hits.len() as u64,
            partial,
            terms,
        })
    }
}

/// How often each keyword occurs among `hits` (an index into `searchers`, and the address in
/// that searcher). Each segment's column is opened once and its ordinals are turned into words
/// in one walk of its dictionary, rather than a dictionary block decompressed per word.
pub(super) fn keyword_counts(
    searchers: &[&Searcher],
    hits: &[(usize, DocAddress)],
) -> tantivy::Result<HashMap<String, u64>> {
    let mut by_segment: BTreeMap<(usize, u32), Vec<DocId>> = BTreeMap::new();
    for (s, addr) in hits {
        by_segment
            .entry((*s, addr.segment_ord))
            .or_default()
            .push(addr.doc_id);
    }
    let mut counts: HashMap<String, u64> = HashMap::new();
    for ((s, segment), docs) in by_segment {
        let reader = searchers[s].segment_reader(segment);
        let Some(column) = reader.fast_fields().str("keyword")? else {
            continue;
        };
        let mut ords: BTreeMap<u64, u64> = BTreeMap::new();
        for doc in docs {
            for ord in column.term_ords(doc) {
                *ords.entry(ord).or_default() += 1;
            }
        }
        let sorted: Vec<u64> = ords.keys().copied().collect();
        let mut n = ords.values().copied();
        column
            .dictionary()
            .sorted_ords_to_term_cb(&sorted, |word| {
                let count = n.next().unwrap_or_default();
                *counts
                    .entry(String::from_utf8_lossy(word).into_owned())
                    .or_default() += count;
            })?;
    }
    Ok(counts)
}

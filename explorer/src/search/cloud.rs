//! The counts of a word cloud: the keywords of a sample of hits, from the `keyword` column.

use std::collections::{BTreeMap, HashMap};

use tantivy::{DocAddress, DocId, Searcher};

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

//! The captures a search finds, as a set to test capture ids against: one bit per document of
//! each segment, so the set takes an eighth of a byte per capture of the index whatever the
//! size of the result. The CDXJ export walks each archive's sorted index and keeps the lines of
//! the set, which gives pywb's order without sorting the result.

use std::path::PathBuf;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, Searcher, SegmentOrdinal, SegmentReader, Term, TERMINATED};

use super::facet::Facet;
use super::library::{Library, SearchError};
use super::params::SearchParams;
use super::query::build;
use super::scope::Scope;

/// The captures of a search in one archive.
pub struct Members {
    /// The archive's folder.
    pub dir: PathBuf,
    searcher: Searcher,
    id: Field,
    /// Per segment (by ordinal), a bit per document.
    bits: Vec<Vec<u64>>,
    count: u64,
}

impl std::fmt::Debug for Members {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Members")
            .field("dir", &self.dir)
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
}

impl Members {
    /// Captures in the set.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Whether the capture `id` is in the set.
    pub fn contains(&self, id: &str) -> Result<bool, SearchError> {
        let term = Term::from_field_text(self.id, id);
        for (ord, segment) in self.searcher.segment_readers().iter().enumerate() {
            let index = segment.inverted_index(self.id)?;
            let postings = index
                .read_postings(&term, IndexRecordOption::Basic)
                .map_err(|e| SearchError::Unreadable(format!("the index: {e}")))?;
            let Some(mut postings) = postings else {
                continue;
            };
            let mut doc = postings.doc();
            while doc != TERMINATED {
                if is_set(&self.bits[ord], doc) {
                    return Ok(true);
                }
                doc = postings.advance();
            }
        }
        Ok(false)
    }
}

impl Library {
    /// The captures of `params` (its query, filters and dates) in each archive of `scope` that
    /// holds any.
    pub fn members(
        &self,
        params: &SearchParams,
        scope: &Scope,
    ) -> Result<Vec<Members>, SearchError> {
        let waiting = self.not_ready(scope);
        if !waiting.is_empty() {
            return Err(SearchError::NotReady(waiting));
        }
        let mut out = Vec::new();
        for a in self.archives() {
            if !scope.admits(Facet::Archive, &a.name) {
                continue;
            }
            let Some(o) = a.opened() else { continue };
            let fields = o.index.fields();
            let query = build(o.index.index(), &fields, params, scope)?;
            let searcher = o.reader.searcher();
            let mut fruits = searcher.search(&*query, &Bits)?;
            fruits.sort_by_key(|f| f.0);
            let count = fruits.iter().map(|f| f.2).sum();
            if count == 0 {
                // Nothing to copy: the archive's index is not even opened (a foreign
                // collection has none).
                continue;
            }
            if !a.collection.is_archive() {
                return Err(SearchError::BadRequest(format!(
                    "format=cdxj copies the lines of each modoai archive's own CDXJ index; {count} \
                     captures of this search are in the collection {:?}, read from WARC/ARC/WACZ \
                     files that have none: leave it out (archive:NAME filters), export csv, \
                     jsonl or corpus, or index its files with cdxj-indexer",
                    a.name
                )));
            }
            out.push(Members {
                dir: a.dir.clone(),
                count,
                bits: fruits.into_iter().map(|f| f.1).collect(),
                searcher,
                id: fields.id,
            });
        }
        Ok(out)
    }
}

fn is_set(bits: &[u64], doc: DocId) -> bool {
    bits.get(doc as usize / 64)
        .is_some_and(|w| w & (1 << (doc % 64)) != 0)
}

/// Collects the matches of each segment as bits: `(segment, bits, matches)`.
struct Bits;

struct SegmentBits {
    segment: SegmentOrdinal,
    bits: Vec<u64>,
    count: u64,
}

impl Collector for Bits {
    type Fruit = Vec<(SegmentOrdinal, Vec<u64>, u64)>;
    type Child = SegmentBits;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentBits> {
        Ok(SegmentBits {
            segment,
            bits: vec![0; (reader.max_doc() as usize).div_ceil(64)],
            count: 0,
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        Ok(fruits.into_iter().flatten().collect())
    }
}

impl SegmentCollector for SegmentBits {
    type Fruit = Vec<(SegmentOrdinal, Vec<u64>, u64)>;

    fn collect(&mut self, doc: DocId, _: Score) {
        self.bits[doc as usize / 64] |= 1 << (doc % 64);
        self.count += 1;
    }

    fn harvest(self) -> Self::Fruit {
        vec![(self.segment, self.bits, self.count)]
    }
}

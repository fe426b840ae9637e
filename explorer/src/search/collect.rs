//! One collector for everything a search page needs: the count, the top hits (by score or by
//! capture time), the facet counts, all under a time budget that cuts the collection short and
//! says so.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::time::Instant;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::{Column, StrColumn};
use tantivy::query::Weight;
use tantivy::{
    DateTime, DocAddress, DocId, DocSet, Score, SegmentOrdinal, SegmentReader, TERMINATED,
};

use super::cursor::After;
use super::facet::Facet;
use super::params::Sort;

/// Documents between two looks at the clock.
const CLOCK_EVERY: u32 = 1024;
/// Matches whose facet values are read together: a column reads a block of single values in
/// one call, much faster than one document at a time.
const BATCH: usize = 64;

/// What one search (of one index) gathers.
#[derive(Clone, Debug, Default)]
pub struct Gathered {
    /// Matching documents counted.
    pub count: u64,
    /// Of those, the documents after the cursor (all of them without one).
    pub past: u64,
    /// The best hits, best first: `(sort key, address)`.
    pub hits: Vec<(f64, DocAddress)>,
    /// Counts per facet and value.
    pub facets: HashMap<Facet, HashMap<String, u64>>,
    /// Whether the time budget cut the collection short.
    pub partial: bool,
}

impl Gathered {
    /// Adds another index's (or segment's) gathering; `top` hits are kept.
    pub fn merge(&mut self, other: Gathered, top: usize) {
        self.count += other.count;
        self.past += other.past;
        self.partial |= other.partial;
        self.hits.extend(other.hits);
        self.hits.sort_by(best_first);
        self.hits.truncate(top);
        for (facet, values) in other.facets {
            let mine = self.facets.entry(facet).or_default();
            for (v, n) in values {
                *mine.entry(v).or_default() += n;
            }
        }
    }
}

/// The collector.
#[derive(Clone, Debug)]
pub struct Gather {
    /// Hits kept.
    pub top: usize,
    /// Their order.
    pub sort: Sort,
    /// Facets counted.
    pub facets: Vec<Facet>,
    /// When to stop collecting.
    pub deadline: Instant,
    /// Only hits after this cursor bound are kept (and counted in `past`).
    pub after: Option<After>,
}

/// A hit in a segment's heap: the smallest key on top, so the heap keeps the largest.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Hit(f64, DocId);

/// Best first: the higher key, then (among equal keys, such as captures of the same second) the
/// earlier document, as the heap keeps them, so that pages of one search never overlap.
fn best_first(a: &(f64, DocAddress), b: &(f64, DocAddress)) -> Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
}

impl Eq for Hit {}

impl PartialOrd for Hit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Hit {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(self.1.cmp(&other.1))
    }
}

/// A document's place in the sample: a hash of its address (SplitMix64's finaliser), so the
/// `top` largest keys are an even draw from every match, the same at every search.
fn sample_key(segment: SegmentOrdinal, doc: DocId) -> f64 {
    let mut z = (u64::from(segment) << 32 | u64::from(doc)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as f64
}

/// One segment's collection.
pub struct GatherSegment {
    segment: SegmentOrdinal,
    top: usize,
    sort: Sort,
    time: Option<Column<DateTime>>,
    heap: BinaryHeap<Hit>,
    count: u64,
    past: u64,
    after: Option<After>,
    columns: Vec<FacetCounts>,
    /// Matches whose facet values are not counted yet.
    batch: Vec<DocId>,
    partial: bool,
}

impl Collector for Gather {
    type Fruit = Gathered;
    type Child = GatherSegment;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<GatherSegment> {
        let fast = reader.fast_fields();
        let time = match self.sort {
            Sort::Relevance | Sort::Sample => None,
            Sort::Newest | Sort::Oldest => Some(fast.date("time")?),
        };
        let mut columns = Vec::new();
        for f in &self.facets {
            columns.push(FacetCounts::new(*f, fast.str(f.name())?));
        }
        Ok(GatherSegment {
            segment,
            top: self.top,
            sort: self.sort,
            time,
            heap: BinaryHeap::with_capacity(self.top + 1),
            count: 0,
            past: 0,
            after: self.after,
            columns,
            batch: Vec::with_capacity(BATCH),
            partial: false,
        })
    }

    fn requires_scoring(&self) -> bool {
        self.sort == Sort::Relevance
    }

    fn merge_fruits(&self, fruits: Vec<Gathered>) -> tantivy::Result<Gathered> {
        let mut all = Gathered::default();
        for f in fruits {
            all.merge(f, self.top);
        }
        Ok(all)
    }

    /// Visits the matches one by one, looking at the clock every 1,024 of them: past the
    /// deadline, the rest of the segment (and later segments) are left out and the result is
    /// marked partial.
    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment: u32,
        reader: &SegmentReader,
    ) -> tantivy::Result<Gathered> {
        let mut child = self.for_segment(segment, reader)?;
        if Instant::now() >= self.deadline {
            child.partial = true;
            return Ok(child.harvest());
        }
        let mut scorer = weight.scorer(reader, 1.0)?;
        let alive = reader.alive_bitset();
        let scoring = self.requires_scoring();
        let mut seen = 0u32;
        let mut doc = scorer.doc();
        while doc != TERMINATED {
            if alive.is_none_or(|a| a.is_alive(doc)) {
                let score = if scoring { scorer.score() } else { 0.0 };
                child.collect(doc, score);
            }
            seen += 1;
            if seen.is_multiple_of(CLOCK_EVERY) && Instant::now() >= self.deadline {
                child.partial = true;
                break;
            }
            doc = scorer.advance();
        }
        Ok(child.harvest())
    }
}

impl SegmentCollector for GatherSegment {
    type Fruit = Gathered;

    fn collect(&mut self, doc: DocId, score: Score) {
        self.count += 1;
        if self.top == 0 && self.after.is_none() {
            self.past += 1;
        } else {
            let key = self.key(doc, score);
            let addr = DocAddress::new(self.segment, doc);
            if self.after.is_none_or(|a| a.admits(key, addr)) {
                self.past += 1;
                self.keep(key, doc);
            }
        }
        if !self.columns.is_empty() {
            self.batch.push(doc);
            if self.batch.len() == BATCH {
                self.count_batch();
            }
        }
    }

    fn harvest(mut self) -> Gathered {
        self.count_batch();
        let facets = self.columns.into_iter().map(FacetCounts::values).collect();
        let mut hits: Vec<(f64, DocAddress)> = self
            .heap
            .into_iter()
            .map(|h| (h.0, DocAddress::new(self.segment, h.1)))
            .collect();
        hits.sort_by(best_first);
        Gathered {
            count: self.count,
            past: self.past,
            hits,
            facets,
            partial: self.partial,
        }
    }
}

impl GatherSegment {
    /// The sort key of a match.
    fn key(&self, doc: DocId, score: Score) -> f64 {
        match (self.sort, &self.time) {
            (Sort::Sample, _) => sample_key(self.segment, doc),
            (Sort::Relevance, _) | (_, None) => f64::from(score),
            (Sort::Newest, Some(t)) => t
                .first(doc)
                .map_or(f64::MIN, |d| d.into_timestamp_secs() as f64),
            (Sort::Oldest, Some(t)) => t
                .first(doc)
                .map_or(f64::MIN, |d| -(d.into_timestamp_secs() as f64)),
        }
    }

    /// Keeps the hit if it is among the `top` best so far.
    fn keep(&mut self, key: f64, doc: DocId) {
        if self.top == 0 {
            return;
        }
        if self.heap.len() < self.top {
            self.heap.push(Hit(key, doc));
        } else if self.heap.peek().is_some_and(|min| key > min.0) {
            self.heap.pop();
            self.heap.push(Hit(key, doc));
        }
    }

    /// Counts the facet values of the batched matches.
    fn count_batch(&mut self) {
        for c in &mut self.columns {
            c.count(&self.batch);
        }
        self.batch.clear();
    }
}

/// One facet's counts in one segment, by term ordinal.
struct FacetCounts {
    facet: Facet,
    column: Option<StrColumn>,
    counts: Vec<u32>,
    /// Reused buffer of single values read in a block.
    firsts: Vec<Option<u64>>,
}

impl FacetCounts {
    fn new(facet: Facet, column: Option<StrColumn>) -> Self {
        let counts = vec![0; column.as_ref().map_or(0, |c| c.num_terms())];
        FacetCounts {
            facet,
            column,
            counts,
            firsts: Vec::with_capacity(BATCH),
        }
    }

    /// Counts the values of `docs`: a column with at most one value per document is read in
    /// one block, a multi-valued one document by document.
    fn count(&mut self, docs: &[DocId]) {
        let Some(c) = &self.column else { return };
        let ords = c.ords();
        if ords.get_cardinality().is_multivalue() {
            for doc in docs {
                for ord in c.term_ords(*doc) {
                    self.counts[ord as usize] += 1;
                }
            }
            return;
        }
        self.firsts.clear();
        self.firsts.resize(docs.len(), None);
        ords.first_vals(docs, &mut self.firsts);
        for ord in self.firsts.iter().flatten() {
            self.counts[*ord as usize] += 1;
        }
    }

    /// The values counted, read from the dictionary in one pass (in term order).
    fn values(self) -> (Facet, HashMap<String, u64>) {
        let mut values = HashMap::new();
        if let Some(c) = &self.column {
            let seen: Vec<u64> = (0..self.counts.len() as u64)
                .filter(|o| self.counts[*o as usize] > 0)
                .collect();
            let mut n = seen.iter().map(|o| u64::from(self.counts[*o as usize]));
            let _ = c.dictionary().sorted_ords_to_term_cb(&seen, |term| {
                let count = n.next().unwrap_or_default();
                values.insert(String::from_utf8_lossy(term).into_owned(), count);
            });
        }
        (self.facet, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_keep_the_order_of_their_documents_so_pages_never_overlap() {
        let at = |s, d| DocAddress::new(s, d);
        let mut a = Gathered {
            count: 0,
            past: 0,
            hits: vec![(5.0, at(0, 7)), (9.0, at(0, 3)), (5.0, at(0, 2))],
            facets: HashMap::new(),
            partial: false,
        };
        let b = Gathered {
            count: 0,
            past: 0,
            hits: vec![(5.0, at(1, 0)), (5.0, at(0, 1))],
            facets: HashMap::new(),
            partial: false,
        };
        a.merge(b, 4);
        let order: Vec<DocAddress> = a.hits.iter().map(|h| h.1).collect();
        assert_eq!(order, [at(0, 3), at(0, 1), at(0, 2), at(0, 7)]);
    }
}

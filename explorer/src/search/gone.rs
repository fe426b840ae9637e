//! The deletions of a URL, and whether it is gone: its latest event a deletion.
//!
//! Captures and deletions are put in order by harvest time (14 digits), then by datestamp: a
//! file that came back is dated later than its deletion, so a capture and a deletion harvested
//! in the same second still fall in the order they happened.

use super::facet::Facet;
use super::item::Item;
use super::library::{Library, SearchError};
use super::scope::Scope;
use crate::index::{read_gone, Gone};

impl Library {
    /// The deletions of `url` in the archives of `scope` that have an index, in the order they
    /// happened.
    pub fn deletions(&self, url: &str, scope: &Scope) -> Result<Vec<Gone>, SearchError> {
        let mut out = Vec::new();
        for a in &self.archives {
            let Some(o) = a.opened().filter(|_| scope.admits(Facet::Archive, &a.name)) else {
                continue;
            };
            let covered = o
                .index
                .checkpoint()
                .map_err(|e| SearchError::Unreadable(e.to_string()))?
                .deletions
                .unwrap_or(0);
            let gone = read_gone(o.index.path(), covered)
                .map_err(|e| SearchError::Unreadable(e.to_string()))?;
            out.extend(gone.into_iter().filter(|g| g.url == url));
        }
        out.sort_by(|a, b| order(a).cmp(&order(b)));
        Ok(out)
    }
}

/// Where a deletion falls among captures.
fn order(g: &Gone) -> (&str, &str) {
    (&g.harvested, &g.datestamp)
}

/// Whether the deletion `g` came after the capture `c`.
pub fn after(g: &Gone, c: &Item) -> bool {
    order(g) > (c.timestamp.as_str(), c.datestamp.as_str())
}

/// The deletion that made the URL gone: the last of `deletions` when it came after the last of
/// `captures` (both in the order they happened).
pub fn gone_since<'a>(captures: &[Item], deletions: &'a [Gone]) -> Option<&'a Gone> {
    let last = deletions.last()?;
    captures
        .last()
        .is_none_or(|c| after(last, c))
        .then_some(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(timestamp: &str, datestamp: &str) -> Item {
        Item {
            timestamp: timestamp.into(),
            datestamp: datestamp.into(),
            ..Item::default()
        }
    }

    fn gone(harvested: &str, datestamp: &str) -> Gone {
        Gone {
            url: "http://s/a".into(),
            identifier: "http://s/a".into(),
            endpoint: "http://s/oai".into(),
            datestamp: datestamp.into(),
            harvested: harvested.into(),
        }
    }

    #[test]
    fn a_url_is_gone_until_a_capture_comes_after_its_deletion() {
        let first = capture("20260101000000", "2026-01-01T00:00:00Z");
        let deleted = [gone("20260101000000", "2026-01-01T00:00:05Z")];
        assert_eq!(
            gone_since(std::slice::from_ref(&first), &deleted),
            Some(&deleted[0]),
            "harvested in the same second, dated later"
        );
        let back = capture("20260101000000", "2026-01-01T00:00:09Z");
        assert_eq!(gone_since(&[first.clone(), back], &deleted), None);
        assert_eq!(gone_since(&[first], &[]), None);
    }
}

//! Originals a foreign collection's index did not find for its revisits. Each collection is
//! indexed on its own, so a revisit whose original another collection holds is found here, when
//! it is exported or replayed, by its payload digest among the captures the caller may see.

use super::{Facet, Item, Library, Scope, SearchError, SearchParams, Sort, Stored};
use crate::capture::CaptureKind;

/// Captures of a digest looked at for one that is not a revisit.
const LOOKED_AT: usize = 20;

/// Whether a capture is a foreign revisit without its original.
pub fn lacks_original((item, stored): &(Item, Stored)) -> bool {
    item.kind == CaptureKind::Revisit
        && stored.location.is_some()
        && stored.payload_at.is_none()
        && !item.sha1.is_empty()
}

/// Sets the original of each foreign revisit of `captures` that lacks one, when a collection
/// in `scope` holds a capture of the same payload digest that is not a revisit (the oldest).
pub fn find_originals(
    library: &Library,
    scope: &Scope,
    captures: &mut [(Item, Stored)],
) -> Result<(), SearchError> {
    for capture in captures.iter_mut() {
        if !lacks_original(capture) {
            continue;
        }
        let params = SearchParams {
            filters: vec![(Facet::Sha1, capture.0.sha1.clone())],
            sort: Sort::Oldest,
            facets: Vec::new(),
            ..SearchParams::default()
        };
        let found = library.walk(&params, scope, None, LOOKED_AT)?;
        capture.1.payload_at = found
            .captures
            .into_iter()
            .find(|(i, _)| i.kind != CaptureKind::Revisit)
            .and_then(|(_, s)| s.location);
    }
    Ok(())
}

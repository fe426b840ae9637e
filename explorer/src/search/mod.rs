//! Searching the archives served: full text, facets, calendar, the word cloud, the captures of
//! a URL and its deletions, one capture, the mementos of a URI-R; always within the caller's
//! [`Scope`]. Nothing here knows HTTP: errors are [`SearchError`] and [`MementoError`].

mod cloud;
mod collect;
mod cursor;
mod facet;
mod gone;
mod item;
mod library;
mod lookup;
mod members;
mod mementos;
mod names;
mod originals;
mod page;
mod params;
mod query;
mod scope;
mod snippet;
mod text;
mod walk;

pub use collect::{Gather, Gathered};
pub use cursor::{search_print, After, Cursor, CursorError};
pub use facet::{Facet, ALL as ALL_FACETS, DEFAULT as DEFAULT_FACETS};
pub use gone::{after, gone_since};
pub use item::{Item, Stored};
pub use library::{Library, SearchError, Served};
pub use lookup::SAME_BYTES;
pub use members::Members;
pub use mementos::{
    closest, mementos, nearest, parse_timestamp14, ForeignAt, Memento, MementoError, MAX_MEMENTOS,
};
pub use originals::{find_originals, lacks_original};
pub use page::{FacetValue, Page, Terms, Word};
pub use params::{date, SearchParams, Sort, MAX_SIZE, MAX_WINDOW};
pub use query::{build as build_query, field as facet_field, scope_query, term};
pub use scope::{Filter, Scope};
pub use text::{QueryError, QueryText};
pub use walk::Walked;

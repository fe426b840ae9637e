//! The web shell: what every door of the server shares. The state ([`AppState`]), the one error
//! (`AppError`: JSON by default, a page at the door of the pages), the caller (`Caller`: an
//! extractor that admits a request the same way at every door: the key, its quota and rate, the
//! RateLimit fields, and a search permit for the work that needs one), the query strings
//! (`Params`), the URLs of the routes (`links`) and export tickets (`ticket`: a key's stand-in in
//! one export's URL, so that a browser can download it, and that export's progress).
//!
//! The doors only add routes: `api/` (the JSON API under `/api/v1/`), `ui/` (the pages for
//! people) and `memento/` (Memento and PWID) each offer `routes()` over [`AppState`], and
//! [`crate::serve::router`] puts them together. A door imports the shell and the domain
//! (`search`, `capture`, `keys`), never another door; the shell imports no door. One layer
//! over every door (`refund`) gives a request back to its key's quota when the answer is `503`.

mod caller;
mod error;
mod form;
pub(crate) mod links;
mod ratelimit;
mod refund;
mod state;
mod ticket;

pub(crate) use caller::{Api, Caller, Public, Who};
pub(crate) use error::{AppError, Nearby};
#[cfg(test)]
pub(crate) use form::pairs;
pub(crate) use form::{FromPairs, Pairs, Params};
pub(crate) use links::Base;
pub(crate) use refund::refund_unavailable;
pub use state::AppState;
pub(crate) use ticket::{Holder, Seen, TICKET_LIFE};

/// The OpenAPI 3.1 document of the JSON API: served by the API door, listed by the API page.
pub(crate) const OPENAPI: &str = include_str!("openapi.json");

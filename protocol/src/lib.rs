//! The OAI-PMH 2.0 vocabulary, written once and used by both the modoai server and its harvester.
//!
//! ```
//! use modoai_protocol::{Granularity, Request, Verb};
//!
//! let pairs = modoai_protocol::form::parse("verb=GetRecord&identifier=http%3A%2F%2Fexample.org%2Fa.jpg&metadataPrefix=oai_dc")?;
//! let request = Request::parse(&pairs, Granularity::Seconds).expect("a valid request");
//! assert_eq!(request.verb(), Verb::GetRecord);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Section numbers (§) in the docs refer to the OAI-PMH 2.0 specification.

pub mod datestamp;
pub mod error;
pub mod form;
pub mod ns;
pub mod request;
pub mod setspec;
pub mod verb;

pub use datestamp::{Datestamp, Granularity};
pub use error::{ErrorCode, OaiError};
pub use request::{ListArgs, Request};
pub use setspec::SetSpec;
pub use verb::Verb;

/// True if `prefix` matches the XSD pattern of a metadataPrefix, `[A-Za-z0-9\-_\.!~\*'\(\)]+` (§3.4).
pub fn is_metadata_prefix(prefix: &str) -> bool {
    !prefix.is_empty() && prefix.bytes().all(setspec::is_spec_char)
}

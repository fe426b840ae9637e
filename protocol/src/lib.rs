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
#[doc(hidden)]
pub mod fuzzing;
pub mod ns;
pub mod request;
pub mod setspec;
pub mod verb;

pub use datestamp::{Datestamp, Granularity};
pub use error::{ErrorCode, OaiError};
pub use request::{ListArgs, Request};
pub use setspec::SetSpec;
pub use verb::Verb;

/// True for a character XML 1.0 allows (XML 1.0 §2.2 `Char`). Responses must contain no other, and
/// one such character in a page is the most common reason harvests of other providers fail.
///
/// ```
/// assert!(modoai_protocol::is_xml_char('\n'));
/// assert!(!modoai_protocol::is_xml_char('\u{1A}'));
/// assert!(!modoai_protocol::is_xml_char('\u{FFFE}'));
/// ```
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// True if `prefix` matches the XSD pattern of a metadataPrefix, `[A-Za-z0-9\-_\.!~\*'\(\)]+` (§3.4).
pub fn is_metadata_prefix(prefix: &str) -> bool {
    !prefix.is_empty() && prefix.bytes().all(setspec::is_spec_char)
}

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

pub mod crate_vocab;
pub mod datestamp;
pub mod error;
pub mod form;
#[doc(hidden)]
pub mod fuzzing;
pub mod ns;
pub mod request;
pub mod setspec;
mod syntax;
pub mod verb;

pub use datestamp::{Datestamp, Granularity};
pub use error::{ErrorCode, OaiError};
pub use request::{ListArgs, Request};
pub use setspec::SetSpec;
pub use syntax::{is_metadata_prefix, is_xml_char};
pub use verb::Verb;

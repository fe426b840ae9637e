//! Harvests OAI-PMH 2.0 providers into WARC archives: the streaming page parser ([`parse`]), the
//! HTTP client ([`client`]), the harvest loop ([`harvest`]), the archive ([`archive`], [`warc`],
//! [`cdxj`]) and services on top of it: PWIDs ([`pwid`]), corpus definitions ([`corpus`]) and
//! MementoMap profiles ([`profile`]), WACZ packages ([`wacz`]); archives on S3-compatible object
//! storage ([`store`]).
//!
//! ```
//! use modoai_harvester::{PageEvent, PageParser};
//!
//! let page = r#"<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">
//!   <responseDate>2024-05-01T12:00:00Z</responseDate>
//!   <request verb="ListIdentifiers" metadataPrefix="oai_dc">http://example.org/oai</request>
//!   <ListIdentifiers>
//!     <header>
//!       <identifier>http://example.org/a.pdf</identifier>
//!       <datestamp>2024-04-30</datestamp>
//!     </header>
//!     <resumptionToken cursor="0">page2</resumptionToken>
//!   </ListIdentifiers>
//! </OAI-PMH>"#;
//!
//! let mut parser = PageParser::new(page.as_bytes());
//! let (mut identifiers, mut next) = (Vec::new(), None);
//! while let Some(event) = parser.next_event()? {
//!     match event {
//!         PageEvent::Header(header) => identifiers.push(header.identifier),
//!         PageEvent::Token(token) if !token.is_final() => next = Some(token.token),
//!         _ => {}
//!     }
//! }
//! assert_eq!(identifiers, ["http://example.org/a.pdf"]);
//! assert_eq!(next.as_deref(), Some("page2"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Section numbers (§) refer to the OAI-PMH 2.0 specification.

pub mod archive;
pub mod cdxj;
pub mod client;
pub mod corpus;
#[doc(hidden)]
pub mod fuzzing;
pub mod harvest;
pub mod merge;
pub mod parse;
pub mod profile;
pub mod pwid;
pub mod shard;
pub mod store;
pub mod surt;
pub mod wacz;
pub mod warc;

pub use parse::{Header, Identify, PageEvent, PageParser, ParseError, Record, ResumptionToken};

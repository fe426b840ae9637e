//! Harvests OAI-PMH 2.0 providers into WARC archives.
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
//! The streaming page parser ([`parse`]), the HTTP client ([`client`]), the harvest loop
//! ([`harvest`]), harvest lists split by host into shards ([`shard`]), and archives on
//! S3-compatible object storage ([`store`]). The archive a harvest writes (WARC files, the ledger,
//! the CDXJ index, PWIDs, corpora, profiles, WACZ packages, merges) is the `modoai-archive` crate,
//! which the explorer reads too.
//!
//! Section numbers (§) refer to the OAI-PMH 2.0 specification.

pub mod client;
#[doc(hidden)]
pub mod fuzzing;
pub mod harvest;
pub mod parse;
pub mod shard;
pub mod store;

pub use parse::{Header, Identify, PageEvent, PageParser, ParseError, Record, ResumptionToken};

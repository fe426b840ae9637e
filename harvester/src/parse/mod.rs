//! A streaming parser for one OAI-PMH response page.
//!
//! [`PageParser`] pulls [`PageEvent`]s from any [`BufRead`](std::io::BufRead): one record,
//! header, set or format at a time, so a page is never held in memory as a whole. Elements are
//! matched by namespace and local name, so
//! `<oai:ListRecords xmlns:oai="http://www.openarchives.org/OAI/2.0/">` works like
//! `<ListRecords>` (string matching missed that in inveniosoftware/invenio#2300).
//!
//! The parser is strict about syntax and lenient about content. A page that is not well-formed
//! XML, contains a character XML 1.0 forbids, is not an OAI-PMH document (an HTML error page), or
//! ends before `</OAI-PMH>` is a [`ParseError`]: peers that recovered from such pages silently lost
//! the rest of a harvest (mloesch/sickle PR #55, #58). Missing or odd *values* (a header without a
//! datestamp, a token without `cursor`) are passed on as they are, for the harvester to judge.
//! Anything after `</OAI-PMH>` is never read: servers append PHP notices there
//! (findsorguk/findsorguk#843).
//!
//! [`PageParser::next_event_with`] sends each record's metadata to a [`MetadataSink`] while it
//! reads it, and decodes the files that MPEG-21 DIDL records inline as Base64, so that a record
//! of any size is parsed in bounded memory.
//!
//! ```
//! use modoai_harvester::parse::{PageEvent, PageParser};
//! use modoai_protocol::ErrorCode;
//!
//! let page = r#"<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">
//!   <responseDate>2024-05-01T12:00:00Z</responseDate>
//!   <request>http://example.org/oai</request>
//!   <error code="noRecordsMatch">nothing changed since then</error>
//! </OAI-PMH>"#;
//! let events = PageParser::new(page.as_bytes()).collect::<Result<Vec<_>, _>>()?;
//! assert!(matches!(&events[1], PageEvent::Error(e) if e.code == ErrorCode::NoRecordsMatch));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod check;
mod decode;
mod error;
mod event;
mod parser;
mod sink;
mod xml;

#[cfg(test)]
mod tests;

pub use error::ParseError;
pub use event::{Header, Identify, PageEvent, Record, ResumptionToken};
pub use parser::PageParser;
pub use sink::{MetadataSink, ResourceInfo};

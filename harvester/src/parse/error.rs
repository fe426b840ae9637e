//! Why a page could not be parsed.

use std::io;
use std::sync::Arc;

use quick_xml::errors::SyntaxError;

/// A page that is not a complete, well-formed OAI-PMH document.
///
/// Every variant names the byte offset in the input where the problem was found, so that the
/// harvester can log it next to the raw page it kept. Positions count bytes from the start of the
/// input (after a UTF-8 byte order mark, if any).
///
/// Content problems inside a well-formed page (a header without an identifier, an unparseable
/// datestamp) are *not* errors: the parser passes them on and lets the harvester count and skip
/// the record. Syntax problems are errors, because nothing after them can be trusted.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The input is not well-formed XML (a mismatched end tag, a bad attribute, a bad character
    /// reference, an illegal namespace binding, …).
    #[error("malformed XML at byte {position}")]
    Malformed {
        /// Where the offending markup starts.
        position: u64,
        /// What quick-xml found.
        #[source]
        source: quick_xml::Error,
    },
    /// An entity reference other than the five XML predefines (`&lt;` `&gt;` `&amp;` `&apos;`
    /// `&quot;`) or a character reference. OAI-PMH responses have no DTD to define more.
    #[error("undefined entity `&{name};` at byte {position}")]
    UndefinedEntity {
        /// The entity name between `&` and `;`.
        name: String,
        /// Where the reference starts.
        position: u64,
    },
    /// A character XML 1.0 forbids (§2.2 Char): C0 controls other than tab, LF and CR, U+FFFE
    /// and U+FFFF. Raw, or written as a character reference.
    #[error("invalid XML character U+{:04X} at byte {position}", u32::from(*.character))]
    InvalidChar {
        /// The character.
        character: char,
        /// Where it is (for a character reference: where the reference starts).
        position: u64,
    },
    /// A byte sequence that is not UTF-8 (including encoded surrogates). OAI-PMH responses are
    /// UTF-8 (§3.2).
    #[error("invalid UTF-8 at byte {position}")]
    InvalidUtf8 {
        /// The first byte that is not part of a valid sequence.
        position: u64,
    },
    /// The document is not an OAI-PMH response at all, e.g. an HTML error page or a bare
    /// metadata record.
    #[error("not an OAI-PMH document: {found} at byte {position}")]
    NotOaiPmh {
        /// What was found instead of `<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">`.
        found: String,
        /// Where it was found.
        position: u64,
    },
    /// The input ended before `</OAI-PMH>`: a page cut off by the network or the server.
    #[error("truncated document: input ends at byte {position} before `</OAI-PMH>`")]
    Truncated {
        /// Where the input ended, or where the unfinished markup started.
        position: u64,
        /// The unfinished markup, when the input ended inside a tag, comment or CDATA section.
        #[source]
        source: Option<SyntaxError>,
    },
    /// The envelope closed without a verb element and without an `<error>` (§3.2 requires one
    /// of them), so the page cannot be told apart from a silently emptied one.
    #[error("OAI-PMH document at byte {position} has neither a verb element nor an error")]
    NoPayload {
        /// Where `</OAI-PMH>` ends.
        position: u64,
    },
    /// An `<error>` whose `code` is not one of the eight codes of §3.6.
    #[error("unknown OAI-PMH error code `{code}` at byte {position}: {message}")]
    UnknownErrorCode {
        /// The `code` attribute as sent.
        code: String,
        /// The error's text.
        message: String,
        /// Where the `<error>` element starts.
        position: u64,
    },
    /// Elements nest deeper than `limit` levels: no real page does, and quick-xml's namespace
    /// scope counter would overflow at 65,536.
    #[error("elements nested deeper than {limit} levels at byte {position}")]
    TooDeep {
        /// Where the element that is one level too deep starts.
        position: u64,
        /// The deepest nesting accepted.
        limit: usize,
    },
    /// The content of an inline Base64 `didl:Resource` is not Base64: a character outside the
    /// alphabet, padding that is misplaced or incomplete, or a child element. Only
    /// [`next_event_with`](super::PageParser::next_event_with) decodes resources.
    #[error("invalid Base64 at byte {position}: {message}")]
    Base64 {
        /// Where the offending character, element or final quantum starts.
        position: u64,
        /// What is wrong.
        message: String,
    },
    /// The [`MetadataSink`](super::MetadataSink) returned an error.
    #[error("metadata sink failed at byte {position}")]
    Sink {
        /// How far parsing got when the sink was called.
        position: u64,
        /// The sink's error.
        #[source]
        source: Arc<io::Error>,
    },
    /// Reading the input failed.
    #[error("I/O error at byte {position}")]
    Io {
        /// How far reading got.
        position: u64,
        /// The underlying error.
        #[source]
        source: Arc<io::Error>,
    },
}

impl ParseError {
    /// The byte offset the error refers to.
    pub fn position(&self) -> u64 {
        match self {
            ParseError::Malformed { position, .. }
            | ParseError::UndefinedEntity { position, .. }
            | ParseError::InvalidChar { position, .. }
            | ParseError::InvalidUtf8 { position }
            | ParseError::Truncated { position, .. }
            | ParseError::NoPayload { position }
            | ParseError::UnknownErrorCode { position, .. }
            | ParseError::NotOaiPmh { position, .. }
            | ParseError::TooDeep { position, .. }
            | ParseError::Base64 { position, .. }
            | ParseError::Sink { position, .. }
            | ParseError::Io { position, .. } => *position,
        }
    }

    /// True for errors a sanitising re-parse of the same bytes could get past: forbidden
    /// characters, bad UTF-8 and undefined entities, the classic "one bad character kills the
    /// harvest" failures of peers.
    pub fn is_character_error(&self) -> bool {
        matches!(
            self,
            ParseError::InvalidChar { .. }
                | ParseError::InvalidUtf8 { .. }
                | ParseError::UndefinedEntity { .. }
        )
    }
}

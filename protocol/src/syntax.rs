//! Character classes of XML and of OAI-PMH tokens, checked by the request parser, the server's
//! XML writer and the harvester's page parser alike.

use crate::setspec::is_spec_char;

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
    !prefix.is_empty() && prefix.bytes().all(is_spec_char)
}

//! Strict `application/x-www-form-urlencoded` decoding for OAI-PMH arguments (§3.1.1).
//!
//! `%XX` and `+` are decoded exactly once. Unlike lenient decoders, malformed escapes and bytes that
//! are not UTF-8 are errors (the server answers them with `badArgument`) instead of being replaced
//! silently, so a harvester never gets a record for an argument it did not send.

use std::fmt;

/// Why a query string or form body could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormError {
    /// A `%` not followed by two hex digits.
    BadEscape,
    /// The decoded bytes are not UTF-8.
    NotUtf8,
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormError::BadEscape => f.write_str("malformed percent-encoding"),
            FormError::NotUtf8 => f.write_str("arguments are not valid UTF-8"),
        }
    }
}

impl std::error::Error for FormError {}

/// Decodes `a=1&b=2` into its pairs, in order, keeping repeats (the caller must reject them).
///
/// ```
/// let pairs = modoai_protocol::form::parse("verb=List+Sets&x=%2F").unwrap();
/// assert_eq!(pairs, [("verb".to_string(), "List Sets".to_string()), ("x".to_string(), "/".to_string())]);
/// assert!(modoai_protocol::form::parse("x=%zz").is_err());
/// ```
pub fn parse(input: &str) -> Result<Vec<(String, String)>, FormError> {
    parse_bytes(input.as_bytes())
}

/// [`parse`] over raw bytes, for request bodies.
pub fn parse_bytes(input: &[u8]) -> Result<Vec<(String, String)>, FormError> {
    input
        .split(|&b| b == b'&')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let (key, value) = match part.iter().position(|&b| b == b'=') {
                Some(i) => (&part[..i], &part[i + 1..]),
                None => (part, &b""[..]),
            };
            Ok((decode(key)?, decode(value)?))
        })
        .collect()
}

/// Decodes one component: `+` is a space, `%XX` a byte.
pub fn decode(component: &[u8]) -> Result<String, FormError> {
    let mut out = Vec::with_capacity(component.len());
    let mut bytes = component.iter();
    while let Some(&b) = bytes.next() {
        match b {
            b'+' => out.push(b' '),
            b'%' => {
                let hi = bytes.next().and_then(|&h| hex(h));
                let lo = bytes.next().and_then(|&l| hex(l));
                match (hi, lo) {
                    (Some(hi), Some(lo)) => out.push(hi << 4 | lo),
                    _ => return Err(FormError::BadEscape),
                }
            }
            _ => out.push(b),
        }
    }
    String::from_utf8(out).map_err(|_| FormError::NotUtf8)
}

/// Encodes one component for a query string: everything but unreserved characters is escaped, so
/// a value such as a resumption token or a URL identifier survives exactly once-decoding.
///
/// ```
/// assert_eq!(modoai_protocol::form::encode("a b/c+d"), "a%20b%2Fc%2Bd");
/// ```
pub fn encode(component: &str) -> String {
    let mut out = String::with_capacity(component.len());
    for &b in component.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The URL of a request: `base?verb=VERB&name=value…`, every value [`encode`]d, arguments in the
/// order given. A base URL that already has a query gets the arguments appended with `&`.
///
/// ```
/// use modoai_protocol::{form::request_url, Verb};
///
/// let url = request_url("http://example.org/oai", Verb::ListRecords, &[("resumptionToken", "a b/1")]);
/// assert_eq!(url, "http://example.org/oai?verb=ListRecords&resumptionToken=a%20b%2F1");
/// ```
pub fn request_url(base: &str, verb: crate::Verb, args: &[(&str, &str)]) -> String {
    let mut url = String::from(base);
    url.push(if base.contains('?') { '&' } else { '?' });
    url.push_str("verb=");
    url.push_str(verb.as_str());
    for (name, value) in args {
        url.push('&');
        url.push_str(name);
        url.push('=');
        url.push_str(&encode(value));
    }
    url
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_repeats_and_order() {
        let pairs = parse("verb=Identify&verb=Identify").unwrap();
        assert_eq!(pairs.len(), 2);
    }

    #[test]
    fn key_without_value() {
        assert_eq!(parse("junk").unwrap(), [("junk".into(), String::new())]);
    }

    #[test]
    fn rejects_bad_escapes_and_bytes() {
        assert_eq!(parse("a=%4"), Err(FormError::BadEscape));
        assert_eq!(parse("a=%g0"), Err(FormError::BadEscape));
        assert_eq!(parse("a=%ff"), Err(FormError::NotUtf8));
        assert_eq!(
            parse("a=%C0%AE"),
            Err(FormError::NotUtf8),
            "overlong UTF-8 is not UTF-8"
        );
    }

    #[test]
    fn decodes_once() {
        assert_eq!(parse("a=%252F").unwrap()[0].1, "%2F");
    }

    #[test]
    fn encode_then_decode() {
        let s = "http://h/ä b?c=d&e";
        assert_eq!(decode(encode(s).as_bytes()).unwrap(), s);
    }
}

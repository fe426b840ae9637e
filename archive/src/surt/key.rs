//! A URL split as handyurl splits it, canonicalised by the Google and IA steps, and written as
//! a SURT key.

use std::sync::LazyLock;

use memchr::memmem::Finder;
use regex::bytes::Regex;

use super::escape::{escape_once, normalize_path, unescape_repeatedly};
use super::host::canonical_host;
use super::session::{
    alpha_reorder_query, path_session_replace, query_session_replace, strip_session_ids,
    PATH_SESSION_IDS, QUERY_SESSION_IDS,
};
use super::url::{
    collapse_protocols, find_any, scheme_len, split_host_port, trim_end_byte, trim_py,
    trim_start_byte, with_default_scheme,
};
use super::SurtError;

/// A URL as handyurl holds it. Empty host, path and query mean "absent": the package only ever
/// tests them for truthiness.
pub(super) struct Parts {
    scheme: Vec<u8>,
    host: Vec<u8>,
    port: Option<u16>,
    path: Vec<u8>,
    query: Vec<u8>,
}

impl Parts {
    /// `handyurl.parse`: clean up, add a default scheme, split with the RFC 2396 regex.
    pub(super) fn parse(url: &[u8]) -> Result<Self, SurtError> {
        let cleaned: Vec<u8> = trim_py(url)
            .iter()
            .copied()
            .filter(|b| !matches!(b, b'\n' | b'\r' | b'\t'))
            .collect();
        if cleaned.is_empty() {
            // Python fails here with an AttributeError (no scheme to test).
            return Err(SurtError::Blank);
        }
        let url = collapse_protocols(&with_default_scheme(cleaned));
        let colon = scheme_len(&url).expect("a default scheme was added");
        let (scheme, rest) = (url[..colon].to_vec(), &url[colon + 1..]);

        let (netloc, rest) = match rest.strip_prefix(b"//") {
            Some(after) => after.split_at(find_any(after, b"/?#")),
            None => (&rest[..0], rest),
        };
        let (path, rest) = rest.split_at(find_any(rest, b"?#"));
        let query = match rest.strip_prefix(b"?") {
            Some(after) => &after[..find_any(after, b"#")],
            None => &rest[..0],
        };

        let netloc = trim_end_byte(netloc, b':');
        let (mut host, port) = split_host_port(netloc)?;
        let mut path = path.to_vec();
        // "http:////www.vikings.com": the host sits in the path (case-sensitive `startswith`).
        if scheme.starts_with(b"http") && host.is_none() && !path.is_empty() {
            let trimmed = trim_start_byte(&path, b'/');
            let slash = trimmed.iter().position(|&b| b == b'/');
            let (h, p) = match slash {
                Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
                None => (trimmed, &trimmed[..0]),
            };
            host = Some(h.to_vec());
            path = [b"/", p].concat();
        }
        Ok(Self {
            scheme,
            host: host.unwrap_or_default(),
            port,
            path,
            query: query.to_vec(),
        })
    }

    /// `GoogleURLCanonicalizer.canonicalize`: unescape and re-escape, IDNA, IPv4 forms, paths.
    pub(super) fn canonicalize_google(&mut self) {
        if !self.query.is_empty() {
            self.query = escape_once(&unescape_repeatedly(&self.query));
        }
        if !self.host.is_empty() {
            self.host = canonical_host(&self.host);
        }
        let path = unescape_repeatedly(&self.path);
        let path = if self.host.is_empty() {
            path // a free-form path such as `dns:` or `urn:` carries
        } else {
            normalize_path(&path)
        };
        self.path = escape_once(&path);
    }

    /// `IAURLCanonicalizer.canonicalize` with its defaults.
    pub(super) fn canonicalize_ia(&mut self) {
        self.host.make_ascii_lowercase();
        if !self.host.is_empty() && self.scheme != b"dns" {
            if let Some(m) = WWW.find(&self.host) {
                self.host.drain(..m.end());
            }
        }
        let default_port = match self.scheme.to_ascii_lowercase().as_slice() {
            b"http" => 80,
            b"https" => 443,
            _ => 0,
        };
        if self.port == Some(default_port) {
            self.port = None;
        }
        if !self.path.is_empty() {
            self.path.make_ascii_lowercase();
            // Both patterns end in `.aspx…`: most paths need no regex at all.
            static ASPX: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(".aspx"));
            if ASPX.find(&self.path).is_some() {
                self.path =
                    strip_session_ids(&PATH_SESSION_IDS[..], &self.path, path_session_replace);
            }
            if self.path.len() > 1 && self.path.ends_with(b"/") {
                self.path.pop();
            }
        }
        if !self.query.is_empty() {
            let lower = self.query.to_ascii_lowercase();
            let query = if may_hold_session_id(&lower) {
                strip_session_ids(&QUERY_SESSION_IDS[..], &self.query, query_session_replace)
                    .to_ascii_lowercase()
            } else {
                lower
            };
            self.query = alpha_reorder_query(&query);
        }
    }

    /// `handyurl.geturl_bytes(surt=True, with_scheme=False)`.
    pub(super) fn into_key(self) -> String {
        let mut out = Vec::new();
        if self.host.is_empty() {
            out.extend_from_slice(&self.scheme);
            out.push(b':');
        } else {
            let labels: Vec<&[u8]> = self.host.split(|&b| b == b'.').rev().collect();
            out.extend_from_slice(&labels.join(&b','));
            if let Some(port) = self.port {
                out.extend_from_slice(format!(":{port}").as_bytes());
            }
            out.push(b')');
        }
        if !self.path.is_empty() {
            out.extend_from_slice(&self.path);
        } else if !self.query.is_empty() {
            out.push(b'/');
        }
        if !self.query.is_empty() {
            out.push(b'?');
            out.extend_from_slice(&self.query);
        }
        // Everything but the scheme was percent-escaped to ASCII, and the scheme is ASCII.
        String::from_utf8(out).expect("a SURT key is ASCII")
    }
}

/// Whether a lower-cased query has the literal one of the query session-id patterns needs
/// (`sid=` ends `phpsessid=` too).
fn may_hold_session_id(query: &[u8]) -> bool {
    // Built once: a searcher costs more to build than to run over one query.
    static NEEDLES: LazyLock<[Finder<'static>; 4]> = LazyLock::new(|| {
        ["jsessionid=", "sid=", "aspsessionid", "cfid="].map(|n| Finder::new(n.as_bytes()))
    });
    NEEDLES.iter().any(|needle| needle.find(query).is_some())
}

static WWW: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(?-u)www[0-9]*\.").unwrap());

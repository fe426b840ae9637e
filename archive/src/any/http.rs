//! The HTTP response inside a `response` or `revisit` block, or an ARC record: status line and
//! header section (RFC 9112 §4–§5), read leniently as archived responses need.

use serde::{Deserialize, Serialize};

/// Longest HTTP header section looked for.
pub const MAX_HTTP_HEAD: usize = 256 * 1024;

/// An archived HTTP response's status line and headers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpHead {
    /// `HTTP/1.1`, `HTTP/1.0`, …
    pub version: String,
    /// The status code.
    pub status: u16,
    /// The reason phrase; empty when the status line has none.
    pub reason: String,
    /// The header fields in order, duplicates kept, folded lines joined (RFC 9112 §5.2).
    pub headers: Vec<(String, String)>,
    /// Where the body starts within the block: the length of the status line and headers.
    pub body_offset: u64,
}

impl HttpHead {
    /// Parses the head at the start of `block`; `None` when it is not an HTTP response or its
    /// header section does not end within `block` (or [`MAX_HTTP_HEAD`] bytes).
    pub fn parse(block: &[u8]) -> Option<HttpHead> {
        let block = &block[..block.len().min(MAX_HTTP_HEAD)];
        Self::parse_to(block, head_end(block)?)
    }

    /// Parses a whole block as a head that may lack its blank line (a block cut by its
    /// `Content-Length`, as pywb's sample `missing-status-text.warc` has): then the body is
    /// empty.
    pub fn parse_whole(block: &[u8]) -> Option<HttpHead> {
        let block = &block[..block.len().min(MAX_HTTP_HEAD)];
        Self::parse_to(block, head_end(block).unwrap_or(block.len()))
    }

    fn parse_to(block: &[u8], end: usize) -> Option<HttpHead> {
        let mut lines = block[..end].split(|&b| b == b'\n').map(trim_cr);
        let status_line = String::from_utf8_lossy(lines.next()?).into_owned();
        let mut parts = status_line.splitn(3, ' ');
        let version = parts.next()?.to_owned();
        if !version.starts_with("HTTP/") {
            return None;
        }
        let status = parts.next()?.trim().parse().ok()?;
        let reason = parts.next().unwrap_or_default().trim().to_owned();
        let mut headers: Vec<(String, String)> = Vec::new();
        for line in lines.filter(|l| !l.is_empty()) {
            let text = String::from_utf8_lossy(line);
            if line[0] == b' ' || line[0] == b'\t' {
                if let Some((_, value)) = headers.last_mut() {
                    value.push(' ');
                    value.push_str(text.trim());
                }
                continue;
            }
            // A line without a colon is kept as a name without value, as browsers skip it.
            let (name, value) = text.split_once(':').unwrap_or((&text, ""));
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
        Some(HttpHead {
            version,
            status,
            reason,
            headers,
            body_offset: end as u64,
        })
    }

    /// The first header named `name` (ASCII case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The media type of `Content-Type`, lower case, without parameters.
    pub fn mime(&self) -> Option<String> {
        let value = self.header("Content-Type")?;
        let mime = value.split(';').next().unwrap_or(value).trim();
        (!mime.is_empty()).then(|| mime.to_ascii_lowercase())
    }

    /// Whether the body is sent with chunked transfer-coding (RFC 9112 §7.1).
    pub fn is_chunked(&self) -> bool {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("Transfer-Encoding"))
            .any(|(_, v)| v.to_ascii_lowercase().contains("chunked"))
    }

    /// The content-codings applied to the body, in the order they were applied (RFC 9110
    /// §8.4), `identity` left out.
    pub fn content_codings(&self) -> Vec<String> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("Content-Encoding"))
            .flat_map(|(_, v)| v.split(','))
            .map(|c| c.trim().to_ascii_lowercase())
            .filter(|c| !c.is_empty() && c != "identity")
            .collect()
    }

    /// Where a redirect (3xx) points: its `Location`.
    pub fn location(&self) -> Option<&str> {
        (300..400)
            .contains(&self.status)
            .then(|| self.header("Location"))
            .flatten()
    }
}

/// The end of the header section (after its blank line).
fn head_end(block: &[u8]) -> Option<usize> {
    // A line end is LF after any number of CRs (some producers write CR CR LF).
    let mut at = 0;
    while let Some(i) = memchr::memchr(b'\n', &block[at..]) {
        let mut next = at + i + 1;
        while block.get(next) == Some(&b'\r') {
            next += 1;
        }
        if block.get(next) == Some(&b'\n') {
            return Some(next + 1);
        }
        at = at + i + 1;
    }
    None
}

fn trim_cr(line: &[u8]) -> &[u8] {
    let end = line.iter().rposition(|&b| b != b'\r').map_or(0, |i| i + 1);
    &line[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_headers_and_body_offset() {
        let block = b"HTTP/1.1 302\r\nLocation: /x\r\nSet-Cookie: a\r\nSet-Cookie: b\r\nX: 1\r\n 2\r\n\r\nbody";
        let head = HttpHead::parse(block).unwrap();
        assert_eq!((head.status, head.reason.as_str()), (302, ""));
        assert_eq!(head.location(), Some("/x"));
        assert_eq!(head.headers.len(), 4);
        assert_eq!(head.headers[3].1, "1 2");
        assert_eq!(&block[head.body_offset as usize..], b"body");
        let ok = HttpHead::parse(b"HTTP/1.0 200 OK Fine\nContent-Type: Text/HTML; charset=x\nContent-Encoding: gzip, br\nTransfer-Encoding: chunked\n\n").unwrap();
        assert_eq!(ok.reason, "OK Fine");
        assert_eq!(ok.mime().as_deref(), Some("text/html"));
        assert_eq!(ok.content_codings(), ["gzip", "br"]);
        assert!(ok.is_chunked());
        assert!(HttpHead::parse(b"GET / HTTP/1.1\r\n\r\n").is_none());
        assert!(HttpHead::parse(b"HTTP/1.1 200 OK\r\nno end").is_none());
    }
}

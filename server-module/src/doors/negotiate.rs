//! Content negotiation of the OAI route (RFC 9110 §12.5.1): a person's browser gets the HTML
//! view, every harvester the XML. HTML is chosen only when `text/html` is named explicitly in
//! `Accept` and weighted above every XML type, so a request without `Accept`, with `*/*`, with
//! an XML type, or with `text/html` only as good as XML keeps the XML it always had.

use http::header::ACCEPT;
use http::HeaderMap;

/// The XML media types an OAI-PMH response is served as.
const XML_TYPES: [(&str, &str); 2] = [("text", "xml"), ("application", "xml")];

/// True when the request's `Accept` prefers `text/html`, named explicitly, over XML.
///
/// ```
/// # use modoai::doors::prefers_html;
/// let mut h = http::HeaderMap::new();
/// assert!(!prefers_html(&h));
/// h.insert("accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8".parse()?);
/// assert!(prefers_html(&h));
/// h.insert("accept", "*/*".parse()?);
/// assert!(!prefers_html(&h));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn prefers_html(headers: &HeaderMap) -> bool {
    let ranges: Vec<Range<'_>> = headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(Range::parse)
        .collect();
    let explicit_html = ranges
        .iter()
        .filter(|r| r.kind.eq_ignore_ascii_case("text") && r.sub.eq_ignore_ascii_case("html"))
        .map(|r| r.q)
        .fold(None, |best: Option<f32>, q| {
            Some(best.map_or(q, |b| b.max(q)))
        });
    let Some(html) = explicit_html else {
        return false;
    };
    let xml = XML_TYPES
        .iter()
        .map(|(kind, sub)| quality(&ranges, kind, sub))
        .fold(0.0, f32::max);
    html > 0.0 && html > xml
}

/// One media range of `Accept` with its weight.
#[derive(Debug)]
struct Range<'a> {
    kind: &'a str,
    sub: &'a str,
    q: f32,
}

impl<'a> Range<'a> {
    /// `type/subtype *( OWS ";" OWS parameter )`; ranges that do not parse are ignored, as
    /// §12.5.1 lets a server do with invalid parts.
    fn parse(text: &'a str) -> Option<Range<'a>> {
        let mut parts = text.split(';').map(str::trim);
        let (kind, sub) = parts.next()?.split_once('/')?;
        if kind.is_empty() || sub.is_empty() {
            return None;
        }
        let mut q = 1.0;
        for param in parts {
            if let Some((name, value)) = param.split_once('=') {
                if name.trim().eq_ignore_ascii_case("q") {
                    q = value
                        .trim()
                        .parse::<f32>()
                        .ok()
                        .filter(|q| (0.0..=1.0).contains(q))?;
                }
            }
        }
        Some(Range { kind, sub, q })
    }

    /// 2 for an exact match, 1 for `type/*`, 0 for `*/*`; `None` when the range does not match.
    fn specificity(&self, kind: &str, sub: &str) -> Option<u8> {
        let kind_ok = self.kind == "*" || self.kind.eq_ignore_ascii_case(kind);
        let sub_ok = self.sub == "*" || self.sub.eq_ignore_ascii_case(sub);
        match (kind_ok && sub_ok, self.kind == "*", self.sub == "*") {
            (false, _, _) => None,
            (true, true, _) => Some(0),
            (true, false, true) => Some(1),
            (true, false, false) => Some(2),
        }
    }
}

/// The weight the ranges give `kind/sub`: that of the most specific matching range (§12.5.1),
/// 0 when none matches.
fn quality(ranges: &[Range<'_>], kind: &str, sub: &str) -> f32 {
    ranges
        .iter()
        .filter_map(|r| r.specificity(kind, sub).map(|s| (s, r.q)))
        .max_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)))
        .map_or(0.0, |(_, q)| q)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(accept: &[&str]) -> bool {
        let mut h = HeaderMap::new();
        for a in accept {
            h.append(ACCEPT, a.parse().unwrap());
        }
        prefers_html(&h)
    }

    #[test]
    fn browsers_get_html() {
        // Chromium, Firefox, Safari.
        assert!(html(&["text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"]));
        assert!(html(&[
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        ]));
        assert!(html(&["text/html"]));
        assert!(html(&["text/plain;q=0.5", "text/html;q=0.8"]));
    }

    #[test]
    fn harvesters_and_everything_else_get_xml() {
        assert!(!html(&[]));
        assert!(!html(&["*/*"]));
        assert!(!html(&["text/*"]));
        assert!(!html(&["text/xml"]));
        assert!(
            !html(&["application/xml, text/html"]),
            "a tie is not a preference"
        );
        assert!(!html(&["text/html;q=0.5, text/xml"]));
        assert!(!html(&["text/html;q=0, */*"]));
        assert!(!html(&["text/html;q=0.9, */*"]), "*/* gives XML 1.0");
        assert!(
            !html(&["text/html;q=abc"]),
            "an invalid weight drops the range"
        );
        assert!(html(&["text/html, */*;q=0.1"]));
        assert!(html(&["TEXT/HTML, application/*;q=0.5"]));
    }
}

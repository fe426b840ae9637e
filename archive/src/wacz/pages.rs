//! `pages/pages.jsonl`: a header line, then one page per harvested HTML file (each capture: its
//! URL and its capture time), read from the ledger one entry at a time.

use std::collections::HashSet;
use std::io::{self, Write};

use serde::Serialize;

use crate::archive::{parts_of, Reader};

/// The header line (WACZ 1.1.1, "pages/pages.jsonl").
pub(crate) const HEADER: &str = r#"{"format":"json-pages-1.0","id":"pages","title":"All Pages"}"#;

/// One page line.
#[derive(Debug, Serialize)]
struct Page<'a> {
    id: String,
    url: &'a str,
    /// RFC 3339, UTC.
    ts: String,
}

/// The first page written: the package's `mainPageURL` and `mainPageDate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MainPage {
    pub(crate) url: String,
    pub(crate) ts: String,
}

/// Writes the pages of the parts in `files` (WARC names); returns how many and the first one.
pub(crate) fn write_pages(
    reader: &Reader,
    files: &HashSet<String>,
    out: &mut dyn Write,
) -> io::Result<(u64, Option<MainPage>)> {
    writeln!(out, "{HEADER}")?;
    let id = reader.archive_id().unwrap_or_default().to_owned();
    let (mut count, mut first) = (0u64, None);
    for entry in reader.entries()? {
        let entry = entry?;
        for part in parts_of(&entry, &id) {
            let r = &part.record;
            if !is_html(&r.mime) || !files.contains(&r.file) {
                continue;
            }
            count += 1;
            let page = Page {
                id: format!("p{count}"),
                url: &r.uri,
                ts: rfc3339(&r.date),
            };
            serde_json::to_writer(&mut *out, &page)?;
            out.write_all(b"\n")?;
            first.get_or_insert_with(|| MainPage {
                url: r.uri.clone(),
                ts: page.ts.clone(),
            });
        }
    }
    Ok((count, first))
}

/// Whether a Content-Type is an HTML page (parameters and case aside).
pub fn is_html(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or_default().trim();
    essence.eq_ignore_ascii_case("text/html")
        || essence.eq_ignore_ascii_case("application/xhtml+xml")
}

/// `20260102030405` → `2026-01-02T03:04:05Z`.
pub(crate) fn rfc3339(d: &str) -> String {
    let at = |a: usize, b: usize| d.get(a..b).unwrap_or("00");
    format!(
        "{}-{}-{}T{}:{}:{}Z",
        d.get(0..4).unwrap_or("0000"),
        at(4, 6),
        at(6, 8),
        at(8, 10),
        at(10, 12),
        at(12, 14)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_told_by_the_essence_of_the_content_type() {
        for yes in [
            "text/html",
            "text/html; charset=utf-8",
            "TEXT/HTML",
            "application/xhtml+xml",
        ] {
            assert!(is_html(yes), "{yes}");
        }
        for no in ["text/plain", "application/xml", "image/html", ""] {
            assert!(!is_html(no), "{no}");
        }
    }

    #[test]
    fn timestamps_become_rfc3339() {
        assert_eq!(rfc3339("20260102030405"), "2026-01-02T03:04:05Z");
    }
}

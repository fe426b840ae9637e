//! The search page's "Export" menu: the search's captures as CSV, JSON Lines, a CDXJ index, a
//! corpus definition, their WARC records or a WACZ package, through the API's export (`/api/v1/export`, `docs/explorer.md`). The menu
//! says how many captures an export holds and about how large it is before it starts; a large
//! one says so again, and that it streams.

use maud::{html, Markup, PreEscaped};

use super::format::{count, plural, size};
use super::query::Query;
use crate::search::Page;
use crate::web::links;

/// The script of the downloads with a key and their progress.
const SCRIPT: &str = include_str!("export.js");

/// Captures from which an export is large: the menu warns before it starts.
const LARGE: u64 = 10_000;

/// The formats offered: `format=`, label, and about how many bytes a capture takes (0: its
/// records, estimated from the page's captures by [`estimate`]).
const FORMATS: [(&str, &str, u64); 6] = [
    ("csv", "CSV", 300),
    ("jsonl", "JSON Lines", 700),
    ("cdxj", "CDXJ index (pywb)", 350),
    ("corpus", "Corpus definition (PWIDs)", 550),
    ("warc", "WARC records (.warc.gz)", 0),
    ("wacz", "WACZ package", 0),
];

/// Bytes of a record's headers and of its index line, besides its payload.
const RECORD: u64 = 1000;

/// The menu, for the search of `query` that found `page.total` captures; `open` when the API
/// answers without a key.
pub(super) fn menu(query: &Query, page: &Page, open: bool) -> Markup {
    let total = page.total;
    html! {
        details.export {
            summary { "Export" }
            p.export-count data-captures=(total) {
                (plural(total, "capture", "captures")) " in each file"
                @if page.partial { " (the search ran out of time: the export counts again, in full)" }
            }
            @if total >= LARGE {
                p.export-large {
                    "A large export: " (count(total)) " captures. It streams as it is read; "
                    "CSV and JSON Lines end with a line saying whether they are complete."
                }
            }
            ul {
                @for (format, label, per) in FORMATS {
                    li {
                        a.export-format data-format=(format) href=(href(query, format)) download {
                            (label)
                        }
                        " " span.export-size { "about " (size(total * estimate(per, page))) }
                    }
                }
            }
            label.ticket-key {
                @if open { "Your API key (optional: it adds its quota and scope) " } @else { "Your API key " }
                input.ticket-key-input type="password" autocomplete="off" spellcheck="false";
            }
            @if !open {
                p.export-key { "Exports are part of the API: they need a key. Type yours above (it goes only to this server's API), or send it as Authorization: Bearer KEY, as on the API page." }
            }
            p.export-progress aria-live="polite" hidden { progress {} " " span {} }
            script { (PreEscaped(SCRIPT)) }
        }
    }
}

/// Bytes a capture takes in a format: `per`, or for the records the mean payload of the page's
/// captures and [`RECORD`].
fn estimate(per: u64, page: &Page) -> u64 {
    if per > 0 {
        return per;
    }
    let n = page.data.len().max(1) as u64;
    page.data.iter().map(|c| c.size).sum::<u64>() / n + RECORD
}

/// The export of `query`'s search in `format`: the search's parameters but its paging.
fn href(query: &Query, format: &str) -> String {
    let pairs = query
        .pairs()
        .iter()
        .filter(|(k, v)| {
            !["page", "size", "group", "facets"].contains(&k.as_str()) && !v.is_empty()
        })
        .map(|(k, v)| (k.as_str(), v.as_str()));
    links::export(format, pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(total: u64) -> Page {
        Page {
            total,
            count: 0,
            page: 1,
            totalpage: 0,
            partial: false,
            took_ms: 0,
            data: Vec::new(),
            facets: Default::default(),
            next: None,
        }
    }

    #[test]
    fn a_large_export_is_announced_with_its_count_and_sizes() {
        let query = Query::parse(Some("q=report&mime=text%2Fhtml&page=3&size=20".into())).unwrap();
        let small = menu(&query, &page(12), true).into_string();
        assert!(!small.contains("export-large") && !small.contains("export-key"));
        let large = menu(&query, &page(40_000), false).into_string();
        assert!(large.contains("A large export: 40,000 captures"), "{large}");
        assert!(
            large.contains("about 11.4 MiB"),
            "CSV at 300 bytes a capture: {large}"
        );
        assert!(large.contains("export-key"));
        assert!(
            large.contains("href=\"/api/v1/export?format=csv&amp;q=report&amp;mime=text%2Fhtml\""),
            "the search without its page: {large}"
        );
    }
}

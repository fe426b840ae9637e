//! The result list: what was found and how it is narrowed, each capture with its highlighted
//! snippet, and the links to the other pages.

use maud::{html, Markup, PreEscaped};

use super::format::{count, facet_label, facet_value, plural, size, when};
use super::query::Query;
use crate::search::{Item, Page, MAX_WINDOW};
use crate::web::links;

/// What was found, the filters in force (each removable), and the order.
pub(super) fn summary(query: &Query, page: &Page) -> Markup {
    let filters = query.filters();
    let range = [("from", "from"), ("until", "until")];
    html! {
        h1.found {
            (plural(page.total, "capture", "captures"))
            @if !query.q().is_empty() { " match " q { (query.q()) } }
        }
        @if page.partial {
            p.partial { "The search ran out of time: these counts and results are a part of all matches. Narrow the search for complete ones." }
        }
        @if !filters.is_empty() || query.first("from").is_some() || query.first("until").is_some() {
            ul.chips aria-label="Filters in force" {
                @for (facet, value) in &filters {
                    li { a href=(query.without(facet.name(), Some(value)).href()) title="Remove this filter" {
                        (facet_label(*facet)) ": " (facet_value(*facet, value)) " ×" } }
                }
                @for (name, label) in range {
                    @if let Some(v) = query.first(name) {
                        li { a href=(query.without(name, None).href()) { (label) " " (v) " ×" } }
                    }
                }
                li.clear { a href=(Query::default().set("q", query.q()).href()) { "Remove all filters" } }
            }
        }
        (options(query))
    }
}

/// Order, grouping and time range: links, and a small form for the dates.
fn options(query: &Query) -> Markup {
    let sort = query.first("sort").unwrap_or(if query.q().is_empty() {
        "newest"
    } else {
        "relevance"
    });
    let grouped = query.first("group") == Some("sha1");
    html! {
        div.options {
            span { "Order: " }
            @for s in ["relevance", "newest", "oldest"] {
                @if s == sort { strong.sort { (s) } } @else { a.sort href=(query.set("sort", s).href()) { (s) } }
                " "
            }
            " · "
            @if grouped {
                a.group href=(query.without("group", None).href()) { "show every capture" }
            } @else {
                a.group href=(query.set("group", "sha1").href()) { "one result per identical file" }
            }
            form.range action="/search" method="get" {
                @for (k, v) in query.pairs().iter().filter(|(k, _)| k != "from" && k != "until" && k != "page") {
                    input type="hidden" name=(k) value=(v);
                }
                label { "from " input type="text" name="from" size="10" placeholder="YYYY-MM-DD" value=(query.first("from").unwrap_or_default()); }
                label { " until " input type="text" name="until" size="10" placeholder="YYYY-MM-DD" value=(query.first("until").unwrap_or_default()); }
                " " button type="submit" { "Apply" }
            }
        }
    }
}

/// The captures of the page.
pub(super) fn list(query: &Query, page: &Page) -> Markup {
    html! {
        @if page.data.is_empty() && page.total > 0 && page.page as u64 > page.totalpage {
            p.none {
                "There is no page " (count(page.page as u64)) ": the results end on page "
                (count(page.totalpage)) ". "
                a href=(query.page(page.totalpage as usize).href()) { "Go to the last page" }
            }
        } @else if page.data.is_empty() {
            p.none { "Nothing matches. Remove a filter, or search fewer words." }
        }
        ol.hits start=((page.page - 1) * page_size(query) + 1) {
            @for item in &page.data { (hit(item)) }
        }
    }
}

/// Results per page: the query's `size`, else the API's default.
fn page_size(query: &Query) -> usize {
    query
        .first("size")
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(10)
}

fn hit(item: &Item) -> Markup {
    let title = if item.title.trim().is_empty() {
        &item.url
    } else {
        &item.title
    };
    html! {
        li.hit {
            h2 { a.title href=(links::capture(&item.id)) { (title) } }
            p.url { (item.url) }
            p.meta {
                time datetime=(item.time) { (when(&item.time)) }
                " · " span.mime { (item.mime) } " · " (size(item.size))
                @if let Some(f) = &item.format { " · " span.format { (f) } }
                @if let Some(j) = &item.jhove { " · " span class={ "jhove " (j) } { "JHOVE " (j) } }
                @if let Some(l) = &item.lang { " · " (facet_value(crate::search::Facet::Lang, l)) }
                @if let Some(c) = item.copies { @if c > 1 {
                    " · " a.copies href=(Query::default().set("sha1", &item.sha1).href()) { (c) " identical captures" }
                } }
            }
            @if let Some(s) = &item.snippet { p.snippet { (snippet(s)) } }
            p.links {
                a href=(links::memento(&item.timestamp, &item.url)) { "memento" } " · "
                a href=(links::timeline(&item.url)) { "all captures of this URL" }
            }
        }
    }
}

/// A snippet from the index (tantivy's HTML: the matching words in `<b>`, the rest escaped) with
/// the matching words marked; any other `<` or `>` is escaped again, so nothing but `<mark>`
/// reaches the page.
fn snippet(html: &str) -> Markup {
    let mut out = String::new();
    for (i, part) in html.split("<b>").enumerate() {
        let (marked, rest) = match (i, part.split_once("</b>")) {
            (0, _) | (_, None) => ("", part),
            (_, Some((m, r))) => (m, r),
        };
        if !marked.is_empty() {
            out.push_str("<mark>");
            out.push_str(&safe(marked));
            out.push_str("</mark>");
        }
        out.push_str(&safe(rest));
    }
    PreEscaped(out)
}

fn safe(escaped: &str) -> String {
    escaped.replace('<', "&lt;").replace('>', "&gt;")
}

/// Previous and next pages, and where this one stands.
pub(super) fn paging(query: &Query, page: &Page) -> Markup {
    let size = page_size(query);
    let last = (page.totalpage.max(1) as usize).min(MAX_WINDOW / size);
    html! {
        @if page.totalpage > 1 && page.page <= last {
            nav.paging aria-label="Pages" {
                @if page.page > 1 { a.prev rel="prev" href=(query.page(page.page - 1).href()) { "← Previous" } " " }
                span.where { "page " (count(page.page as u64)) " of " (count(last as u64)) }
                @if page.page < last { " " a.next rel="next" href=(query.page(page.page + 1).href()) { "Next →" } }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_mark_the_words_and_let_nothing_else_through() {
        let s = snippet("the <b>report</b> of &lt;b&gt; and <b>maps</b>").into_string();
        assert_eq!(
            s,
            "the <mark>report</mark> of &lt;b&gt; and <mark>maps</mark>"
        );
        let s = snippet("<b><script>x</script></b> y").into_string();
        assert_eq!(s, "<mark>&lt;script&gt;x&lt;/script&gt;</mark> y");
    }
}

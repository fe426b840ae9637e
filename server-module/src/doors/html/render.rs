//! The HTML of each part of a response: the page around it, and one [`Node`] at a time (an
//! Identify field, a format, a set, a header, a record, the resumption token, an error). maud
//! escapes every value; the few fixed fragments that open and close a table are literals.

use maud::{html, Markup, PreEscaped, DOCTYPE};
use modoai_protocol::crate_vocab::{attr, element};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};

use super::tree::Node;
use super::View;

/// Characters of a tool's output shown before "more".
const SUMMARY_CHARS: usize = 200;
/// Characters of a tool's output shown at most, in its details.
const DETAILS_CHARS: usize = 64 * 1024;
/// Leaf fields of an XML tool output shown as its findings.
const FINDINGS: usize = 8;

/// The top of the page, up to the start of the response's content.
pub(super) fn head(view: &View) -> Markup {
    html! {
        (DOCTYPE)
        (PreEscaped("<html lang=\"en\">"))
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            title { (view.repository) " — OAI-PMH" }
            style { (PreEscaped(STYLE)) }
        }
        (PreEscaped("<body>"))
        header {
            p.repo { (view.repository) }
            nav {
                a href="?verb=Identify" { "Identify" }
                a href="?verb=ListMetadataFormats" { "Formats" }
                a href="?verb=ListSets" { "Sets" }
                a href="?verb=ListIdentifiers&metadataPrefix=oai_dc" { "Identifiers" }
                a href="?verb=ListRecords&metadataPrefix=oai_dc" { "Records" }
            }
        }
        (PreEscaped("<main>"))
    }
}

/// The end of the page: the link to the same response as XML.
pub(super) fn foot(view: &View) -> Markup {
    html! {
        (PreEscaped("</main>"))
        footer {
            "This is the OAI-PMH response for people. Harvesters get "
            a.raw href=(view.raw_xml()) { "the same response as OAI-PMH XML" }
            "."
        }
        (PreEscaped("</body></html>"))
    }
}

/// The heading of a verb's answer, and the start of its table for the verbs that list rows.
pub(super) fn open_verb(verb: &str, request: &Node) -> Markup {
    let args: Vec<String> = request
        .attrs
        .iter()
        .filter(|(k, _)| k != "verb")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    html! {
        h1 { (verb) }
        @if !args.is_empty() { p.args { (args.join(", ")) } }
        (PreEscaped(match verb {
            "Identify" => "<table class=\"fields\">",
            "ListMetadataFormats" => "<table><thead><tr><th>metadataPrefix</th><th>schema</th><th>namespace</th></tr></thead><tbody>",
            "ListSets" => "<table><thead><tr><th>setSpec</th><th>setName</th><th>description</th></tr></thead><tbody>",
            "ListIdentifiers" => "<table><thead><tr><th>identifier</th><th>datestamp</th><th>sets</th></tr></thead><tbody>",
            _ => "",
        }))
    }
}

/// The end of the verb's table, if it has one.
pub(super) fn close_verb(verb: &str) -> Markup {
    PreEscaped(
        match verb {
            "Identify" => "</table>",
            "ListMetadataFormats" | "ListSets" | "ListIdentifiers" => "</tbody></table>",
            _ => "",
        }
        .to_owned(),
    )
}

/// One child of the verb's element.
pub(super) fn unit(view: &View, verb: &str, n: &Node) -> Markup {
    match (verb, n.name.as_str()) {
        (_, "resumptionToken") => token(view, n),
        ("Identify", _) => identify_field(n),
        (_, "metadataFormat") => format_row(n),
        (_, "set") => set_row(n),
        (_, "header") => header_row(view, n),
        (_, "record") => record(view, n),
        _ => html! { pre { (n.value()) } },
    }
}

fn identify_field(n: &Node) -> Markup {
    html! {
        tr {
            th { (n.name) }
            td {
                @if n.children.is_empty() {
                    @if n.name == "baseURL" { a href=(n.value()) { (n.value()) } } @else { (n.value()) }
                } @else {
                    (fields(n))
                }
            }
        }
    }
}

/// The leaf elements below `n` as a definition list (an Identify description).
fn fields(n: &Node) -> Markup {
    html! {
        dl {
            @for leaf in n.descendants().into_iter().filter(|d| d.children.is_empty()) {
                dt { (leaf.name) } dd { (leaf.value()) }
            }
        }
    }
}

fn format_row(n: &Node) -> Markup {
    let text = |name| n.child(name).map(Node::value).unwrap_or_default();
    let prefix = text("metadataPrefix");
    html! {
        tr {
            td { a href={ "?verb=ListRecords&metadataPrefix=" (q(prefix)) } { (prefix) } }
            td { a href=(text("schema")) { (text("schema")) } }
            td { (text("metadataNamespace")) }
        }
    }
}

fn set_row(n: &Node) -> Markup {
    let spec = n.child("setSpec").map(Node::value).unwrap_or_default();
    let name = n.child("setName").map(Node::value).unwrap_or_default();
    // A setDescription is a container of another format (oai_dc): its texts, in order.
    let description: Vec<&str> = n
        .child("setDescription")
        .map(|d| {
            d.descendants()
                .into_iter()
                .map(Node::value)
                .filter(|t| !t.is_empty())
                .collect()
        })
        .unwrap_or_default();
    html! {
        tr {
            td { a href={ "?verb=ListIdentifiers&metadataPrefix=oai_dc&set=" (q(spec)) } { (spec) } }
            td { (name) }
            td { (description.join(" ")) }
        }
    }
}

fn header_row(view: &View, n: &Node) -> Markup {
    let id = n.child("identifier").map(Node::value).unwrap_or_default();
    let deleted = n.attr("status") == Some("deleted");
    html! {
        tr.deleted[deleted] {
            td {
                a href={ "?verb=GetRecord&metadataPrefix=" (q(view.prefix())) "&identifier=" (q(id)) } { (id) }
                @if deleted { " " span.status { "deleted" } }
            }
            td.date { (n.child("datestamp").map(Node::value).unwrap_or_default()) }
            td { (sets(n)) }
        }
    }
}

fn sets(header: &Node) -> Markup {
    html! {
        @for s in header.children_named("setSpec") {
            a.set href={ "?verb=ListIdentifiers&metadataPrefix=oai_dc&set=" (q(s.value())) } { (s.value()) } " "
        }
    }
}

fn record(view: &View, n: &Node) -> Markup {
    let header = n.child("header").cloned().unwrap_or_default();
    let id = header
        .child("identifier")
        .map(Node::value)
        .unwrap_or_default();
    let deleted = header.attr("status") == Some("deleted");
    html! {
        article.record.deleted[deleted] {
            h2 {
                @if deleted { (id) " " span.status { "deleted" } }
                @else { a href=(id) { (id) } }
            }
            p.meta {
                "datestamp " (header.child("datestamp").map(Node::value).unwrap_or_default())
                " · sets " (sets(&header))
                " · " a href={ "?verb=GetRecord&metadataPrefix=" (q(view.prefix())) "&identifier=" (q(id)) } { "this record" }
            }
            @if let Some(metadata) = n.child("metadata").and_then(|m| m.children.first()) {
                @match metadata.name.as_str() {
                    "dc" => (dublin_core(metadata)),
                    "DIDL" => (didl(metadata)),
                    _ => pre { (metadata.value()) },
                }
            }
        }
    }
}

fn dublin_core(dc: &Node) -> Markup {
    html! {
        dl.dc {
            @for e in &dc.children { dt { (e.name) } dd { (e.value()) } }
        }
    }
}

/// A DIDL record: the file (linked, never its Base64), its HTTP headers, and for a CRATE the
/// findings of each tool.
fn didl(d: &Node) -> Markup {
    let all = d.descendants();
    let resources: Vec<&&Node> = all.iter().filter(|n| n.name == "Resource").collect();
    let headers: Vec<&&Node> = all.iter().filter(|n| n.name == "header").collect();
    let plugins: Vec<&&Node> = all.iter().filter(|n| n.name == element::PLUGIN).collect();
    html! {
        ul.files {
            @for r in &resources {
                li {
                    @if let Some(href) = r.attr("ref") {
                        "File (" (r.attr("mimeType").unwrap_or("")) "): " a href=(href) { (href) }
                    } @else {
                        "The file itself, inline as " (r.omitted) " characters of Base64 (not shown here; see the link above or the XML)"
                    }
                }
            }
        }
        @if !headers.is_empty() {
            details.http {
                summary { "HTTP headers of the file" }
                table.fields { @for h in &headers { tr { th { (h.attr("name").unwrap_or("")) } td { (h.value()) } } } }
            }
        }
        @if !plugins.is_empty() { (crate_table(&plugins)) }
    }
}

/// The CRATE's plugin results as a table: tool, version, status, time, findings.
fn crate_table(plugins: &[&&Node]) -> Markup {
    html! {
        table.crate {
            thead { tr { th { "tool" } th { "version" } th { "status" } th { "ms" } th { "findings" } } }
            tbody {
                @for p in plugins {
                    @let status = p.attr(attr::STATUS).unwrap_or("");
                    tr {
                        td { (p.attr(attr::LABEL).unwrap_or("")) }
                        td { (p.attr(attr::VERSION).unwrap_or("")) }
                        td { span class={ "status " (status) } { (status) } }
                        td.num { (p.attr(attr::DURATION_MS).unwrap_or("")) @if p.attr(attr::CACHED) == Some("true") { " (cached)" } }
                        td { (findings(p)) }
                    }
                }
            }
        }
    }
}

/// What a tool found: the first line of a text output, or the first leaf fields of an XML one;
/// the whole output (up to a limit) under "more".
fn findings(plugin: &Node) -> Markup {
    let Some(output) = plugin
        .child(element::OUTPUT)
        .or_else(|| plugin.child("note"))
    else {
        return html! { (plugin.value()) };
    };
    let full = all_text(output);
    let summary: Vec<String> = if output.children.is_empty() {
        vec![cut(
            full.lines().find(|l| !l.trim().is_empty()).unwrap_or(""),
            SUMMARY_CHARS,
        )]
    } else {
        output
            .descendants()
            .into_iter()
            .filter(|d| d.children.is_empty() && !d.value().is_empty())
            .take(FINDINGS)
            .map(|d| cut(&format!("{}: {}", d.name, d.value()), SUMMARY_CHARS))
            .collect()
    };
    html! {
        @for line in &summary { span.finding { (line) } br; }
        @if full.trim().chars().count() > summary.iter().map(|s| s.chars().count()).sum::<usize>() {
            details { summary { "more" } pre { (cut(&full, DETAILS_CHARS)) } }
        }
    }
}

/// The text of `n` and its descendants, in document order.
fn all_text(n: &Node) -> String {
    let mut s = n.text.clone();
    for c in &n.children {
        s.push_str(&all_text(c));
    }
    s
}

fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// The link to the next page, and where the list stands.
fn token(view: &View, n: &Node) -> Markup {
    let value = n.value();
    let size = n.attr("completeListSize");
    let cursor = n.attr("cursor").and_then(|c| c.parse::<u64>().ok());
    html! {
        nav.paging {
            @if let (Some(size), Some(cursor)) = (size, cursor) {
                span { "list of " (size) ", this page from item " (cursor + 1) }
            }
            @if value.is_empty() {
                span { " · the last page" }
            } @else {
                a.next rel="next" href={ "?verb=" (view.verb) "&resumptionToken=" (q(value)) } { "Next page →" }
            }
        }
    }
}

/// An OAI-PMH error, with what it means and what to do.
pub(super) fn error(n: &Node) -> Markup {
    let code = n.attr("code").unwrap_or("");
    html! {
        section.error {
            h1 { "Error: " (code) }
            p { (n.value()) }
            p.help { (explain(code)) }
        }
    }
}

fn explain(code: &str) -> &'static str {
    match code {
        "badArgument" => "The request has an argument this verb does not take, lacks one it needs, repeats one, or gives a value of the wrong form. The links above make valid requests.",
        "badResumptionToken" => "The resumption token is expired, damaged, or from an earlier run of the server. Start the list again from its first page.",
        "badVerb" => "The verb is missing, repeated, or not one of the six OAI-PMH verbs: Identify, ListMetadataFormats, ListSets, ListIdentifiers, ListRecords, GetRecord.",
        "cannotDisseminateFormat" => "This repository does not offer that metadataPrefix. See Formats for those it offers.",
        "idDoesNotExist" => "No record has this identifier. Identifiers are the URLs the files are served at.",
        "noRecordsMatch" => "No record matches this combination of from, until, set and metadataPrefix.",
        "noMetadataFormats" => "The item has no metadata format to offer.",
        "noSetHierarchy" => "This repository has no sets.",
        _ => "",
    }
}

/// A query value, percent-encoded.
fn q(value: &str) -> String {
    utf8_percent_encode(value, NON_ALPHANUMERIC).to_string()
}

const STYLE: &str = "
body{font:16px/1.45 system-ui,sans-serif;margin:0;color:#1b1f23;background:#fafafa}
header{background:#24364b;color:#fff;padding:.6em 1.2em;display:flex;flex-wrap:wrap;gap:1em;align-items:center}
header .repo{font-weight:600;margin:0;font-size:1.1em}
header nav a{color:#dbe7f5;margin-right:1em;text-decoration:none}
main{padding:0 1.2em 1.5em;max-width:72em}
h1{font-size:1.4em}.args{color:#555}
table{border-collapse:collapse;margin:.5em 0;background:#fff;width:100%}
th,td{border:1px solid #d5d9de;padding:.3em .5em;text-align:left;vertical-align:top}
table.fields th{width:14em;background:#f0f2f5}
article.record{background:#fff;border:1px solid #d5d9de;border-radius:6px;padding:.4em 1em;margin:1em 0}
article h2{font-size:1.05em;word-break:break-all}
.meta{color:#555;font-size:.9em}.set{font-size:.85em;margin-right:.3em}
dl.dc{display:grid;grid-template-columns:9em 1fr;gap:.1em .8em}dl.dc dt{color:#555}
.status{padding:0 .4em;border-radius:3px;background:#e4e8ee}.status.ok{background:#d6f0d8}
.status.error,.status.timeout,.status.failed,.status.limit,.status.missing,.status.config-error{background:#f8d7d7}
.deleted{opacity:.7}.num{text-align:right}.date{white-space:nowrap}
pre{white-space:pre-wrap;word-break:break-all;font-size:.85em;max-height:30em;overflow:auto}
nav.paging{margin:1em 0;font-size:1.05em}nav.paging a.next{margin-left:1em;font-weight:600}
.error{background:#fff4f4;border:1px solid #e5b5b5;padding:.2em 1em;border-radius:6px}
footer{padding:1em 1.2em;color:#555;border-top:1px solid #ddd}
";

//! The capture page (`/capture/ID`): what the archive knows about one capture. The memento
//! inline when a browser shows it as an image, linked otherwise; its fields and PWID; the CRATE's
//! findings as a table; the captures of the same bytes; and where to replay it. "Gone since"
//! when the file's URL was deleted after its last capture.

use axum::extract::Path;
use axum::response::IntoResponse;
use maud::{html, Markup};
use modoai_archive::facts::Facts;

use super::format::{count, cut, facet_value, plural, size, when};
use super::query::Query;
use super::{crate_table, layout, timeline};
use crate::capture::crate_facts;
use crate::index::Gone;
use crate::search::{gone_since, Facet, Item, Stored, SAME_BYTES};
use crate::web::links::{self, TimeMap};
use crate::web::{AppError, Caller, Public};

/// MIME types a browser draws in an `<img>`.
const IMAGES: [&str; 8] = [
    "image/jpeg",
    "image/png",
    "image/gif",
    "image/webp",
    "image/svg+xml",
    "image/bmp",
    "image/avif",
    "image/x-icon",
];
/// Characters of the indexed text shown.
const EXCERPT: usize = 1200;
/// Captures of the URL counted at most for the timeline's link.
const URL_CAPTURES: usize = 10_000;

/// Everything the page shows.
struct Shown {
    item: Item,
    stored: Stored,
    facts: Option<Facts>,
    same: Vec<Item>,
    of_url: usize,
    gone: Option<Gone>,
    replay: Option<String>,
}

/// `GET /capture/{id}`.
pub(super) async fn page(
    Path(id): Path<String>,
    caller: Caller<Public>,
) -> Result<impl IntoResponse, AppError> {
    let markup = caller
        .run(move |s, who| {
            let scope = who.scope();
            let (archive, item, stored) = s
                .library
                .capture(&id, &scope)?
                .ok_or_else(|| AppError::NotFound(format!("no capture {id:?} in this archive")))?;
            let dir = &s.library.archives()[archive].dir;
            let facts = stored.crate_at.as_ref().and_then(|at| crate_facts(dir, at));
            // Without a CRATE's, the explorer's own tool results (`index --tools`).
            let facts = facts.or_else(|| (!stored.tools.is_empty()).then(|| stored.tool_facts()));
            let same = s.library.same_bytes(&item.sha1, &scope, SAME_BYTES)?;
            let of_url = s.library.captures(&item.url, &scope, URL_CAPTURES)?;
            let deletions = s.library.deletions(&item.url, &scope)?;
            let gone = gone_since(&of_url, &deletions).cloned();
            let of_url = of_url.len();
            let replay =
                s.ui.replay
                    .as_ref()
                    .map(|base| format!("{base}{}/{}", item.timestamp, item.url));
            Ok(render(&Shown {
                item,
                stored,
                facts,
                same,
                of_url,
                gone,
                replay,
            }))
        })
        .await?;
    Ok((caller.rate_limit(), layout::html(markup)))
}

fn render(s: &Shown) -> Markup {
    let item = &s.item;
    let title = if item.title.trim().is_empty() {
        item.url.clone()
    } else {
        item.title.clone()
    };
    layout::page(
        &title,
        "",
        html! {
            article.capture data-id=(item.id) {
                h1 { (title) }
                p.url { (item.url) }
                p.when { "Captured " time datetime=(item.time) { (when(&item.time)) } }
                @if let Some(g) = &s.gone { (timeline::gone(g)) }
                (view(s))
                h2 { "The capture" }
                (fields(item, &s.stored))
                h2 { "What the metadata tools found (CRATE)" }
                @match &s.facts {
                    Some(f) if !f.plugins.is_empty() => (crate_table::table(f)),
                    _ => p.none { "This capture has no CRATE: it was harvested in a format without tool output (oai_dc or oai_didl), or its CRATE cannot be read." },
                }
                (same_bytes(s))
            }
        },
    )
}

/// The memento inline or linked, the replay links, the captures of the URL.
fn view(s: &Shown) -> Markup {
    let item = &s.item;
    let image = IMAGES.contains(&item.mime.split(';').next().unwrap_or("").trim());
    let memento = links::memento(&item.timestamp, &item.url);
    html! {
        section.view {
            @if image {
                figure.memento {
                    img src=(memento) alt=(format!("{} as archived", item.url));
                    figcaption { (item.mime) ", " (size(item.size)) }
                }
            }
            ul.open {
                li { a.memento href=(memento) { "Open the file as archived" } " (" (item.mime) ", " (size(item.size)) ", byte for byte)" }
                @if let Some(r) = &s.replay { li { a.replay href=(r) { "Replay in pywb" } " (links rewritten to the archive)" } }
                li { a.timeline href=(links::timeline(&item.url)) { (plural(s.of_url as u64, "capture", "captures")) " of this URL" } " on a timeline" }
                li { a href=(links::timemap(TimeMap::Link, &item.url)) { "Memento TimeMap" } }
            }
            @if !s.stored.excerpt.trim().is_empty() {
                details.excerpt {
                    summary { "Its text, as indexed" }
                    p { (cut(&s.stored.excerpt, EXCERPT)) }
                }
            }
        }
    }
}

fn fields(item: &Item, stored: &Stored) -> Markup {
    let narrow = |f: Facet, v: &str| Query::default().set(f.name(), v).href();
    html! {
        table.fields {
            @if let Some(p) = &item.pwid {
                tr { th { "PWID" } td { a.pwid href=(links::pwid(p)) { (p) } } }
            }
            tr { th { "MIME type" } td { a href=(narrow(Facet::Mime, &item.mime)) { (item.mime) } } }
            tr { th { "size" } td { (size(item.size)) " (" (count(item.size)) " bytes)" } }
            tr { th { "SHA-1" } td.mono { (item.sha1) } }
            @if let Some(f) = &item.format {
                tr { th { "format (PRONOM)" } td { (f) @if let Some(p) = &item.puid { " (" a href=(narrow(Facet::Puid, p)) { (p) } ")" } } }
            }
            @if let Some(j) = &item.jhove {
                tr { th { "JHOVE" } td { a class={ "jhove " (j) } href=(narrow(Facet::Jhove, j.as_str())) { (j) } } }
            }
            @if let Some(s) = &item.source { tr { th { "findings from" } td.source { (s) } } }
            @if let Some(l) = &item.lang { tr { th { "language" } td { (facet_value(Facet::Lang, l)) } } }
            @if let Some(d) = &item.exif_date { tr { th { "taken (EXIF)" } td { (d) } } }
            @if let Some(c) = &item.camera { tr { th { "camera" } td { (c) } } }
            @if let Some(g) = &item.gps { tr { th { "GPS position" } td { (g) } } }
            tr { th { "file datestamp" } td { (item.datestamp) } }
            tr { th { "OAI identifier" } td.mono { (item.identifier) } }
            @if !item.sets.is_empty() { tr { th { "OAI sets" } td { (item.sets.join(", ")) } } }
            tr { th { "endpoint" } td { a href=(narrow(Facet::Endpoint, &item.endpoint)) { (item.endpoint) } } }
            tr { th { "harvest" } td { (item.harvest) } }
            tr { th { "archive" } td { (item.archive) } }
            @if let Some(c) = &item.status { tr { th { "HTTP status" } td { a href=(narrow(Facet::Status, c)) { (c) } } } }
            @if let Some(to) = &item.redirect { tr { th { "redirects to" } td.mono { (to) } } }
            @for flag in &item.flags { tr { th { "problem" } td { a href=(narrow(Facet::Flag, flag)) { (flag) } } } }
            tr { th { "WARC record" } td.mono { (item.kind) " in " (stored.record.file) " at " (stored.record.offset) } }
            @if let Some(p) = &stored.problem { tr { th { "text" } td { "not extracted: " (p) } } }
        }
    }
}

fn same_bytes(s: &Shown) -> Markup {
    let others: Vec<&Item> = s.same.iter().filter(|i| i.id != s.item.id).collect();
    html! {
        h2 { "Captures of the same bytes" }
        @if others.is_empty() {
            p.none { "No other capture has these bytes." }
        } @else {
            ul.same {
                @for o in others {
                    li { a href=(links::capture(&o.id)) { (o.url) } " — " (when(&o.time)) ", " (o.harvest) }
                }
            }
        }
    }
}

//! The frame of every page: head, style, the header with its search box, the footer.

use axum::response::Html;
use maud::{html, Markup, DOCTYPE};

/// The style sheet, inline: one request per page, and nothing to serve besides.
const STYLE: &str = include_str!("style.css");

/// A whole page: `title` in the head and as the heading's text is the page's business; `q`
/// fills the header's search box.
pub(super) fn page(title: &str, q: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " — modoai explorer" }
                style { (maud::PreEscaped(STYLE)) }
            }
            body {
                header.top {
                    a.brand href="/" { "modoai explorer" }
                    form.find action="/search" method="get" role="search" {
                        input type="search" name="q" value=(q) placeholder="Words, \"a phrase\", title:word"
                            aria-label="Search the archive";
                        button type="submit" { "Search" }
                    }
                    nav {
                        a href="/" { "Browse" }
                        a href="/api" { "API" }
                    }
                }
                main { (body) }
                footer {
                    "Captures harvested with modoai-harvester; memento links serve the bytes as archived. "
                    "Programs: " a href="/api" { "the JSON API" } " and "
                    a href="/api/v1/openapi.json" { "its OpenAPI document" } "."
                }
            }
        }
    }
}

/// A page as an answer.
pub(super) fn html(markup: Markup) -> Html<String> {
    Html(markup.into_string())
}

//! The facet sidebar: for each facet its values with their counts, each a link that narrows the
//! results to it; a chosen value links back to the results without it.

use maud::{html, Markup};

use super::format::{count, counted_value, facet_label};
use super::query::Query;
use crate::search::{Facet, FacetValue, Page};

/// The facets of the sidebar (the calendar's are drawn by `calendar.rs`).
pub(super) const SIDEBAR: [Facet; 12] = [
    Facet::Host,
    Facet::Mime,
    Facet::Puid,
    Facet::Jhove,
    Facet::Lang,
    Facet::Set,
    Facet::Endpoint,
    Facet::Harvest,
    Facet::Archive,
    Facet::Status,
    Facet::Flag,
    Facet::Camera,
];

/// Values shown before "more".
const SHOWN: usize = 8;

/// The sidebar.
pub(super) fn sidebar(query: &Query, page: &Page) -> Markup {
    html! {
        h2.visually-hidden { "Narrow the results" }
        @for facet in SIDEBAR {
            @if let Some(values) = page.facets.get(facet.name()).filter(|v| !v.is_empty()) {
                section.facet data-facet=(facet.name()) {
                    h3 { (facet_label(facet)) }
                    ul {
                        @for v in values.iter().take(SHOWN) { (value(query, facet, v)) }
                    }
                    @if values.len() > SHOWN {
                        details {
                            summary { (values.len() - SHOWN) " more" }
                            ul { @for v in values.iter().skip(SHOWN) { (value(query, facet, v)) } }
                        }
                    }
                }
            }
        }
    }
}

fn value(query: &Query, facet: Facet, v: &FacetValue) -> Markup {
    let chosen = query.has(facet.name(), &v.value);
    let href = if chosen {
        query.without(facet.name(), Some(&v.value)).href()
    } else {
        query.with(facet.name(), &v.value).href()
    };
    html! {
        li.chosen[chosen] {
            a href=(href) title=(if chosen { "Show all again" } else { "Narrow to this" }) {
                span.value { (counted_value(facet, v)) }
                " "
                span.count { (count(v.count)) }
                @if chosen { " " span.remove aria-label="remove" { "×" } }
            }
        }
    }
}

//! The share of MIME types and of formats (PRONOM) among the matching captures, as pie charts
//! drawn here in SVG, each with a legend whose entries narrow the results to a type.

use maud::{html, Markup};

use super::format::{count, counted_value};
use super::query::Query;
use crate::search::{Facet, Page};

/// Slices drawn before the rest is "other".
const SLICES: usize = 7;
/// Slice colours, in order.
const PALETTE: [&str; 8] = [
    "#3b6ea8", "#e07b39", "#5a9e5a", "#c44e52", "#8172b2", "#c9a227", "#4aa3b5", "#9a9a9a",
];
/// The pie's radius and centre, in SVG units.
const R: f64 = 60.0;
const C: f64 = 64.0;

/// One slice: a label, its captures, and the link that narrows to it (none for "other").
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Slice {
    pub(super) label: String,
    pub(super) count: u64,
    pub(super) href: Option<String>,
}

/// The MIME type and format charts of a result set.
pub(super) fn shares(query: &Query, page: &Page) -> Markup {
    html! {
        @if page.total > 0 {
            section.shares {
                h2 { "What" }
                div.pies {
                    (pie("MIME types", "mime", &slices(query, page, Facet::Mime, "other types")))
                    (pie("Formats (PRONOM)", "puid", &slices(query, page, Facet::Puid, "not identified")))
                }
            }
        }
    }
}

/// The slices of a facet: its most frequent values, then the rest of the total as `rest`.
fn slices(query: &Query, page: &Page, facet: Facet, rest: &str) -> Vec<Slice> {
    let values = page.facets.get(facet.name()).cloned().unwrap_or_default();
    let mut out: Vec<Slice> = values
        .iter()
        .take(SLICES)
        .map(|v| Slice {
            label: counted_value(facet, v),
            count: v.count,
            href: Some(query.with(facet.name(), &v.value).href()),
        })
        .collect();
    let shown: u64 = out.iter().map(|s| s.count).sum();
    if page.total > shown {
        out.push(Slice {
            label: rest.to_owned(),
            count: page.total - shown,
            href: None,
        });
    }
    out
}

/// A point on the circle at `fraction` of a turn, clockwise from twelve o'clock.
fn point(fraction: f64) -> (f64, f64) {
    let a = fraction * std::f64::consts::TAU;
    (C + R * a.sin(), C - R * a.cos())
}

/// The SVG path of a slice from `from` to `to` (fractions of a turn).
pub(super) fn arc(from: f64, to: f64) -> String {
    let (x1, y1) = point(from);
    let (x2, y2) = point(to);
    let large = u8::from(to - from > 0.5);
    format!("M{C},{C} L{x1:.2},{y1:.2} A{R},{R} 0 {large} 1 {x2:.2},{y2:.2} Z")
}

/// A pie with its legend.
fn pie(title: &str, facet: &str, slices: &[Slice]) -> Markup {
    let total: u64 = slices.iter().map(|s| s.count).sum::<u64>().max(1);
    let mut at = 0.0;
    let shapes: Vec<(String, &Slice, &str)> = slices
        .iter()
        .zip(PALETTE.iter().cycle())
        .map(|(s, colour)| {
            let share = s.count as f64 / total as f64;
            let d = arc(at, at + share);
            at += share;
            (d, s, *colour)
        })
        .collect();
    html! {
        figure.pie data-facet=(facet) {
            figcaption { (title) }
            svg viewBox={ "0 0 " (C * 2.0) " " (C * 2.0) } width="128" height="128" role="img" aria-label=(title) {
                @for (d, s, colour) in &shapes {
                    @let label = format!("{}: {} ({})", s.label, count(s.count), percent(s.count, total));
                    @if s.count == total {
                        circle cx=(C) cy=(C) r=(R) fill=(colour) { title { (label) } }
                    } @else {
                        path d=(d) fill=(colour) stroke="#fff" stroke-width="1" { title { (label) } }
                    }
                }
            }
            ul.legend {
                @for (_, s, colour) in &shapes {
                    li {
                        span.swatch style=(format!("background:{colour}")) {}
                        @match &s.href {
                            Some(h) => { a href=(h) { span.value { (s.label) } } }
                            None => { span.value { (s.label) } }
                        }
                        " " span.count { (count(s.count)) } " " span.share { (percent(s.count, total)) }
                    }
                }
            }
        }
    }
}

/// `n` of `total` as a whole percentage (`< 1 %` for a small share).
fn percent(n: u64, total: u64) -> String {
    let p = n as f64 * 100.0 / total.max(1) as f64;
    if n > 0 && p < 1.0 {
        "< 1 %".into()
    } else {
        format!("{} %", p.round())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_start_at_twelve_and_turn_clockwise() {
        assert_eq!(
            arc(0.0, 0.25),
            "M64,64 L64.00,4.00 A60,60 0 0 1 124.00,64.00 Z"
        );
        assert_eq!(
            arc(0.25, 0.9).split(' ').nth(4),
            Some("1"),
            "more than half: the large arc"
        );
        assert_eq!(percent(1, 3), "33 %");
        assert_eq!(percent(1, 1000), "< 1 %");
        assert_eq!(percent(0, 0), "0 %");
    }

    #[test]
    fn a_pie_has_a_slice_and_a_legend_entry_per_value_and_one_whole_circle_alone() {
        let s = |label: &str, count| Slice {
            label: label.into(),
            count,
            href: Some(format!("/search?mime={label}")),
        };
        let html = pie("t", "mime", &[s("a", 3), s("b", 1)]).into_string();
        assert_eq!(html.matches("<path").count(), 2);
        assert!(
            html.contains("a: 3 (75 %)") && html.contains("b: 1 (25 %)"),
            "{html}"
        );
        let html = pie("t", "mime", &[s("a", 3)]).into_string();
        assert_eq!(
            (
                html.matches("<circle").count(),
                html.matches("<path").count()
            ),
            (1, 0)
        );
    }
}

//! PrEV's hierarchical calendar of the matching captures: the years, then the months of a chosen
//! year, then the days of a chosen month, with the captures of each period; every period is a
//! link that narrows the results (and the word cloud) to it, and the path above it leads back.

use std::collections::BTreeMap;

use maud::{html, Markup};
use time::{Date, Month, Weekday};

use super::format::{count, plural};
use super::query::Query;
use crate::search::{Facet, FacetValue};

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
/// Years drawn with the empty years between them filled in, at most.
const SPAN: i32 = 60;

/// Which periods the calendar shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Level {
    /// Every year.
    Years,
    /// The months of a year.
    Months(i32),
    /// The days of a month.
    Days(i32, Month),
}

/// The level a query asks for: the deepest calendar filter's period, one level down.
pub(super) fn level(query: &Query) -> Level {
    let month = |v: &str| -> Option<(i32, Month)> {
        let y = v.get(..4)?.parse().ok()?;
        let m: u8 = v.get(5..7)?.parse().ok()?;
        Some((y, Month::try_from(m).ok()?))
    };
    if let Some((y, m)) = query.first("day").or(query.first("month")).and_then(month) {
        return Level::Days(y, m);
    }
    match query.first("year").and_then(|y| y.parse().ok()) {
        Some(y) => Level::Months(y),
        None => Level::Years,
    }
}

/// The calendar facets a query's level needs counted.
pub(super) fn facets(query: &Query) -> Vec<Facet> {
    match level(query) {
        Level::Years => vec![Facet::Year],
        Level::Months(_) => vec![Facet::Year, Facet::Month],
        Level::Days(..) => vec![Facet::Year, Facet::Month, Facet::Day],
    }
}

fn at_year(query: &Query, y: i32) -> String {
    query
        .without("month", None)
        .without("day", None)
        .set("year", &y.to_string())
        .href()
}

fn at_month(query: &Query, y: i32, m: Month) -> String {
    query
        .without("day", None)
        .set("year", &y.to_string())
        .set("month", &format!("{y:04}-{:02}", m as u8))
        .href()
}

fn at_day(query: &Query, d: Date) -> String {
    query
        .set("year", &d.year().to_string())
        .set("month", &format!("{:04}-{:02}", d.year(), d.month() as u8))
        .set("day", &d.to_string())
        .href()
}

/// The counts of a facet by value.
fn counts(facets: &BTreeMap<String, Vec<FacetValue>>, f: Facet) -> BTreeMap<String, u64> {
    facets
        .get(f.name())
        .map(|v| v.iter().map(|v| (v.value.clone(), v.count)).collect())
        .unwrap_or_default()
}

/// The calendar of a result set.
pub(super) fn calendar(query: &Query, facets: &BTreeMap<String, Vec<FacetValue>>) -> Markup {
    let level = level(query);
    let (name, body) = match level {
        Level::Years => ("years", years(query, &counts(facets, Facet::Year))),
        Level::Months(y) => ("months", months(query, y, &counts(facets, Facet::Month))),
        Level::Days(y, m) => ("days", days(query, y, m, &counts(facets, Facet::Day))),
    };
    html! {
        section.calendar data-level=(name) {
            h2 { "When" }
            (crumbs(query, level))
            (body)
        }
    }
}

/// The path from all years to the level shown.
fn crumbs(query: &Query, level: Level) -> Markup {
    let all = query
        .without("year", None)
        .without("month", None)
        .without("day", None)
        .href();
    html! {
        nav.crumbs aria-label="Calendar level" {
            @match level {
                Level::Years => { span { "All years" } }
                Level::Months(y) => { a href=(all) { "All years" } " › " span { (y) } }
                Level::Days(y, m) => {
                    a href=(all) { "All years" } " › " a href=(at_year(query, y)) { (y) }
                    " › " span { (MONTHS[m as usize - 1]) " " (y) }
                }
            }
        }
    }
}

/// One bar per period: its count, its height relative to the largest.
fn bars(entries: &[(String, String, u64)]) -> Markup {
    let max = entries.iter().map(|e| e.2).max().unwrap_or(0).max(1);
    html! {
        ol.bars {
            @for (label, href, n) in entries {
                li {
                    a href=(href) title=(format!("{label}: {}", plural(*n, "capture", "captures"))) {
                        span.count { (count(*n)) }
                        span.track { span.bar style=(format!("height:{}%", n * 100 / max)) {} }
                        span.label { (label) }
                    }
                }
            }
        }
    }
}

fn years(query: &Query, counts: &BTreeMap<String, u64>) -> Markup {
    let years: Vec<i32> = counts.keys().filter_map(|y| y.parse().ok()).collect();
    let (Some(&first), Some(&last)) = (years.first(), years.last()) else {
        return html! { p.none { "No captures." } };
    };
    let shown: Vec<i32> = if last - first < SPAN {
        (first..=last).collect()
    } else {
        years
    };
    let entries: Vec<(String, String, u64)> = shown
        .into_iter()
        .map(|y| {
            let n = counts.get(&y.to_string()).copied().unwrap_or(0);
            (y.to_string(), at_year(query, y), n)
        })
        .collect();
    bars(&entries)
}

fn months(query: &Query, y: i32, counts: &BTreeMap<String, u64>) -> Markup {
    let entries: Vec<(String, String, u64)> = (1..=12u8)
        .filter_map(|m| Month::try_from(m).ok())
        .map(|m| {
            let key = format!("{y:04}-{:02}", m as u8);
            let n = counts.get(&key).copied().unwrap_or(0);
            (MONTHS[m as usize - 1].to_owned(), at_month(query, y, m), n)
        })
        .collect();
    bars(&entries)
}

/// The month as a grid of weeks, Monday first; days with captures are links.
fn days(query: &Query, y: i32, m: Month, counts: &BTreeMap<String, u64>) -> Markup {
    let Ok(first) = Date::from_calendar_date(y, m, 1) else {
        return html! { p.none { "No such month." } };
    };
    let chosen = query.first("day");
    let max = counts.values().copied().max().unwrap_or(0).max(1);
    let lead = first.weekday().number_days_from_monday() as usize;
    let mut cells: Vec<Option<Date>> = vec![None; lead];
    cells.extend((1..=m.length(y)).filter_map(|d| first.replace_day(d).ok().map(Some)));
    cells.resize(cells.len().div_ceil(7) * 7, None);
    html! {
        table.month {
            thead { tr { @for d in weekdays() { th scope="col" { (d) } } } }
            tbody {
                @for week in cells.chunks(7) {
                    tr {
                        @for cell in week {
                            @match cell {
                                None => td.empty {},
                                Some(d) => (day(query, *d, counts, max, chosen)),
                            }
                        }
                    }
                }
            }
        }
    }
}

fn day(
    query: &Query,
    d: Date,
    counts: &BTreeMap<String, u64>,
    max: u64,
    chosen: Option<&str>,
) -> Markup {
    let key = d.to_string();
    let n = counts.get(&key).copied().unwrap_or(0);
    // Four shades, by the share of the busiest day.
    let shade = if n == 0 { 0 } else { 1 + (n * 3 / max) };
    let class = if chosen == Some(key.as_str()) {
        format!("l{shade} chosen")
    } else {
        format!("l{shade}")
    };
    html! {
        td class=(class) data-day=(key) {
            @if n > 0 {
                a href=(at_day(query, d)) title=(format!("{key}: {}", plural(n, "capture", "captures"))) {
                    span.label { (d.day()) } span.count { (count(n)) }
                }
            } @else {
                span.label { (d.day()) }
            }
        }
    }
}

fn weekdays() -> impl Iterator<Item = &'static str> {
    let mut d = Weekday::Monday;
    (0..7).map(move |_| {
        let name = match d {
            Weekday::Monday => "Mo",
            Weekday::Tuesday => "Tu",
            Weekday::Wednesday => "We",
            Weekday::Thursday => "Th",
            Weekday::Friday => "Fr",
            Weekday::Saturday => "Sa",
            Weekday::Sunday => "Su",
        };
        d = d.next();
        name
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Query {
        Query::parse(Some(s.to_owned())).unwrap()
    }

    #[test]
    fn the_deepest_filter_chooses_the_level_and_links_move_down() {
        assert_eq!(level(&q("q=x")), Level::Years);
        assert_eq!(level(&q("year=2024")), Level::Months(2024));
        assert_eq!(
            level(&q("year=2024&month=2024-02")),
            Level::Days(2024, Month::February)
        );
        assert_eq!(
            level(&q("day=2024-02-29")),
            Level::Days(2024, Month::February)
        );
        assert_eq!(level(&q("year=nonsense")), Level::Years);
        assert_eq!(
            facets(&q("month=2024-02")),
            [Facet::Year, Facet::Month, Facet::Day]
        );
        let base = q("q=x&year=2023&month=2023-05&day=2023-05-01");
        assert_eq!(at_year(&base, 2024), "/search?q=x&year=2024");
        assert_eq!(
            at_month(&q("q=x&year=2024"), 2024, Month::March),
            "/search?q=x&year=2024&month=2024-03"
        );
    }

    #[test]
    fn a_month_is_a_grid_of_weeks_from_monday() {
        // February 2024 starts on a Thursday and has 29 days: 3 empty cells, then 29 days.
        let counts = BTreeMap::from([("2024-02-29".to_owned(), 4), ("2024-02-01".to_owned(), 1)]);
        let html = days(
            &q("year=2024&month=2024-02"),
            2024,
            Month::February,
            &counts,
        )
        .into_string();
        assert_eq!(
            html.matches("<td class=\"empty\">").count(),
            3 + 3,
            "before the 1st and after the 29th"
        );
        assert_eq!(html.matches("data-day=").count(), 29);
        assert_eq!(
            html.matches("<a ").count(),
            2,
            "only days with captures are links"
        );
        assert!(html.contains("day=2024-02-29"), "{html}");
    }
}

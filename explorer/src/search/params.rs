//! The parameters of a search, checked: every mistake is a message saying what is wrong.

use std::time::Duration;

use time::macros::format_description;
use time::{Date, OffsetDateTime, PrimitiveDateTime};

use super::cursor::Cursor;
use super::facet::{Facet, DEFAULT};

/// Results per page at most.
pub const MAX_SIZE: usize = 100;
/// Hits a query can page through at most (`(page + 1) * size`).
pub const MAX_WINDOW: usize = 10_000;

/// How results are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sort {
    /// Best match first (BM25).
    Relevance,
    /// Latest capture first.
    Newest,
    /// Earliest capture first.
    Oldest,
    /// An even sample of all matches, in an order fixed by each document's place in its index
    /// (not a parameter: the word cloud's, so that it describes every match whatever the order
    /// of the results).
    Sample,
}

/// A checked search request.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchParams {
    /// The query text (tantivy's query language); empty: every capture.
    pub q: String,
    /// Facet filters: a capture matches when, for every facet named, it has one of the values.
    pub filters: Vec<(Facet, String)>,
    /// Captures from this time on.
    pub from: Option<OffsetDateTime>,
    /// Captures until this time (inclusive).
    pub until: Option<OffsetDateTime>,
    /// The page as an index, from 0 (`page=1`, the first page, is 0).
    pub page: usize,
    /// Results per page.
    pub size: usize,
    /// Order.
    pub sort: Sort,
    /// Facets to count.
    pub facets: Vec<Facet>,
    /// One result per SHA-1 in the page, with the number of captures of the same bytes.
    pub group_sha1: bool,
    /// A time budget shorter than the server's, if the caller asks for one.
    pub budget: Option<Duration>,
    /// The page after this cursor (the `next` of the previous answer) instead of `page`.
    pub after: Option<Cursor>,
    /// Only the captures that are parts with a PWID (not a parameter: a corpus export's, whose
    /// parts are exactly those).
    pub parts_only: bool,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            q: String::new(),
            filters: Vec::new(),
            from: None,
            until: None,
            page: 0,
            size: 10,
            sort: Sort::Relevance,
            facets: DEFAULT.to_vec(),
            group_sha1: false,
            budget: None,
            after: None,
            parts_only: false,
        }
    }
}

impl SearchParams {
    /// Reads query-string pairs. Unknown names and bad values are errors with a message.
    pub fn parse(pairs: &[(String, String)]) -> Result<SearchParams, String> {
        let mut p = SearchParams::default();
        let mut sort = None;
        for (name, value) in pairs {
            match name.as_str() {
                "q" => p.q = value.clone(),
                "from" | "until" if value.is_empty() => {}
                "from" => p.from = Some(date(name, value, false)?),
                "until" => p.until = Some(date(name, value, true)?),
                // Pages count from 1; 0, the first page of links made when they counted from 0,
                // is the first page still.
                "page" => p.page = number(name, value, 0, usize::MAX)?.saturating_sub(1),
                "size" => p.size = number(name, value, 1, MAX_SIZE)?,
                "sort" => sort = Some(value.as_str()),
                "facets" => p.facets = facets(value)?,
                "group" if value == "sha1" => p.group_sha1 = true,
                "group" => return Err(format!("group={value:?}: the only grouping is group=sha1")),
                "after" if value.is_empty() => {}
                "after" => p.after = Some(Cursor::decode(value).map_err(|e| e.to_string())?),
                "timeout_ms" => {
                    p.budget = Some(Duration::from_millis(number(name, value, 0, 60_000)? as u64))
                }
                other => {
                    let facet: Facet = other.parse().map_err(|_| {
                        format!("unknown parameter {other:?}: use q, from, until, page, after, size, sort, facets, group, timeout_ms or a facet name")
                    })?;
                    calendar_value(facet, value)?;
                    p.filters.push((facet, value.clone()));
                }
            }
        }
        p.sort = match sort {
            None if p.q.trim().is_empty() => Sort::Newest,
            None | Some("relevance") => Sort::Relevance,
            Some("newest") => Sort::Newest,
            Some("oldest") => Sort::Oldest,
            Some(other) => return Err(format!("sort={other:?}: use relevance, newest or oldest")),
        };
        if p.after.is_some() && (p.page > 0 || p.group_sha1) {
            return Err(
                "after= continues a search page by page: give it without page= and group=".into(),
            );
        }
        if (p.page.saturating_add(1)).saturating_mul(p.size) > MAX_WINDOW {
            return Err(format!(
                "page {} of {} results goes past the first {MAX_WINDOW} results; narrow the query, \
                 or page by cursor: pass each answer's `next` as after=",
                p.page + 1,
                p.size
            ));
        }
        if let (Some(f), Some(u)) = (p.from, p.until) {
            if f > u {
                return Err("from is after until".into());
            }
        }
        Ok(p)
    }
}

/// Checks the value of a calendar facet as a bad `from=` is checked: `year=` is `YYYY`,
/// `month=` `YYYY-MM`, `day=` `YYYY-MM-DD`, each a real period (no month 13, no 30 February).
fn calendar_value(facet: Facet, value: &str) -> Result<(), String> {
    let (form, len) = match facet {
        Facet::Year => ("YYYY", 4),
        Facet::Month => ("YYYY-MM", 7),
        Facet::Day => ("YYYY-MM-DD", 10),
        _ => return Ok(()),
    };
    // An empty value is a form's empty field, as for `from=`: left as it was, not refused.
    if value.is_empty() {
        return Ok(());
    }
    let name = facet.name();
    let is_date = value.len() == len
        && value.bytes().take(4).all(|b| b.is_ascii_digit())
        && date(name, value, false).is_ok();
    if is_date {
        Ok(())
    } else {
        Err(format!("{name}={value:?} is not a date: use {form}"))
    }
}

fn number(name: &str, value: &str, min: usize, max: usize) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "{name}={value:?} is not a whole number from {min} to {max}"
        )),
    }
}

fn facets(value: &str) -> Result<Vec<Facet>, String> {
    if value.is_empty() {
        return Ok(Vec::new());
    }
    let mut out: Vec<Facet> = Vec::new();
    for name in value.split(',') {
        let f: Facet = name.trim().parse()?;
        if !out.contains(&f) {
            out.push(f);
        }
    }
    Ok(out)
}

/// `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, `YYYY-MM-DDThh:mm:ssZ` or 14 digits; a partial date is the
/// start of its period, or its end when `end`.
pub fn date(name: &str, value: &str, end: bool) -> Result<OffsetDateTime, String> {
    let bad = || {
        format!("{name}={value:?} is not a date: use YYYY, YYYY-MM, YYYY-MM-DD, YYYY-MM-DDThh:mm:ssZ or YYYYMMDDhhmmss")
    };
    if let Ok(t) = OffsetDateTime::parse(value, &time::format_description::well_known::Rfc3339) {
        return Ok(t);
    }
    if value.len() == 14 && value.bytes().all(|b| b.is_ascii_digit()) {
        return PrimitiveDateTime::parse(
            value,
            format_description!("[year][month][day][hour][minute][second]"),
        )
        .map(PrimitiveDateTime::assume_utc)
        .map_err(|_| bad());
    }
    let (start, next): (Date, Date) = match value.len() {
        4 => {
            let y: i32 = value.parse().map_err(|_| bad())?;
            let start = Date::from_ordinal_date(y, 1).map_err(|_| bad())?;
            (start, Date::from_ordinal_date(y + 1, 1).map_err(|_| bad())?)
        }
        7 => {
            let start = Date::parse(
                &format!("{value}-01"),
                format_description!("[year]-[month]-[day]"),
            )
            .map_err(|_| bad())?;
            let next = start
                .replace_day(28)
                .ok()
                .and_then(|d| d.checked_add(time::Duration::days(4)))
                .and_then(|d| d.replace_day(1).ok())
                .ok_or_else(bad)?;
            (start, next)
        }
        10 => {
            let d = Date::parse(value, format_description!("[year]-[month]-[day]"))
                .map_err(|_| bad())?;
            (d, d.next_day().ok_or_else(bad)?)
        }
        _ => return Err(bad()),
    };
    let at = if end {
        next.midnight().assume_utc() - time::Duration::SECOND
    } else {
        start.midnight().assume_utc()
    };
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(q: &str) -> Result<SearchParams, String> {
        let pairs: Vec<(String, String)> = q
            .split('&')
            .filter(|s| !s.is_empty())
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                (k.to_owned(), v.to_owned())
            })
            .collect();
        SearchParams::parse(&pairs)
    }

    #[test]
    fn good_parameters() {
        let p = parse("q=sunset&host=a.org&host=b.org&year=2024&size=20&page=2&facets=month,day")
            .unwrap();
        assert_eq!(p.q, "sunset");
        assert_eq!(p.filters.len(), 3);
        assert_eq!(
            (p.page, p.size, p.sort),
            (1, 20, Sort::Relevance),
            "page 2 is index 1"
        );
        assert_eq!(parse("page=1").unwrap().page, 0);
        assert_eq!(
            parse("page=0").unwrap().page,
            0,
            "old first-page links still work"
        );
        assert_eq!(p.facets, [Facet::Month, Facet::Day]);
        assert_eq!(parse("").unwrap().sort, Sort::Newest);
        let p = parse("from=2024-02&until=2024-02").unwrap();
        assert_eq!(
            p.from.unwrap().to_string(),
            "2024-02-01 0:00:00.0 +00:00:00"
        );
        assert_eq!(
            p.until.unwrap().to_string(),
            "2024-02-29 23:59:59.0 +00:00:00"
        );
        assert_eq!(parse("until=2023").unwrap().until.unwrap().year(), 2023);
        assert!(
            parse("from=&until=").unwrap().from.is_none(),
            "empty: no bound"
        );
        assert_eq!(parse("until=0000-01").unwrap().until.unwrap().year(), 0);
        assert_eq!(
            parse("year=2024&month=2024-02&day=2024-02-29")
                .unwrap()
                .filters
                .len(),
            3
        );
    }

    #[test]
    fn mistakes_say_what_is_wrong() {
        for (q, says) in [
            ("size=0", "size"),
            ("size=1000", "size"),
            ("page=-1", "page"),
            ("sort=best", "sort"),
            ("colour=red", "unknown parameter"),
            ("facets=year,colour", "not a facet"),
            ("from=yesterday", "not a date"),
            ("from=2024-13-01", "not a date"),
            ("from=2025&until=2024", "after"),
            ("page=5000&size=100", "narrow"),
            ("page=101&size=100", "page 101 of 100"),
            ("group=host", "group=sha1"),
            ("page=5000&size=100", "after="),
            ("after=nonsense", "not a cursor"),
            ("year=abcd", "year=\"abcd\" is not a date: use YYYY"),
            ("year=20245", "not a date"),
            (
                "month=2026-13",
                "month=\"2026-13\" is not a date: use YYYY-MM",
            ),
            ("month=2026", "not a date"),
            (
                "day=2026-02-30",
                "day=\"2026-02-30\" is not a date: use YYYY-MM-DD",
            ),
            ("day=2026-02-3x", "not a date"),
        ] {
            let e = parse(q).unwrap_err();
            assert!(e.contains(says), "{q}: {e}");
        }
    }

    #[test]
    fn a_cursor_is_read_and_goes_without_page_and_grouping() {
        let c = Cursor {
            key: 1.5,
            part: 0,
            addr: tantivy::DocAddress::new(0, 9),
            page: 1,
            search: 1,
            state: 2,
        };
        let token = c.encode();
        assert_eq!(parse(&format!("after={token}")).unwrap().after, Some(c));
        assert_eq!(
            parse("after=").unwrap().after,
            None,
            "empty: the first page"
        );
        for q in [
            format!("page=2&after={token}"),
            format!("group=sha1&after={token}"),
        ] {
            assert!(parse(&q).unwrap_err().contains("without page="), "{q}");
        }
    }
}

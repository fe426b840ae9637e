//! The timeline of a URL (`/timeline?url=URL`): its captures on a time axis (SVG, each capture a
//! link to its page), and as a list that says which ones changed the bytes, with the deletions of
//! the file between them; "Gone since" when the last of them is a deletion.

use axum::response::IntoResponse;
use maud::{html, Markup};
use time::format_description::well_known::Rfc3339;
use time::{Date, Month, OffsetDateTime, Time};

use super::format::{plural, size, when, when14};
use super::layout;
use crate::index::Gone;
use crate::search::{after, gone_since, Item};
use crate::web::links::{self, TimeMap};
use crate::web::{AppError, Caller, FromPairs, Pairs, Params, Public};

/// Captures drawn at most.
const MAX: usize = 10_000;
/// The axis's size and margins, in SVG units.
const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 96.0;
const MARGIN: f64 = 30.0;
const AXIS_Y: f64 = 64.0;
/// Ticks on the axis at most.
const TICKS: usize = 12;

/// The URL of `/timeline?url=URL`, the only parameter.
pub(super) struct Of(String);

impl FromPairs for Of {
    fn from_pairs(pairs: Pairs) -> Result<Self, AppError> {
        match pairs.as_slice() {
            [(k, v)] if k == "url" && !v.trim().is_empty() => Ok(Of(v.clone())),
            _ => Err(AppError::BadRequest(
                "give the URL: /timeline?url=URL".to_owned(),
            )),
        }
    }
}

/// `GET /timeline?url=URL`.
pub(super) async fn page(
    Params(Of(url)): Params<Of>,
    caller: Caller<Public>,
) -> Result<impl IntoResponse, AppError> {
    let markup = caller
        .run(move |s, who| {
            let items = s.library.captures(&url, &who.scope(), MAX)?;
            if items.is_empty() {
                return Err(AppError::NotFound(format!(
                    "no capture of {url} in this archive"
                )));
            }
            let deletions = s.library.deletions(&url, &who.scope())?;
            Ok(render(&url, &items, &deletions))
        })
        .await?;
    Ok((caller.rate_limit(), layout::html(markup)))
}

fn time_of(item: &Item) -> OffsetDateTime {
    OffsetDateTime::parse(&item.time, &Rfc3339).unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

fn render(url: &str, items: &[Item], deletions: &[Gone]) -> Markup {
    let (first, last) = (&items[0], &items[items.len() - 1]);
    layout::page(
        &format!("Captures of {url}"),
        "",
        html! {
            h1.timeline-title { "Captures of " span.url { (url) } }
            p { (plural(items.len() as u64, "capture", "captures")) ", from " (when(&first.time)) " to " (when(&last.time)) ". "
                a href=(links::timemap(TimeMap::Link, url)) { "Memento TimeMap" } }
            @if let Some(g) = gone_since(items, deletions) { (gone(g)) }
            (axis(items))
            (list(items, deletions))
        },
    )
}

/// The x of `t` on an axis from `t0` to `t1`.
fn x_of(t: OffsetDateTime, t0: OffsetDateTime, t1: OffsetDateTime) -> f64 {
    let span = (t1 - t0).as_seconds_f64();
    if span <= 0.0 {
        return WIDTH / 2.0;
    }
    MARGIN + (t - t0).as_seconds_f64() / span * (WIDTH - 2.0 * MARGIN)
}

/// The captures on a time axis: a dot per capture (stacked where they would overlap), ticks at
/// round times.
fn axis(items: &[Item]) -> Markup {
    let times: Vec<OffsetDateTime> = items.iter().map(time_of).collect();
    let (t0, t1) = (times[0], times[times.len() - 1]);
    let mut dots: Vec<(f64, f64)> = Vec::new();
    for t in &times {
        let x = x_of(*t, t0, t1);
        let level = dots
            .iter()
            .rev()
            .take_while(|(px, _)| (x - px).abs() < 8.0)
            .count()
            .min(5);
        dots.push((x, AXIS_Y - 10.0 - level as f64 * 9.0));
    }
    html! {
        svg.timeline viewBox={ "0 0 " (WIDTH) " " (HEIGHT) } role="img" aria-label="Captures on a time axis" {
            line x1=(MARGIN) y1=(AXIS_Y) x2=(WIDTH - MARGIN) y2=(AXIS_Y) stroke="#777" stroke-width="1" {}
            @for (t, label) in ticks(t0, t1) {
                @let x = x_of(t, t0, t1);
                line x1=(format!("{x:.1}")) y1=(AXIS_Y) x2=(format!("{x:.1}")) y2=(AXIS_Y + 5.0) stroke="#777" {}
                text.tick x=(format!("{x:.1}")) y=(AXIS_Y + 18.0) text-anchor="middle" font-size="11" fill="#444" { (label) }
            }
            @for (item, (x, y)) in items.iter().zip(&dots) {
                a href=(links::capture(&item.id)) {
                    title { (when(&item.time)) ", " (item.mime) ", " (size(item.size)) }
                    circle.capture cx=(format!("{x:.1}")) cy=(format!("{y:.1}")) r="4" fill="#3b6ea8" {}
                }
            }
        }
    }
}

/// Round times between `t0` and `t1`, in the largest unit that gives at least two ticks (years,
/// months, days, hours, minutes), thinned to at most [`TICKS`], with their labels.
fn ticks(t0: OffsetDateTime, t1: OffsetDateTime) -> Vec<(OffsetDateTime, String)> {
    type Step = fn(OffsetDateTime) -> Option<OffsetDateTime>;
    type Label = fn(OffsetDateTime) -> String;
    let units: [(Step, Label); 5] = [
        (next_year, |t| t.year().to_string()),
        (next_month, |t| {
            format!("{}-{:02}", t.year(), t.month() as u8)
        }),
        (
            |t| round(t, t.date().next_day()?, Time::MIDNIGHT),
            |t| t.date().to_string(),
        ),
        (
            |t| Some(t.replace_time(Time::from_hms(t.hour(), 0, 0).ok()?) + time::Duration::HOUR),
            |t| format!("{:02}:00", t.hour()),
        ),
        (
            |t| {
                Some(
                    t.replace_time(Time::from_hms(t.hour(), t.minute(), 0).ok()?)
                        + time::Duration::MINUTE,
                )
            },
            |t| format!("{:02}:{:02}", t.hour(), t.minute()),
        ),
    ];
    for (step, label) in units {
        let mut out = Vec::new();
        let mut t = t0;
        while let Some(n) = step(t).filter(|n| *n <= t1 && out.len() < 200) {
            out.push((n, label(n)));
            t = n;
        }
        if out.len() >= 2 {
            // Every k-th, so that at most TICKS remain.
            let k = out.len().div_ceil(TICKS);
            return out.into_iter().step_by(k).collect();
        }
    }
    Vec::new()
}

fn round(t: OffsetDateTime, d: Date, at: Time) -> Option<OffsetDateTime> {
    Some(t.replace_date(d).replace_time(at))
}

fn next_year(t: OffsetDateTime) -> Option<OffsetDateTime> {
    round(
        t,
        Date::from_calendar_date(t.year() + 1, Month::January, 1).ok()?,
        Time::MIDNIGHT,
    )
}

fn next_month(t: OffsetDateTime) -> Option<OffsetDateTime> {
    let (y, m) = match t.month() {
        Month::December => (t.year() + 1, Month::January),
        m => (t.year(), m.next()),
    };
    round(t, Date::from_calendar_date(y, m, 1).ok()?, Time::MIDNIGHT)
}

/// "Gone since" the datestamp of the deletion `g` (the page of a URL or of one of its captures).
pub(super) fn gone(g: &Gone) -> Markup {
    html! {
        p.gone { strong { "Gone since " time datetime=(g.datestamp) { (when(&g.datestamp)) } }
            ": the file was deleted on its site (harvested " (when14(&g.harvested)) ")." }
    }
}

/// The captures as a list, oldest first, each said to change the bytes or not, with the
/// deletions where they happened.
fn list(items: &[Item], deletions: &[Gone]) -> Markup {
    let mut pending = deletions.iter().peekable();
    html! {
        table.captures {
            thead { tr { th { "captured" } th { "MIME type" } th.num { "size" } th { "bytes" } th { "" } } }
            tbody {
                @for (i, item) in items.iter().enumerate() {
                    @let changed = i == 0 || items[i - 1].sha1 != item.sha1;
                    @while let Some(g) = pending.next_if(|g| !after(g, item)) { (deletion(g)) }
                    tr {
                        td { a href=(links::capture(&item.id)) { (when(&item.time)) } }
                        td { (item.mime) }
                        td.num { (size(item.size)) }
                        td { @if i == 0 { "first capture" } @else if changed { strong { "changed" } } @else { "unchanged" } }
                        td { a href=(links::memento(&item.timestamp, &item.url)) { "memento" } }
                    }
                }
                @for g in pending { (deletion(g)) }
            }
        }
    }
}

/// A deletion as a row of the list.
fn deletion(g: &Gone) -> Markup {
    html! {
        tr.deletion {
            td { "deleted " time datetime=(g.datestamp) { (when(&g.datestamp)) } }
            td colspan="4" { "the file was deleted on its site (harvested " (when14(&g.harvested)) ")" }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn ticks_fall_on_round_times_in_a_fitting_unit() {
        let t = ticks(
            datetime!(2015-06-01 0:00 UTC),
            datetime!(2019-02-01 0:00 UTC),
        );
        let labels: Vec<&str> = t.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["2016", "2017", "2018", "2019"]);
        let t = ticks(
            datetime!(2015-01-01 0:00 UTC),
            datetime!(2015-01-01 23:00 UTC),
        );
        let labels: Vec<&str> = t.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(
            labels,
            [
                "01:00", "03:00", "05:00", "07:00", "09:00", "11:00", "13:00", "15:00", "17:00",
                "19:00", "21:00", "23:00"
            ]
        );
        assert!(ticks(
            datetime!(2015-01-01 0:00 UTC),
            datetime!(2015-01-01 0:00 UTC)
        )
        .is_empty());
        let a = datetime!(2020-01-01 0:00 UTC);
        assert_eq!(x_of(a, a, a), WIDTH / 2.0, "one capture: in the middle");
    }
}

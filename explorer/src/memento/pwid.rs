//! `/pwid/urn:pwid:…`: a PWID names one archived item at one time (the PWID specification,
//! `docs/archivists.md` "Formats"), so it resolves exactly or not at all: 302 to the memento of
//! that URL captured at that second, else 404 with the captures nearest to it, as JSON or, for a
//! browser, as a page. An archive id no archive here has, or a URL it never captured, is 404 at
//! once.

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use maud::{html, DOCTYPE};
use modoai_archive::archive::Reader;
use modoai_archive::pwid::Pwid;
use time::format_description::well_known::Rfc3339;

use super::target::Named;
use super::timemap::Urls;
use crate::search::{mementos, nearest, Facet, Memento};
use crate::web::{AppError, Base, Caller, Nearby, Public};

/// Captures offered when none is at the PWID's time.
const NEAREST: usize = 5;

/// The handler.
pub(super) async fn pwid(
    Named(pwid): Named,
    headers: HeaderMap,
    caller: Caller<Public>,
    Base(base): Base,
) -> Result<Response, AppError> {
    let (id, item) = (pwid.archive_id.clone(), pwid.item.clone());
    let (held, all) = caller
        .run(move |s, who| {
            let scope = who.scope();
            let held: Vec<usize> = (s.library.archives().iter().enumerate())
                .filter(|(_, a)| scope.admits(Facet::Archive, &a.name) && has_id(a, &id))
                .map(|(i, _)| i)
                .collect();
            let all = match held.is_empty() {
                true => Vec::new(),
                false => mementos(&s.library, &item, &scope)?,
            };
            Ok((held, all))
        })
        .await?;
    if held.is_empty() {
        return Err(AppError::NotFound(format!(
            "no archive here has the archive id {:?}",
            pwid.archive_id
        )));
    }
    let all: Vec<Memento> = all
        .into_iter()
        .filter(|m| held.contains(&m.archive))
        .collect();
    if all.is_empty() {
        let message = format!(
            "no capture of {} in the archive {}",
            pwid.item, pwid.archive_id
        );
        return Err(AppError::NotFound(message));
    }
    let urls = Urls {
        base: &base,
        uri: &pwid.item,
    };
    let wanted = pwid.timestamp14();
    if let Some(exact) = all.iter().find(|m| m.timestamp == wanted) {
        let location = [(header::LOCATION, urls.memento(exact))];
        return Ok((StatusCode::FOUND, caller.rate_limit(), location).into_response());
    }
    let error = not_at(&pwid, &urls, &all);
    Ok(match wants_html(&headers) {
        true => (caller.rate_limit(), page(&error)).into_response(),
        false => (caller.rate_limit(), error).into_response(),
    })
}

/// Whether the collection `a` has the archive id `id`: a modoai archive's own, or a foreign
/// collection's name.
fn has_id(a: &crate::search::Served, id: &str) -> bool {
    if !a.collection.is_archive() {
        return a.name == id;
    }
    let reader = Reader::open(&a.dir).ok();
    reader.and_then(|r| r.archive_id().map(|i| i == id)) == Some(true)
}

/// The 404 of a PWID whose URL was captured, but not at its time.
fn not_at(pwid: &Pwid, urls: &Urls<'_>, all: &[Memento]) -> AppError {
    let nearest = nearest(all, pwid.archived_at, NEAREST)
        .into_iter()
        .map(|m| Nearby {
            datetime: m.time.format(&Rfc3339).unwrap_or_default(),
            memento: urls.memento(m),
            pwid: Pwid::part(&pwid.archive_id, m.time, &m.url)
                .map(|p| p.to_string())
                .unwrap_or_default(),
        })
        .collect();
    let at = pwid.archived_at.format(&Rfc3339).unwrap_or_default();
    AppError::NotAt {
        message: format!(
            "{} was not captured at {at}: a PWID names one capture; the nearest are listed",
            pwid.item
        ),
        nearest,
    }
}

/// Whether the caller asked for HTML before JSON (a browser following a PWID link).
fn wants_html(headers: &HeaderMap) -> bool {
    let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok());
    let accept = accept.unwrap_or_default();
    match (accept.find("text/html"), accept.find("application/json")) {
        (Some(h), Some(j)) => h < j,
        (Some(_), None) => true,
        _ => false,
    }
}

/// The page of a [`not_at`] error: the message and the nearest captures as links.
fn page(error: &AppError) -> (StatusCode, Html<String>) {
    let nearest = match error {
        AppError::NotAt { nearest, .. } => nearest.as_slice(),
        _ => &[],
    };
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head { meta charset="utf-8"; title { "Not captured at that time — modoai explorer" } }
            body {
                h1 { "Not captured at that time" }
                p.message { (error) }
                ul.nearest {
                    @for n in nearest {
                        li { a href=(n.memento) { (n.datetime) } " " code { (n.pwid) } }
                    }
                }
            }
        }
    };
    (error.status(), Html(markup.into_string()))
}

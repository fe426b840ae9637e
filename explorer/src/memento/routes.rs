//! The Memento and PWID handlers.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::datetime::http_date;
use super::payload::payload;
use super::target::{AcceptDatetime, MementoAt, Target};
use super::timemap::{json, link_format, link_header, position, Urls};
use crate::search::{closest, mementos, Memento};
use crate::web::{AppError, AppState, Base, Caller, Public};

/// The mementos of `uri` the caller may see, oldest first; none is a 404.
async fn find(caller: &Caller<Public>, uri: &str) -> Result<Vec<Memento>, AppError> {
    let owned = uri.to_owned();
    let all = caller
        .run(move |s, who| Ok(mementos(&s.library, &owned, &who.scope())?))
        .await?;
    if all.is_empty() {
        return Err(AppError::NotFound(format!(
            "no memento of {uri} in this archive"
        )));
    }
    Ok(all)
}

pub(super) async fn timemap_link(
    Target(uri): Target,
    caller: Caller<Public>,
    Base(base): Base,
) -> Result<impl IntoResponse, AppError> {
    let all = find(&caller, &uri).await?;
    let body = link_format(
        &Urls {
            base: &base,
            uri: &uri,
        },
        &all,
    );
    Ok((
        caller.rate_limit(),
        [(header::CONTENT_TYPE, "application/link-format")],
        body,
    ))
}

pub(super) async fn timemap_json(
    Target(uri): Target,
    caller: Caller<Public>,
    Base(base): Base,
) -> Result<impl IntoResponse, AppError> {
    let all = find(&caller, &uri).await?;
    let body = json(
        &Urls {
            base: &base,
            uri: &uri,
        },
        &all,
    );
    Ok((caller.rate_limit(), axum::Json(body)))
}

/// RFC 7089 §4.2.1: 302 to the memento closest to `Accept-Datetime` (the latest without one),
/// with `Vary: accept-datetime` and `Link`; a malformed `Accept-Datetime` is 400.
pub(super) async fn timegate(
    Target(uri): Target,
    AcceptDatetime(at): AcceptDatetime,
    caller: Caller<Public>,
    Base(base): Base,
) -> Result<impl IntoResponse, AppError> {
    let all = find(&caller, &uri).await?;
    let chosen = match at {
        Some(at) => closest(&all, at).expect("not empty"),
        None => all.last().expect("not empty"),
    };
    let urls = Urls {
        base: &base,
        uri: &uri,
    };
    let link = link_header(&urls, &all, position(&all, chosen));
    Ok((
        StatusCode::FOUND,
        caller.rate_limit(),
        [
            (header::LOCATION, urls.memento(chosen)),
            (header::VARY, "accept-datetime".into()),
            (header::LINK, link),
        ],
    ))
}

/// A memento: exact time → the payload with `Memento-Datetime` and `Link`; another time → 302
/// to the closest memento.
pub(super) async fn memento(
    State(state): State<Arc<AppState>>,
    MementoAt { timestamp, at, uri }: MementoAt,
    caller: Caller<Public>,
    Base(base): Base,
) -> Result<Response, AppError> {
    let all = find(&caller, &uri).await?;
    let urls = Urls {
        base: &base,
        uri: &uri,
    };
    let chosen = closest(&all, at).expect("not empty").clone();
    if chosen.timestamp != timestamp {
        let location = [(header::LOCATION, urls.memento(&chosen))];
        return Ok((StatusCode::FOUND, caller.rate_limit(), location).into_response());
    }
    let link = link_header(&urls, &all, position(&all, &chosen));
    let dir = state.library.archives()[chosen.archive].dir.clone();
    let datetime = http_date(chosen.time);
    let mut response = payload(dir, chosen).await?;
    let h = response.headers_mut();
    h.insert(
        "memento-datetime",
        HeaderValue::from_str(&datetime).expect("an HTTP-date is a header value"),
    );
    if let Ok(v) = HeaderValue::from_str(&link) {
        h.insert(header::LINK, v);
    }
    Ok((caller.rate_limit(), response).into_response())
}

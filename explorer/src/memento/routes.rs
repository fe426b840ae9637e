//! The Memento and PWID handlers.

use std::io::Read;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{OriginalUri, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;
use modoai_archive::archive::{Reader, Resolved};
use modoai_archive::pwid::Pwid;

use super::datetime::{http_date, parse_http_date};
use super::lookup::{closest, mementos, Memento};
use super::timemap::{json, link_format, link_header, rel_of, Urls};
use crate::api::{admit, base_url as base, ApiError, AppState, Door};
use crate::search::Facet;

/// Bytes per frame of a memento's body.
const FRAME: usize = 64 * 1024;

/// The Memento and PWID routes.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/timemap/link/{*uri}", get(timemap_link))
        .route("/timemap/json/{*uri}", get(timemap_json))
        .route("/timegate/{*uri}", get(timegate))
        .route("/memento/{*rest}", get(memento))
        .route("/pwid/{*pwid}", get(pwid))
}

/// The URI-R after `prefix` in the request target, query included, with a `scheme:/` that a
/// client collapsed made `scheme://` again.
fn uri_r(uri: &axum::http::Uri, prefix: &str) -> Result<String, ApiError> {
    let target = uri.path_and_query().map(|p| p.as_str()).unwrap_or_default();
    let rest = target.strip_prefix(prefix).unwrap_or_default();
    let fixed = match rest.split_once(":/") {
        Some((scheme, tail)) if !tail.starts_with('/') && !scheme.contains('/') => {
            format!("{scheme}://{tail}")
        }
        _ => rest.to_owned(),
    };
    if fixed.is_empty() {
        return Err(ApiError::bad(format!("give the URI after {prefix}")));
    }
    Ok(fixed)
}

/// Admits the caller and finds the mementos of the URI-R.
async fn find(
    state: &Arc<AppState>,
    headers: &HeaderMap,
    uri: String,
) -> Result<(Vec<Memento>, String), ApiError> {
    let (caller, _) = admit(state, headers, Door::Public)?;
    let s = Arc::clone(state);
    let found = tokio::task::spawn_blocking(move || {
        mementos(&s.library, &uri, &caller.scope()).map(|m| (m, uri))
    })
    .await
    .map_err(|_| ApiError::unavailable("the server could not answer this; try again", 1))??;
    if found.0.is_empty() {
        return Err(ApiError::not_found(format!(
            "no memento of {} in this archive",
            found.1
        )));
    }
    Ok(found)
}

async fn timemap_link(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    OriginalUri(u): OriginalUri,
) -> Response {
    let result = async {
        let (all, uri) = find(&state, &headers, uri_r(&u, "/timemap/link/")?).await?;
        let base = base(&headers);
        let body = link_format(
            &Urls {
                base: &base,
                uri: &uri,
            },
            &all,
        );
        Ok::<_, ApiError>(
            ([(header::CONTENT_TYPE, "application/link-format")], body).into_response(),
        )
    };
    result.await.unwrap_or_else(IntoResponse::into_response)
}

async fn timemap_json(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    OriginalUri(u): OriginalUri,
) -> Response {
    let result = async {
        let (all, uri) = find(&state, &headers, uri_r(&u, "/timemap/json/")?).await?;
        let base = base(&headers);
        Ok::<_, ApiError>(
            axum::Json(json(
                &Urls {
                    base: &base,
                    uri: &uri,
                },
                &all,
            ))
            .into_response(),
        )
    };
    result.await.unwrap_or_else(IntoResponse::into_response)
}

/// RFC 7089 §4.2.1: 302 to the memento closest to `Accept-Datetime` (the latest without one),
/// with `Vary: accept-datetime` and `Link`; a malformed `Accept-Datetime` is 400.
async fn timegate(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    OriginalUri(u): OriginalUri,
) -> Response {
    let result = async {
        let uri = uri_r(&u, "/timegate/")?;
        let at = match headers.get("accept-datetime") {
            None => None,
            Some(v) => Some(v.to_str().ok().and_then(parse_http_date).ok_or_else(|| {
                ApiError::bad("Accept-Datetime is not an HTTP-date such as \"Tue, 20 Mar 2001 20:35:00 GMT\" (RFC 7089 §2.1.1)")
            })?),
        };
        let (all, uri) = find(&state, &headers, uri).await?;
        let chosen = match at {
            Some(at) => closest(&all, at).expect("not empty"),
            None => all.last().expect("not empty"),
        };
        let base = base(&headers);
        let urls = Urls {
            base: &base,
            uri: &uri,
        };
        let link = link_header(&urls, Some((chosen, rel_of(&all, chosen))));
        Ok::<_, ApiError>(
            (
                StatusCode::FOUND,
                [
                    (header::LOCATION, urls.memento(chosen)),
                    (header::VARY, "accept-datetime".into()),
                    (header::LINK, link),
                ],
            )
                .into_response(),
        )
    };
    result.await.unwrap_or_else(IntoResponse::into_response)
}

/// A memento: exact time → the payload with `Memento-Datetime` and `Link`; another time → 302
/// to the closest memento.
async fn memento(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    OriginalUri(u): OriginalUri,
) -> Response {
    let result = async {
        let rest = uri_r(&u, "/memento/")?;
        let (ts, uri) = rest
            .split_once('/')
            .ok_or_else(|| ApiError::bad("use /memento/YYYYMMDDhhmmss/URI"))?;
        let at = super::datetime::parse_timestamp14(ts)
            .ok_or_else(|| ApiError::bad(format!("{ts:?} is not a time YYYYMMDDhhmmss")))?;
        let (all, uri) = find(
            &state,
            &headers,
            uri_r(&format!("/{uri}").parse().unwrap_or_default(), "/")?,
        )
        .await?;
        let base = base(&headers);
        let urls = Urls {
            base: &base,
            uri: &uri,
        };
        let chosen = closest(&all, at).expect("not empty").clone();
        if chosen.timestamp != ts {
            return Ok((
                StatusCode::FOUND,
                [(header::LOCATION, urls.memento(&chosen))],
            )
                .into_response());
        }
        let link = link_header(&urls, Some((&chosen, rel_of(&all, &chosen))));
        let dir = state.library.archives()[chosen.archive].dir.clone();
        let mut response = payload(dir, chosen.clone()).await?;
        let h = response.headers_mut();
        h.insert(
            "memento-datetime",
            HeaderValue::from_str(&http_date(chosen.time)).expect("an HTTP-date is a header value"),
        );
        if let Ok(v) = HeaderValue::from_str(&link) {
            h.insert(header::LINK, v);
        }
        Ok::<_, ApiError>(response)
    };
    result.await.unwrap_or_else(IntoResponse::into_response)
}

/// The payload of a memento's record (a revisit's original), streamed in frames.
async fn payload(dir: std::path::PathBuf, m: Memento) -> Result<Response, ApiError> {
    let (tx, rx) = tokio::sync::mpsc::channel::<std::io::Result<Bytes>>(4);
    let (head_tx, head_rx) = tokio::sync::oneshot::channel();
    tokio::task::spawn_blocking(move || {
        let opened = (|| {
            let reader = Reader::open(&dir).map_err(std::io::Error::other)?;
            let file = reader
                .warc_file(&m.file)?
                .ok_or_else(|| std::io::Error::other("WARC file missing"))?;
            let at = Resolved {
                file: file.path,
                offset: m.offset,
                length: m.length,
                mime: String::new(),
                digest: String::new(),
            };
            reader.open_payload(&at).map_err(std::io::Error::other)
        })();
        let mut record = match opened {
            Ok(r) => r,
            Err(e) => {
                let _ = head_tx.send(Err(e));
                return;
            }
        };
        let mime = record
            .header("Content-Type")
            .unwrap_or("application/octet-stream")
            .to_owned();
        let len = record.header("Content-Length").unwrap_or("0").to_owned();
        let _ = head_tx.send(Ok((mime, len)));
        let mut buf = vec![0; FRAME];
        loop {
            match record.block.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    if tx
                        .blocking_send(Ok(Bytes::copy_from_slice(&buf[..n])))
                        .is_err()
                    {
                        return;
                    }
                }
                Err(e) => {
                    let _ = tx.blocking_send(Err(e));
                    return;
                }
            }
        }
    });
    let (mime, len) = head_rx
        .await
        .map_err(|_| ApiError::unavailable("the memento cannot be read just now", 5))?
        .map_err(|e| {
            tracing::error!(error = %e, "a memento cannot be read");
            ApiError::unavailable("the memento cannot be read just now", 5)
        })?;
    let stream =
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|c| (c, rx)) });
    let mut r = Response::new(Body::from_stream(stream));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(&mime)
            .unwrap_or(HeaderValue::from_static("application/octet-stream")),
    );
    if let Ok(v) = HeaderValue::from_str(&len) {
        h.insert(header::CONTENT_LENGTH, v);
    }
    Ok(r)
}

/// `/pwid/urn:pwid:…`: 302 to the memento the PWID names, in an archive with its archive id.
async fn pwid(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    OriginalUri(u): OriginalUri,
) -> Response {
    let result = async {
        let text = uri_r(&u, "/pwid/")?;
        let text = percent_encoding::percent_decode_str(&text)
            .decode_utf8_lossy()
            .into_owned();
        let pwid: Pwid = text
            .parse()
            .map_err(|e| ApiError::bad(format!("{text:?} is not a PWID: {e}")))?;
        let (caller, _) = admit(&state, &headers, Door::Public)?;
        let held = state.library.archives().iter().any(|a| {
            caller.scope().admits(Facet::Archive, &a.name)
                && Reader::open(&a.dir)
                    .ok()
                    .and_then(|r| r.archive_id().map(|id| id == pwid.archive_id))
                    .unwrap_or(false)
        });
        if !held {
            return Err(ApiError::not_found(format!(
                "no archive here has the archive id {:?}",
                pwid.archive_id
            )));
        }
        let location = format!(
            "{}/memento/{}/{}",
            base(&headers),
            pwid.timestamp14(),
            pwid.item
        );
        Ok::<_, ApiError>((StatusCode::FOUND, [(header::LOCATION, location)]).into_response())
    };
    result.await.unwrap_or_else(IntoResponse::into_response)
}

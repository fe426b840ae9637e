//! A memento of a foreign collection, byte for byte as pywb's identity replay (`id_`) answers
//! it: a `response` with its archived status and headers and its body as stored, its chunked
//! transfer-coding and gzip/deflate/br content-coding taken off (their headers kept as
//! `X-Archive-Orig-Transfer-Encoding` and `X-Archive-Orig-Content-Encoding`), a `resource` with
//! its bytes and its record's `Content-Type`, a revisit with its original's (a
//! server-not-modified revisit with the `304` it recorded). Headers that would act on the
//! explorer's origin or connection (cookies, HSTS, hop-by-hop fields) are passed on under
//! `X-Archive-Orig-` too; the sandbox headers are added as for every memento (`payload.rs`).

use std::io::Read;

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use modoai_archive::any::{
    decode_body, open, BodyLimits, HttpHead, Location, RecordKind, RevisitProfile,
};

use super::payload::{sandboxed, FRAME};
use crate::search::ForeignAt;
use crate::web::AppError;

/// Archived headers passed on only as `X-Archive-Orig-NAME`: hop-by-hop fields (RFC 9110
/// §7.6.1), the codings taken off, and fields that would act on the explorer's own origin.
const RENAMED: [&str; 15] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "te",
    "trailer",
    "transfer-encoding",
    "content-encoding",
    "upgrade",
    "content-length",
    "set-cookie",
    "set-cookie2",
    "strict-transport-security",
    "public-key-pins",
    "clear-site-data",
];

/// What a memento answers before its body.
struct Head {
    status: StatusCode,
    headers: Vec<(String, String)>,
    length: Option<u64>,
}

/// The memento at `at` as a response.
pub(super) async fn foreign_payload(at: ForeignAt) -> Result<Response, AppError> {
    let (tx, rx) = tokio::sync::mpsc::channel::<std::io::Result<Bytes>>(4);
    let (head_tx, head_rx) = tokio::sync::oneshot::channel();
    tokio::task::spawn_blocking(move || {
        let (head, mut body) = match read(&at) {
            Ok(read) => read,
            Err(e) => {
                let _ = head_tx.send(Err(e));
                return;
            }
        };
        let _ = head_tx.send(Ok(head));
        let mut buf = vec![0; FRAME];
        loop {
            let sent = match body.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => tx.blocking_send(Ok(Bytes::copy_from_slice(&buf[..n]))),
                Err(e) => tx.blocking_send(Err(e)),
            };
            if sent.is_err() {
                return;
            }
        }
    });
    let unreadable = || AppError::unavailable("the memento cannot be read just now", 5);
    let head = head_rx.await.map_err(|_| unreadable())?.map_err(|e| {
        tracing::error!(error = %e, "a memento cannot be read");
        unreadable()
    })?;
    let stream =
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|c| (c, rx)) });
    let mut r = Response::new(Body::from_stream(stream));
    *r.status_mut() = head.status;
    let mut mime = String::new();
    for (name, value) in &head.headers {
        let name = match RENAMED.iter().any(|d| name.eq_ignore_ascii_case(d)) {
            true => format!("X-Archive-Orig-{name}"),
            false => name.clone(),
        };
        let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) else {
            continue;
        };
        if n == axum::http::header::CONTENT_TYPE {
            mime = value.clone();
        }
        r.headers_mut().append(n, v);
    }
    if let Some(len) = head.length {
        r.headers_mut()
            .insert(axum::http::header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    sandboxed(r.headers_mut(), &mime);
    Ok(r)
}

/// The head and body of the memento at `at`: a revisit answers with its original, except a
/// server-not-modified one, which answers with the `304` it recorded (as pywb does).
fn read(at: &ForeignAt) -> std::io::Result<(Head, Box<dyn Read + Send>)> {
    let own = open(&at.record)?;
    let location: &Location = match own.kind {
        RecordKind::Revisit(RevisitProfile::ServerNotModified) => &at.record,
        RecordKind::Revisit(_) => at.payload.as_ref().ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the revisit's original is not in the collection",
            )
        })?,
        _ => &at.record,
    };
    let opened = if location == &at.record {
        own
    } else {
        open(location)?
    };
    let Some(http) = opened.http.clone() else {
        let mime = (opened.fields.content_type.clone())
            .unwrap_or_else(|| "application/octet-stream".into());
        let length = opened.block_len;
        let head = Head {
            status: StatusCode::OK,
            headers: vec![("Content-Type".into(), mime)],
            length: Some(length),
        };
        return Ok((head, Box::new(opened.payload())));
    };
    let status = StatusCode::from_u16(http.status).unwrap_or(StatusCode::OK);
    let length = opened.block_len.saturating_sub(http.body_offset);
    let headers = http.headers.clone();
    if !is_coded(&http) {
        let head = Head {
            status,
            headers,
            length: Some(length),
        };
        return Ok((head, Box::new(opened.payload())));
    }
    let payload = opened.payload();
    // A coding nobody knows is served as stored, as pywb does.
    let known = decode_body(std::io::empty(), &http, &unbounded()).is_ok();
    if !known {
        let head = Head {
            status,
            headers,
            length: Some(length),
        };
        return Ok((head, Box::new(payload)));
    }
    let body = decode_body(payload, &http, &unbounded()).map_err(std::io::Error::other)?;
    let head = Head {
        status,
        headers,
        length: None,
    };
    Ok((head, body))
}

/// Whether the body has a transfer- or content-coding to take off.
fn is_coded(head: &HttpHead) -> bool {
    head.is_chunked() || !head.content_codings().is_empty()
}

/// No limit: a memento is sent whole, as stored.
fn unbounded() -> BodyLimits {
    BodyLimits {
        max_size: u64::MAX,
        max_ratio: u64::MAX,
    }
}

//! A memento's bytes: the payload of its record (a revisit's original), streamed in frames from
//! a blocking thread, with the record's `Content-Type` and `Content-Length`. Streaming holds no
//! search permit: a long download does not keep searches waiting.
//!
//! A memento is someone else's HTML and scripts, so it never runs in the explorer's origin:
//! every memento but a PDF is served with `Content-Security-Policy: sandbox` ([`SANDBOX`]), which
//! gives the document a unique, opaque origin (no cookies, storage or same-origin requests of the
//! explorer's), and every memento with `X-Content-Type-Options: nosniff`, so a browser never
//! reads bytes as a type that can run script when their record says otherwise
//! (`docs/explorer.md`, "Mementos are sandboxed").

use std::io::Read;
use std::path::PathBuf;

use axum::body::Body;
use axum::http::{header, HeaderValue};
use axum::response::Response;
use bytes::Bytes;
use modoai_archive::archive::{Reader, Resolved};
use modoai_archive::warc::StoredRecord;

use crate::search::Memento;
use crate::web::AppError;

/// The policy of every memento but a PDF: scripts, forms and popups may run, as replay of a
/// page needs, but in an opaque origin of their own (no `allow-same-origin`) and without
/// navigating the window that framed them (no `allow-top-navigation`).
const SANDBOX: &str = "sandbox allow-scripts allow-forms allow-popups";

/// Bytes per frame of a memento's body.
pub(super) const FRAME: usize = 64 * 1024;

/// The payload of `m`, in the archive at `dir`, as a response.
pub(super) async fn payload(dir: PathBuf, m: Memento) -> Result<Response, AppError> {
    if let Some(at) = m.foreign {
        return super::foreign::foreign_payload(at).await;
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<std::io::Result<Bytes>>(4);
    let (head_tx, head_rx) = tokio::sync::oneshot::channel();
    tokio::task::spawn_blocking(move || {
        let mut record = match open(&dir, &m) {
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
    let unreadable = || AppError::unavailable("the memento cannot be read just now", 5);
    let (mime, len) = head_rx.await.map_err(|_| unreadable())?.map_err(|e| {
        tracing::error!(error = %e, "a memento cannot be read");
        unreadable()
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
    sandboxed(h, &mime);
    Ok(r)
}

/// Adds the headers every memento has: `nosniff`, and the sandbox unless it is a PDF.
pub(super) fn sandboxed(h: &mut axum::http::HeaderMap, mime: &str) {
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // Chromium's and Firefox's PDF viewers refuse to show a document in a sandbox; a PDF's
    // scripts run in the viewer's own isolation, never in the page's origin.
    if !is_pdf(mime) {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(SANDBOX),
        );
    }
}

/// Whether a `Content-Type` value names a PDF.
fn is_pdf(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/pdf")
}

/// The payload record of `m`, opened.
fn open(dir: &std::path::Path, m: &Memento) -> std::io::Result<StoredRecord> {
    let reader = Reader::open(dir).map_err(std::io::Error::other)?;
    let file = reader
        .warc_file(&m.record.file)?
        .ok_or_else(|| std::io::Error::other("WARC file missing"))?;
    let at = Resolved {
        file: file.path,
        offset: m.record.offset,
        length: m.record.length,
        mime: String::new(),
        digest: String::new(),
    };
    reader.open_payload(&at).map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_pdf_leaves_the_sandbox() {
        assert!(is_pdf("application/pdf"));
        assert!(is_pdf("Application/PDF; qs=0.9"));
        assert!(!is_pdf("text/html; charset=utf-8"));
        assert!(!is_pdf("image/svg+xml"));
        assert!(SANDBOX.starts_with("sandbox ") && !SANDBOX.contains("allow-same-origin"));
    }
}

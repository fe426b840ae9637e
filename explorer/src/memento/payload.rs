//! A memento's bytes: the payload of its record (a revisit's original), streamed in frames from
//! a blocking thread, with the record's `Content-Type` and `Content-Length`. Streaming holds no
//! search permit: a long download does not keep searches waiting.

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

/// Bytes per frame of a memento's body.
const FRAME: usize = 64 * 1024;

/// The payload of `m`, in the archive at `dir`, as a response.
pub(super) async fn payload(dir: PathBuf, m: Memento) -> Result<Response, AppError> {
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
    Ok(r)
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

//! Plain GETs in one step: a small file opened, read and answered from memory, instead of the
//! general file service's hop to a blocking thread for each of open, metadata and read; a larger
//! one streamed ([`super::stream`]). Requests with `Range` or date conditions take the general
//! path.

use std::fs::{File, Metadata};
use std::io::Read;

use bytes::Bytes;
use http::header::{
    ACCEPT_RANGES, CONTENT_LENGTH, CONTENT_TYPE, ETAG, IF_MODIFIED_SINCE, IF_RANGE,
    IF_UNMODIFIED_SINCE, LAST_MODIFIED, RANGE,
};
use http::{HeaderMap, HeaderValue, Method, Response};
use http_body_util::{BodyExt, Full};

use super::body::SiteBody;

/// Files up to this size are answered this way.
pub(super) const SMALL: u64 = 64 * 1024;

/// True for a request the one-step answer fits: a GET without a range or date condition.
pub(super) fn is_plain(method: &Method, headers: &HeaderMap) -> bool {
    method == Method::GET
        && ![RANGE, IF_RANGE, IF_MODIFIED_SINCE, IF_UNMODIFIED_SINCE]
            .iter()
            .any(|h| headers.contains_key(h))
}

/// The 200 answer to a plain GET of the open file `file` (`meta` its metadata): a small file
/// read now, a larger one streamed ([`super::stream`]); `None` when it cannot be read (the
/// general path answers then).
pub(super) fn answer(
    file: File,
    meta: &Metadata,
    mime: &str,
    etag: &str,
) -> Option<Response<SiteBody>> {
    if meta.len() > SMALL {
        let body = super::stream::body(file, meta.len());
        return Some(response(body, meta.len(), mime, etag, meta));
    }
    let bytes = read(file, meta)?;
    let len = bytes.len() as u64;
    let body = Full::new(bytes).map_err(|e| match e {}).boxed_unsync();
    Some(response(body, len, mime, etag, meta))
}

/// The bytes of the small file `file` (`meta` its metadata, at most [`SMALL`] bytes), or `None`
/// if it shrank since. Exactly the length `meta` gives is read, as the `ETag` and
/// `Last-Modified` sent with it describe that version (nginx sends the size it `stat`ed too):
/// one `read` where reading to the end took a second one to find it.
fn read(mut file: File, meta: &Metadata) -> Option<Bytes> {
    let mut bytes = vec![0; meta.len() as usize];
    file.read_exact(&mut bytes).ok()?;
    Some(Bytes::from(bytes))
}

/// The 200 answer with `body` of `len` bytes, with the headers the general path sends.
fn response(
    body: SiteBody,
    len: u64,
    mime: &str,
    etag: &str,
    meta: &Metadata,
) -> Response<SiteBody> {
    let mut res = Response::new(body);
    let h = res.headers_mut();
    let mime =
        HeaderValue::from_str(mime).unwrap_or(HeaderValue::from_static(crate::mime::OCTET_STREAM));
    h.insert(CONTENT_TYPE, mime);
    h.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    let modified = meta.modified().ok().map(httpdate::fmt_http_date);
    if let Some(v) = modified.and_then(|d| HeaderValue::from_str(&d).ok()) {
        h.insert(LAST_MODIFIED, v);
    }
    h.insert(CONTENT_LENGTH, HeaderValue::from(len));
    if let Ok(v) = HeaderValue::from_str(etag) {
        h.insert(ETAG, v);
    }
    res
}

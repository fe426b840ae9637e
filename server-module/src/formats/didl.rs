//! `oai_didl`: the file as an MPEG-21 DIDL complex object, in LANL's style (as mod_oai sent it).
//!
//! ```text
//! didl:DIDL  DIDLDocumentId = URL
//!   didl:Item
//!     didl:Descriptor/didl:Statement → dii:Identifier = URL
//!     didl:Descriptor/didl:Statement → modoai:httpResponse: the status and headers of a plain GET
//!     didl:Component/didl:Resource mimeType encoding="base64" → the bytes (up to the inline limit)
//!     didl:Component/didl:Resource mimeType ref=URL → the same file by reference
//! ```
//! The by-value Resource comes first in its own Component, because LANL's reader takes the first
//! Resource of each Component.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use bytes::{Bytes, BytesMut};
use http::{HeaderMap, Method, Response, StatusCode};
use http_body_util::BodyExt;
use modoai_protocol::ns;

use std::sync::Arc;

use crate::fetch::{InnerBody, Site};
use crate::index::Entry;
use crate::oai::response::{Halt, Sink};
use crate::plugins::PluginResult;
use crate::xml::Xml;

/// Base64 is encoded in runs of this many input bytes, a multiple of 3, so runs concatenate into
/// one valid Base64 text without padding in between.
const RUN: usize = 48 * 1024;

/// What the site answered for the file.
pub(crate) enum Fetched {
    /// A successful GET whose body goes inline.
    Inline(Response<InnerBody>),
    /// Headers only: the file is too large to inline, or the site did not serve it now.
    Reference(Option<(StatusCode, HeaderMap)>),
}

impl Fetched {
    /// Asks the site for the file as a visitor would: GET when it will be inlined, else HEAD.
    pub(crate) async fn fetch(site: &Site, entry: &Entry, inline_max: u64) -> Fetched {
        let inline = entry.stamp.size <= inline_max;
        let method = if inline { Method::GET } else { Method::HEAD };
        match site.request(method, &entry.path).await {
            Ok(res) if inline && res.status().is_success() => Fetched::Inline(res),
            Ok(res) => Fetched::Reference(Some((res.status(), res.headers().clone()))),
            Err(err) => {
                tracing::warn!(path = %entry.path, error = %err, "internal request failed");
                Fetched::Reference(None)
            }
        }
    }

    /// The status the site answered with, if it answered.
    pub(crate) fn status(&self) -> Option<StatusCode> {
        match self {
            Fetched::Inline(res) => Some(res.status()),
            Fetched::Reference(r) => r.as_ref().map(|(s, _)| *s),
        }
    }
}

/// Writes the `didl:DIDL` element of one file, streaming its bytes as Base64. With `plugins`
/// (for `oai_crate`) the CRATE-UID and one descriptor per plugin follow the HTTP headers.
pub(crate) async fn write_didl(
    sink: &mut Sink,
    entry: &Entry,
    identifier: &str,
    fetched: Fetched,
    plugins: Option<&[Arc<PluginResult>]>,
) -> Result<(), Halt> {
    open_item(&mut sink.xml, identifier);
    let mime: &str = &entry.mime;
    let (status, headers, body) = match fetched {
        Fetched::Inline(res) => {
            let (parts, body) = res.into_parts();
            (Some(parts.status), Some(parts.headers), Some(body))
        }
        Fetched::Reference(Some((s, h))) => (Some(s), Some(h), None),
        Fetched::Reference(None) => (None, None, None),
    };
    write_headers(&mut sink.xml, status, headers.as_ref());
    if let Some(results) = plugins {
        super::crate_meta::write_uid(&mut sink.xml, identifier, modoai_protocol::Datestamp::now());
        super::crate_meta::write_plugins(&mut sink.xml, results);
    }
    if let Some(body) = body {
        sink.xml.start("didl:Component", &[]);
        sink.xml.start(
            "didl:Resource",
            &[("mimeType", mime), ("encoding", "base64")],
        );
        stream_base64(sink, body).await?;
        sink.xml.end("didl:Resource");
        sink.xml.end("didl:Component");
    }
    sink.xml.start("didl:Component", &[]);
    sink.xml
        .empty("didl:Resource", &[("mimeType", mime), ("ref", identifier)]);
    sink.xml.end("didl:Component");
    sink.xml.end("didl:Item");
    sink.xml.end("didl:DIDL");
    Ok(())
}

fn open_item(x: &mut Xml, identifier: &str) {
    let schema_location = format!("{} {}", ns::DIDL, ns::DIDL_XSD);
    x.start(
        "didl:DIDL",
        &[
            ("xmlns:didl", ns::DIDL),
            ("xmlns:dii", ns::DII),
            ("xmlns:modoai", ns::MODOAI),
            ("xmlns:xsi", ns::XSI),
            ("xsi:schemaLocation", &schema_location),
            ("DIDLDocumentId", identifier),
        ],
    );
    x.start("didl:Item", &[]);
    x.start("didl:Descriptor", &[]);
    x.start(
        "didl:Statement",
        &[("mimeType", "application/xml; charset=utf-8")],
    );
    x.leaf("dii:Identifier", &[], identifier);
    x.end("didl:Statement");
    x.end("didl:Descriptor");
}

/// The response headers of a plain GET, hop-by-hop headers left out (RFC 9110 §7.6.1).
fn write_headers(x: &mut Xml, status: Option<StatusCode>, headers: Option<&HeaderMap>) {
    x.start("didl:Descriptor", &[]);
    x.start(
        "didl:Statement",
        &[("mimeType", "application/xml; charset=utf-8")],
    );
    let status = status.map(|s| s.as_u16().to_string());
    match &status {
        Some(s) => x.start("modoai:httpResponse", &[("status", s)]),
        None => x.start("modoai:httpResponse", &[]),
    }
    for (name, value) in headers.into_iter().flatten() {
        if is_hop_by_hop(name.as_str()) {
            continue;
        }
        x.leaf(
            "modoai:header",
            &[("name", name.as_str())],
            &String::from_utf8_lossy(value.as_bytes()),
        );
    }
    x.end("modoai:httpResponse");
    x.end("didl:Statement");
    x.end("didl:Descriptor");
}

fn is_hop_by_hop(name: &str) -> bool {
    matches!(
        name,
        "connection"
            | "keep-alive"
            | "transfer-encoding"
            | "te"
            | "trailer"
            | "upgrade"
            | "proxy-connection"
    )
}

/// Encodes the body frame by frame, carrying at most two bytes between runs.
async fn stream_base64(sink: &mut Sink, mut body: InnerBody) -> Result<(), Halt> {
    let mut pending = BytesMut::new();
    let mut encoded = String::with_capacity(RUN / 3 * 4 + 4);
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(Halt::Failed)?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        pending.extend_from_slice(&data);
        while pending.len() >= RUN || (pending.len() >= 3 && pending.len() % 3 == 0) {
            let take = (pending.len().min(RUN) / 3) * 3;
            encode_run(sink, &mut encoded, pending.split_to(take).freeze());
            sink.flush().await?;
        }
    }
    if !pending.is_empty() {
        encode_run(sink, &mut encoded, pending.freeze());
    }
    sink.flush().await
}

fn encode_run(sink: &mut Sink, buf: &mut String, bytes: Bytes) {
    buf.clear();
    B64.encode_string(&bytes, buf);
    sink.xml.raw(buf.as_bytes());
}

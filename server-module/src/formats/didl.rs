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

use http::{HeaderMap, Method, Response, StatusCode};
use http_body_util::BodyExt;
use modoai_protocol::ns;
use modoai_tools::PluginResult;

use std::sync::Arc;

use crate::fetch::{InnerBody, Site};
use crate::index::Entry;
use crate::oai::response::{Halt, Sink};
use crate::xml::Xml;

/// Base64 is encoded in runs of at most this many input bytes, a multiple of 3, so runs
/// concatenate into one valid Base64 text without padding in between.
const RUN: usize = 3 * 64 * 1024;

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

/// Encodes the body frame by frame, straight from each frame into the response buffer; at most
/// two bytes of a frame are carried over to the next, so the runs join without padding.
async fn stream_base64(sink: &mut Sink, mut body: InnerBody) -> Result<(), Halt> {
    let mut carry = Carry::default();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(Halt::Failed)?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let mut rest: &[u8] = carry.fill(sink, &data);
        while rest.len() >= 3 {
            let take = (rest.len().min(RUN) / 3) * 3;
            sink.xml.base64(&rest[..take]);
            rest = &rest[take..];
            sink.flush().await?;
            // Bounded work per poll: after each run, the visitors' requests on this worker go
            // first.
            tokio::task::yield_now().await;
        }
        carry.keep(rest);
    }
    carry.finish(sink);
    sink.flush().await
}

/// Up to two bytes left over from a frame whose length was not a multiple of 3.
#[derive(Default)]
struct Carry {
    bytes: [u8; 3],
    len: usize,
}

impl Carry {
    /// Completes the carried bytes with the head of `data` (encoding them once they are 3),
    /// and returns the rest of `data`.
    fn fill<'a>(&mut self, sink: &mut Sink, data: &'a [u8]) -> &'a [u8] {
        if self.len == 0 {
            return data;
        }
        let n = (3 - self.len).min(data.len());
        self.bytes[self.len..self.len + n].copy_from_slice(&data[..n]);
        self.len += n;
        if self.len == 3 {
            sink.xml.base64(&self.bytes);
            self.len = 0;
        }
        &data[n..]
    }

    /// Keeps `rest` (shorter than 3 bytes) for the next frame.
    fn keep(&mut self, rest: &[u8]) {
        self.bytes[self.len..self.len + rest.len()].copy_from_slice(rest);
        self.len += rest.len();
    }

    /// Encodes what is left, padded: the end of the file.
    fn finish(self, sink: &mut Sink) {
        if self.len > 0 {
            sink.xml.base64(&self.bytes[..self.len]);
        }
    }
}

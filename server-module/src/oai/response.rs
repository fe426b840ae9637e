//! The response envelope (§3.2) and the streaming body that carries it.

use bytes::Bytes;
use futures_util::Future;
use http::header::{CONTENT_TYPE, RETRY_AFTER};
use http::{Response, StatusCode};
use http_body_util::{BodyExt, Full, StreamBody};
use modoai_protocol::{ns, Datestamp, OaiError};
use tokio::sync::mpsc;

use crate::fetch::BoxError;
use crate::recycle::Recycler;
use crate::xml::Xml;

/// The body of every response modoai writes itself.
pub(crate) type OaiBody = http_body_util::combinators::UnsyncBoxBody<Bytes, BoxError>;

/// The Content-Type of every OAI-PMH response.
pub(crate) const TEXT_XML: &str = "text/xml; charset=UTF-8";

/// Frames are sent once this many bytes are buffered (a few Base64 runs: fewer, larger writes).
pub(crate) const FRAME: usize = 256 * 1024;

/// Frames queued between a response's producer and its connection.
const IN_FLIGHT: usize = 4;

/// Opens the envelope: declaration, root element, responseDate and the request element.
/// `echo` holds the arguments to repeat as attributes (none for badVerb and badArgument).
pub(crate) fn open(base_url: &str, echo: &[(String, String)]) -> Xml {
    open_at(base_url, echo, Datestamp::now())
}

/// [`open`] with the response date `date` (a list's: the date of the index view it reads).
pub(crate) fn open_at(base_url: &str, echo: &[(String, String)], date: Datestamp) -> Xml {
    let mut x = Xml::new();
    x.declaration();
    let schema_location = format!("{} {}", ns::OAI_PMH, ns::OAI_PMH_XSD);
    x.start(
        "OAI-PMH",
        &[
            ("xmlns", ns::OAI_PMH),
            ("xmlns:xsi", ns::XSI),
            ("xsi:schemaLocation", &schema_location),
        ],
    );
    x.leaf("responseDate", &[], &date.to_string());
    let attrs: Vec<(&str, &str)> = echo.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    x.leaf("request", &attrs, base_url);
    x
}

/// Closes the root element.
pub(crate) fn close(x: &mut Xml) {
    x.end("OAI-PMH");
}

/// A complete, small response.
pub(crate) fn complete(mut x: Xml) -> Response<OaiBody> {
    close(&mut x);
    xml_response(Full::new(x.take()).map_err(|e| match e {}).boxed_unsync())
}

/// An error response; the request element keeps its attributes only where §3.2 allows it.
pub(crate) fn errors(
    base_url: &str,
    pairs: &[(String, String)],
    errors: &[OaiError],
) -> Response<OaiBody> {
    let hide = errors.iter().any(|e| e.code.hides_request_arguments());
    let mut x = open(base_url, if hide { &[] } else { pairs });
    for e in errors {
        x.leaf("error", &[("code", e.code.as_str())], &e.message);
    }
    complete(x)
}

/// 503 with a numeric Retry-After, the flow control harvesters and the validator expect (§3.1.2.1).
pub(crate) fn unavailable(retry_after_secs: u32, why: &'static str) -> Response<OaiBody> {
    let mut res = http_error(StatusCode::SERVICE_UNAVAILABLE, why);
    res.headers_mut()
        .insert(RETRY_AFTER, retry_after_secs.into());
    res
}

/// 503 while the first index scan runs, for every door that reads the index.
pub(crate) fn indexing() -> Response<OaiBody> {
    unavailable(
        RETRY_WHILE_INDEXING,
        "the site index is being built; retry shortly\n",
    )
}

/// Seconds a client is asked to wait while the first index scan runs.
const RETRY_WHILE_INDEXING: u32 = 5;

/// A plain-text HTTP error outside the protocol (wrong method, oversized body, flow control).
pub(crate) fn http_error(status: StatusCode, why: &'static str) -> Response<OaiBody> {
    let body = Full::new(Bytes::from_static(why.as_bytes()))
        .map_err(|e| match e {})
        .boxed_unsync();
    let mut res = Response::new(body);
    *res.status_mut() = status;
    res.headers_mut().insert(
        CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=UTF-8"),
    );
    res
}

fn xml_response(body: OaiBody) -> Response<OaiBody> {
    let mut res = Response::new(body);
    res.headers_mut()
        .insert(CONTENT_TYPE, http::HeaderValue::from_static(TEXT_XML));
    res
}

/// Why a streaming response stopped early.
#[derive(Debug)]
pub(crate) enum Halt {
    /// The client went away.
    Gone,
    /// Reading the file failed midway.
    Failed(BoxError),
}

/// Where a streaming response is written: XML is buffered and sent as frames of about 64 KiB;
/// the bounded channel makes a slow client slow the producer down instead of filling memory.
pub(crate) struct Sink {
    pub(crate) xml: Xml,
    tx: mpsc::Sender<Result<Bytes, BoxError>>,
    buffers: Recycler,
}

impl Sink {
    /// Sends buffered XML once a frame's worth has accumulated.
    pub(crate) async fn flush(&mut self) -> Result<(), Halt> {
        if self.xml.len() >= FRAME {
            self.send().await?;
        }
        Ok(())
    }

    async fn send(&mut self) -> Result<(), Halt> {
        // The next frame's buffer has its full size from the start (one that hyper has written
        // and dropped, once there is one).
        let mut next = self.buffers.buffer();
        next.clear();
        let full = self.xml.take_leaving(next);
        let bytes = self.buffers.hand_out(full);
        self.tx.send(Ok(bytes)).await.map_err(|_| Halt::Gone)
    }

    /// Ends the body with an error, so the client sees a broken transfer rather than a
    /// well-formed but truncated document.
    pub(crate) async fn abort(self, err: BoxError) {
        let _ = self.tx.send(Err(err)).await;
    }
}

/// Streams a response: `produce` writes into the sink after `head` (the opened envelope); the
/// root element is closed when it succeeds.
pub(crate) fn streaming<F, Fut>(head: Xml, produce: F) -> Response<OaiBody>
where
    F: FnOnce(Sink) -> Fut + Send + 'static,
    Fut: Future<Output = (Sink, Result<(), Halt>)> + Send + 'static,
{
    xml_response(stream_body(head, produce, close))
}

/// The body of any streamed XML document: `produce` writes into the sink after `head`, and
/// `finish` ends the document when it succeeds; a failure breaks the transfer.
pub(crate) fn stream_body<F, Fut>(head: Xml, produce: F, finish: fn(&mut Xml)) -> OaiBody
where
    F: FnOnce(Sink) -> Fut + Send + 'static,
    Fut: Future<Output = (Sink, Result<(), Halt>)> + Send + 'static,
{
    let (tx, rx) = mpsc::channel(IN_FLIGHT);
    let sink = Sink {
        xml: head,
        tx,
        // The frames in the channel, those hyper holds (up to two), and two written already.
        buffers: Recycler::new(IN_FLIGHT + 4, FRAME + FRAME / 2),
    };
    tokio::spawn(async move {
        match produce(sink).await {
            (mut sink, Ok(())) => {
                finish(&mut sink.xml);
                let _ = sink.send().await;
            }
            (_, Err(Halt::Gone)) => tracing::debug!("client went away during a response"),
            (sink, Err(Halt::Failed(err))) => {
                tracing::error!(error = %err, "response aborted while streaming");
                sink.abort(err).await;
            }
        }
    });
    let frames = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|item| (item.map(http_body::Frame::data), rx))
    });
    StreamBody::new(frames).boxed_unsync()
}

//! OAI-PMH for people: the response a browser asks for, rendered as an HTML page by the server
//! from the very XML a harvester gets, as it streams (no `xml-stylesheet`: browsers are removing
//! XSLT). Records show their Dublin Core, their file as a link instead of Base64, and a CRATE's
//! tool findings as a table; lists page with a "Next page" link; errors say what they mean. Every
//! page links to the same response as XML, at a route of its own.

mod render;
mod tree;

use bytes::Bytes;
use futures_util::TryStreamExt;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderValue, Response};
use http_body_util::{BodyExt, StreamBody};
use quick_xml::events::Event;
use quick_xml::Reader;
use tokio::sync::mpsc;
use tokio_util::io::StreamReader;

use crate::fetch::BoxError;
use crate::oai::OaiBody;
use tree::{Builder, Node};

/// HTML is sent once this many bytes are ready.
const FRAME: usize = 32 * 1024;

/// What a page needs besides the XML: the repository's name and where the XML is.
#[derive(Clone, Debug)]
pub(crate) struct View {
    /// The repository's name (Identify's repositoryName).
    pub(crate) repository: String,
    /// The URL of the route that always answers XML.
    pub(crate) raw_route: String,
    /// The request's query string.
    pub(crate) query: String,
    /// The verb, once the response's request element has been read.
    verb: String,
    /// The metadataPrefix of the request, if any.
    prefix: Option<String>,
}

impl View {
    pub(crate) fn new(repository: String, raw_route: String, query: String) -> Self {
        View {
            repository,
            raw_route,
            query,
            verb: String::new(),
            prefix: None,
        }
    }

    /// The same request at the route that answers XML.
    fn raw_xml(&self) -> String {
        format!("{}?{}", self.raw_route, self.query)
    }

    /// The request's metadataPrefix, `oai_dc` when it has none.
    fn prefix(&self) -> &str {
        self.prefix.as_deref().unwrap_or("oai_dc")
    }
}

/// The response as an HTML page, streamed as the XML arrives. A response that is not OAI-PMH
/// XML (a 503 while indexing, a plain-text HTTP error) is returned as it is.
pub(crate) fn render(res: Response<OaiBody>, view: View) -> Response<OaiBody> {
    let is_xml = res
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/xml"));
    if !is_xml {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let (tx, rx) = mpsc::channel::<Result<Bytes, BoxError>>(4);
    tokio::spawn(async move {
        let mut out = Out {
            html: String::new(),
            tx,
        };
        if let Err(err) = transform(body, view, &mut out).await {
            tracing::debug!(error = %err, "HTML view stopped");
            let _ = out.tx.send(Err(err)).await;
        }
    });
    parts.headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    parts.headers.remove(CONTENT_LENGTH);
    let frames = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|item| (item.map(http_body::Frame::data), rx))
    });
    Response::from_parts(parts, StreamBody::new(frames).boxed_unsync())
}

/// Where the page is written, in frames of about [`FRAME`] bytes.
struct Out {
    html: String,
    tx: mpsc::Sender<Result<Bytes, BoxError>>,
}

impl Out {
    async fn push(&mut self, markup: maud::Markup) -> Result<(), BoxError> {
        self.html.push_str(&markup.into_string());
        if self.html.len() >= FRAME {
            self.send().await?;
        }
        Ok(())
    }

    async fn send(&mut self) -> Result<(), BoxError> {
        let bytes = Bytes::from(std::mem::take(&mut self.html));
        self.tx
            .send(Ok(bytes))
            .await
            .map_err(|_| "the client went away".into())
    }
}

/// Where the reader is in the envelope: `OAI-PMH` is depth 1, `request`, `error` and the verb's
/// element depth 2, the verb's children (the units rendered one by one) depth 3.
#[derive(Default)]
struct Place {
    depth: usize,
    verb: Option<String>,
    unit: Option<Builder>,
}

async fn transform(body: OaiBody, mut view: View, out: &mut Out) -> Result<(), BoxError> {
    let stream = body.into_data_stream().map_err(std::io::Error::other);
    let mut reader = Reader::from_reader(StreamReader::new(stream));
    let mut buf = Vec::new();
    let mut at = Place::default();
    out.push(render::head(&view)).await?;
    loop {
        let event = reader.read_event_into_async(&mut buf).await?;
        let finished = match &event {
            Event::Start(e) | Event::Empty(e) => {
                let empty = matches!(event, Event::Empty(_));
                if !empty {
                    at.depth += 1;
                }
                let depth = if empty { at.depth + 1 } else { at.depth };
                match at.unit.as_mut() {
                    Some(b) => b.start(e, empty),
                    None if depth == 2 && is_verb(e.local_name().as_ref()) && !empty => {
                        let verb = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
                        out.push(render::open_verb(&verb, &request_node(&view)))
                            .await?;
                        at.verb = Some(verb);
                        None
                    }
                    None if depth == 2 || (depth == 3 && at.verb.is_some()) => {
                        let mut b = Builder::default();
                        let done = b.start(e, empty);
                        at.unit = done.is_none().then_some(b);
                        done
                    }
                    None => None,
                }
            }
            Event::End(_) => {
                let done = at.unit.as_mut().and_then(Builder::end);
                if done.is_some() {
                    at.unit = None;
                } else if at.unit.is_none() && at.depth == 2 {
                    if let Some(verb) = at.verb.take() {
                        out.push(render::close_verb(&verb)).await?;
                    }
                }
                at.depth = at.depth.saturating_sub(1);
                done
            }
            Event::Text(t) => {
                if let Some(b) = at.unit.as_mut() {
                    b.text(t);
                }
                None
            }
            Event::GeneralRef(r) => {
                if let Some(b) = at.unit.as_mut() {
                    b.reference(r);
                }
                None
            }
            Event::CData(c) => {
                if let Some(b) = at.unit.as_mut() {
                    b.raw_text(&String::from_utf8_lossy(c));
                }
                None
            }
            Event::Eof => break,
            _ => None,
        };
        if let Some(node) = finished {
            emit(&mut view, &at, node, out).await?;
        }
        buf.clear();
    }
    out.push(render::foot(&view)).await?;
    out.send().await
}

/// Renders a finished unit: the request element sets the view's verb, an error is explained, a
/// child of the verb is one row or record.
async fn emit(view: &mut View, at: &Place, node: Node, out: &mut Out) -> Result<(), BoxError> {
    match (&at.verb, node.name.as_str()) {
        (None, "request") => {
            view.verb = node.attr("verb").unwrap_or_default().to_owned();
            view.prefix = node.attr("metadataPrefix").map(str::to_owned);
            Ok(())
        }
        (None, "error") => out.push(render::error(&node)).await,
        (None, _) => Ok(()),
        (Some(verb), _) => out.push(render::unit(view, verb, &node)).await,
    }
}

/// The request's arguments as a node, for the heading.
fn request_node(view: &View) -> Node {
    let attrs = url_pairs(&view.query);
    Node {
        name: "request".into(),
        attrs,
        ..Node::default()
    }
}

fn url_pairs(query: &str) -> Vec<(String, String)> {
    modoai_protocol::form::parse_bytes(query.as_bytes()).unwrap_or_default()
}

fn is_verb(name: &[u8]) -> bool {
    matches!(
        name,
        b"Identify"
            | b"ListMetadataFormats"
            | b"ListSets"
            | b"ListIdentifiers"
            | b"ListRecords"
            | b"GetRecord"
    )
}

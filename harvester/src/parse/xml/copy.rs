//! Copying an element's content as XML text: whole, for [`Record::metadata`], or in pieces to a
//! [`MetadataSink`] with the Base64 resources decoded.
//!
//! [`Record::metadata`]: crate::parse::Record::metadata

use std::io::{self, BufRead};
use std::sync::Arc;

use quick_xml::events::{BytesStart, Event};
use quick_xml::name::PrefixDeclaration;
use quick_xml::{NsReader, Writer};

use super::didl::{is_resource, resource_info};
use super::XmlSource;
use crate::parse::check::resolve_ref;
use crate::parse::{MetadataSink, ParseError, ResourceInfo};

/// The size from which the XML copied so far is passed on.
const PIECE: usize = 64 * 1024;

impl<R: BufRead> XmlSource<R> {
    /// Reads past the end tag of the element just opened and returns its content as XML text.
    ///
    /// Markup and escapes are written back as read. Each top-level child element also gets the
    /// namespace bindings in scope that it does not declare itself, so the text stands alone.
    /// Whitespace between top-level children is dropped.
    pub(crate) fn copy_content(&mut self) -> Result<String, ParseError> {
        let mut xml = Collect(Vec::new());
        self.copy_into(&mut Out::new(&mut xml, false))?;
        // Every byte written was checked to be UTF-8 when it was read, or is ASCII markup.
        Ok(String::from_utf8(xml.0).expect("re-serialised XML is UTF-8"))
    }

    /// Like [`copy_content`](Self::copy_content), but the text goes to `sink` in pieces and
    /// Base64 `didl:Resource` content is decoded to it. True if the sink received anything.
    pub(crate) fn stream_content(
        &mut self,
        sink: &mut dyn MetadataSink,
    ) -> Result<bool, ParseError> {
        let mut out = Out::new(sink, true);
        self.copy_into(&mut out)?;
        Ok(out.written)
    }

    fn copy_into(&mut self, out: &mut Out<'_>) -> Result<(), ParseError> {
        let mut depth = 0usize;
        loop {
            let start = self.position();
            self.buf.clear();
            let mut base64 = None;
            let event = match self.reader.read(&mut self.buf)? {
                Event::End(_) if depth == 0 => break,
                Event::End(e) => {
                    depth -= 1;
                    Event::End(e)
                }
                Event::Start(e) => {
                    depth += 1;
                    base64 = out
                        .resource(self.reader.ns_reader(), &e, start)?
                        .filter(ResourceInfo::is_base64);
                    Event::Start(standalone(self.reader.ns_reader(), e, depth == 1))
                }
                Event::Empty(e) => {
                    out.resource(self.reader.ns_reader(), &e, start)?;
                    Event::Empty(standalone(self.reader.ns_reader(), e, depth == 0))
                }
                Event::Text(t) if depth == 0 && t.iter().all(u8::is_ascii_whitespace) => continue,
                Event::GeneralRef(r) => {
                    resolve_ref(&r, start)?;
                    Event::GeneralRef(r)
                }
                Event::Decl(_) | Event::DocType(_) => continue,
                Event::Eof => return Err(self.truncated()),
                other => other,
            };
            out.event(event, start)?;
            if let Some(resource) = base64 {
                self.decode_resource(out, &resource)?;
                depth -= 1;
            }
        }
        out.flush(self.position())
    }
}

/// Where a copy goes.
pub(super) struct Out<'s> {
    sink: &'s mut dyn MetadataSink,
    /// XML not passed on yet.
    xml: Writer<Vec<u8>>,
    /// Whether Base64 resources are decoded (and `didl:Resource` elements counted).
    decode: bool,
    resources: usize,
    /// Whether the sink has received anything.
    written: bool,
    /// Whether the sink was told about the resource being decoded.
    started: bool,
}

impl<'s> Out<'s> {
    fn new(sink: &'s mut dyn MetadataSink, decode: bool) -> Self {
        Out {
            sink,
            xml: Writer::new(Vec::new()),
            decode,
            resources: 0,
            written: false,
            started: false,
        }
    }

    pub(super) fn event(&mut self, event: Event<'_>, at: u64) -> Result<(), ParseError> {
        // Writing to a Vec cannot fail.
        let _ = self.xml.write_event(event);
        if self.xml.get_ref().len() >= PIECE {
            self.flush(at)?;
        }
        Ok(())
    }

    fn flush(&mut self, at: u64) -> Result<(), ParseError> {
        let piece = self.xml.get_mut();
        if piece.is_empty() {
            return Ok(());
        }
        self.written = true;
        let sent = self.sink.xml(piece);
        piece.clear();
        sent.map_err(|e| sink_error(e, at))
    }

    /// When decoding: counts a `didl:Resource` element and reads its attributes.
    fn resource<R>(
        &mut self,
        reader: &NsReader<R>,
        e: &BytesStart<'_>,
        at: u64,
    ) -> Result<Option<ResourceInfo>, ParseError> {
        if !self.decode || !is_resource(reader, e) {
            return Ok(None);
        }
        self.resources += 1;
        resource_info(e, self.resources - 1, at).map(Some)
    }

    /// Decoded bytes of `resource`; the first ones announce it, after the XML before it.
    pub(super) fn resource_bytes(
        &mut self,
        resource: &ResourceInfo,
        bytes: &[u8],
        at: u64,
    ) -> Result<(), ParseError> {
        if !self.started {
            self.flush(at)?;
            self.started = true;
            self.written = true;
            (self.sink.resource_start(resource)).map_err(|e| sink_error(e, at))?;
        }
        self.sink
            .resource_bytes(bytes)
            .map_err(|e| sink_error(e, at))
    }

    /// The resource's content was valid; announced only if it had any bytes.
    pub(super) fn resource_end(&mut self, at: u64) -> Result<(), ParseError> {
        if !std::mem::take(&mut self.started) {
            return Ok(());
        }
        self.sink.resource_end().map_err(|e| sink_error(e, at))
    }
}

fn sink_error(source: io::Error, position: u64) -> ParseError {
    ParseError::Sink {
        position,
        source: Arc::new(source),
    }
}

/// Collects a copy whole. It never sees a resource: the copy is made without decoding.
struct Collect(Vec<u8>);

impl MetadataSink for Collect {
    fn xml(&mut self, piece: &[u8]) -> io::Result<()> {
        self.0.extend_from_slice(piece);
        Ok(())
    }

    fn resource_start(&mut self, _: &ResourceInfo) -> io::Result<()> {
        unreachable!("copy_content copies with decode off, so no resource is ever announced")
    }

    fn resource_bytes(&mut self, _: &[u8]) -> io::Result<()> {
        unreachable!("copy_content copies with decode off, so no resource is ever announced")
    }

    fn resource_end(&mut self) -> io::Result<()> {
        unreachable!("copy_content copies with decode off, so no resource is ever announced")
    }
}

/// Adds to a top-level element of a copied fragment the bindings in scope that it lacks.
fn standalone<'a, R>(reader: &NsReader<R>, mut e: BytesStart<'a>, top: bool) -> BytesStart<'a> {
    if !top {
        return e;
    }
    let declared: Vec<Vec<u8>> = e
        .attributes()
        .with_checks(false)
        .flatten()
        .filter(|a| a.key.as_namespace_binding().is_some())
        .map(|a| a.key.as_ref().to_vec())
        .collect();
    let missing: Vec<(Vec<u8>, Vec<u8>)> = reader
        .resolver()
        .bindings()
        .map(|(prefix, uri)| (binding_key(prefix), quote_safe(uri.0)))
        .filter(|(key, _)| !declared.contains(key))
        .collect();
    for (key, value) in &missing {
        e.push_attribute((key.as_slice(), value.as_slice()));
    }
    e
}

fn binding_key(prefix: PrefixDeclaration<'_>) -> Vec<u8> {
    match prefix {
        PrefixDeclaration::Default => b"xmlns".to_vec(),
        PrefixDeclaration::Named(p) => [b"xmlns:", p].concat(),
    }
}

/// A raw attribute value as read, made safe for double quotes (it may come from `'…'`).
fn quote_safe(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    for &b in raw {
        match b {
            b'"' => out.extend_from_slice(b"&quot;"),
            _ => out.push(b),
        }
    }
    out
}

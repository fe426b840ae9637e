//! A checked token stream over quick-xml's `NsReader`: elements named by namespace and local
//! name, text with references resolved, every event checked by [`check`](super::check).

mod copy;
mod didl;
mod resource;

use std::io::BufRead;

use modoai_protocol::ns;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::{Namespace, ResolveResult};
use quick_xml::NsReader;

use super::check::{attribute_value, decoded, resolve_ref, xml_error, CheckedReader};
use super::ParseError;

/// The namespace of an element.
#[derive(Debug)]
enum Ns {
    Oai,
    Other(String),
    None,
}

/// An opened element: its name and, for OAI-PMH elements, its unprefixed attributes.
#[derive(Debug)]
pub(crate) struct Element {
    local: String,
    ns: Ns,
    /// `<name/>`: there is no content and no end tag to read.
    pub(crate) empty: bool,
    /// Where the start tag begins.
    pub(crate) position: u64,
    attrs: Vec<(String, String)>,
}

impl Element {
    /// The local name, if the element is in the OAI-PMH namespace.
    pub(crate) fn oai(&self) -> Option<&str> {
        matches!(self.ns, Ns::Oai).then_some(self.local.as_str())
    }

    /// An unprefixed attribute of an OAI-PMH element, unescaped.
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The name in Clark notation, `{namespace}local`, for messages.
    pub(crate) fn clark_name(&self) -> String {
        match &self.ns {
            Ns::Oai => format!("{{{}}}{}", ns::OAI_PMH, self.local),
            Ns::Other(uri) => format!("{{{uri}}}{}", self.local),
            Ns::None => self.local.clone(),
        }
    }
}

/// One step through the document, with markup that carries no data (comments, processing
/// instructions, the XML declaration, a DOCTYPE) already dropped.
#[derive(Debug)]
pub(crate) enum Token {
    Open(Element),
    Close,
    /// Character data with references resolved; one element's text may come in several pieces.
    Text(String),
    Eof,
}

/// The document being read.
pub(crate) struct XmlSource<R> {
    reader: CheckedReader<R>,
    buf: Vec<u8>,
}

impl<R> XmlSource<R> {
    /// Bytes consumed so far.
    pub(crate) fn position(&self) -> u64 {
        self.reader.position()
    }

    /// The capacity of the event buffer, which bounds the memory a page takes.
    #[cfg(test)]
    pub(crate) fn buffer_capacity(&self) -> usize {
        self.buf.capacity()
    }
}

impl<R: BufRead> XmlSource<R> {
    pub(crate) fn new(reader: R) -> Self {
        XmlSource {
            reader: CheckedReader::new(NsReader::from_reader(reader)),
            buf: Vec::new(),
        }
    }

    pub(crate) fn into_inner(self) -> R {
        self.reader.into_inner()
    }

    /// The error for input that ends inside the envelope.
    pub(crate) fn truncated(&self) -> ParseError {
        ParseError::Truncated {
            position: self.position(),
            source: None,
        }
    }

    pub(crate) fn next(&mut self) -> Result<Token, ParseError> {
        loop {
            let start = self.position();
            self.buf.clear();
            let token = match self.reader.read(&mut self.buf)? {
                Event::Start(e) => Token::Open(element(self.reader.ns_reader(), &e, false, start)?),
                Event::Empty(e) => Token::Open(element(self.reader.ns_reader(), &e, true, start)?),
                Event::End(_) => Token::Close,
                Event::Text(t) => Token::Text(decoded(t.xml10_content(), start)?),
                Event::CData(t) => Token::Text(decoded(t.xml10_content(), start)?),
                Event::GeneralRef(r) => Token::Text(resolve_ref(&r, start)?.into_owned()),
                Event::Eof => Token::Eof,
                Event::Comment(_) | Event::PI(_) | Event::Decl(_) | Event::DocType(_) => continue,
            };
            return Ok(token);
        }
    }

    /// Reads past the end tag of the element just opened, checking everything on the way.
    pub(crate) fn skip_content(&mut self) -> Result<(), ParseError> {
        let mut depth = 0usize;
        loop {
            let start = self.position();
            self.buf.clear();
            match self.reader.read(&mut self.buf)? {
                Event::Start(_) => depth += 1,
                Event::End(_) if depth == 0 => return Ok(()),
                Event::End(_) => depth -= 1,
                Event::GeneralRef(r) => {
                    resolve_ref(&r, start)?;
                }
                Event::Eof => return Err(self.truncated()),
                _ => {}
            }
        }
    }
}

fn element<R>(
    reader: &NsReader<R>,
    e: &BytesStart<'_>,
    empty: bool,
    position: u64,
) -> Result<Element, ParseError> {
    let (resolved, local) = reader.resolve_element(e.name());
    let ns = match resolved {
        ResolveResult::Bound(Namespace(uri)) if uri == ns::OAI_PMH.as_bytes() => Ns::Oai,
        ResolveResult::Bound(Namespace(uri)) => Ns::Other(lossy(uri)),
        ResolveResult::Unbound | ResolveResult::Unknown(_) => Ns::None,
    };
    let attrs = match ns {
        Ns::Oai => attributes(e, position)?,
        _ => Vec::new(),
    };
    Ok(Element {
        local: lossy(local.as_ref()),
        ns,
        empty,
        position,
        attrs,
    })
}

/// The unprefixed attributes, unescaped and checked: OAI-PMH's own attributes have no prefix.
fn attributes(e: &BytesStart<'_>, position: u64) -> Result<Vec<(String, String)>, ParseError> {
    let mut out = Vec::new();
    for attr in e.attributes() {
        let attr = attr.map_err(|err| xml_error(err.into(), position))?;
        if attr.key.prefix().is_some() || attr.key.as_namespace_binding().is_some() {
            continue;
        }
        let value = attribute_value(&attr, position)?.into_owned();
        out.push((lossy(attr.key.as_ref()), value));
    }
    Ok(out)
}

/// Bytes already checked to be UTF-8.
fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

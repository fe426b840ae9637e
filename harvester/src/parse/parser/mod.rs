//! [`PageParser`]: the state machine over one OAI-PMH response, from the prolog to
//! `</OAI-PMH>`; the single items are read in [`items`].

mod items;

use std::fmt;
use std::io::BufRead;

use modoai_protocol::{Datestamp, Verb};

use super::xml::{Element, Token, XmlSource};
use super::{MetadataSink, PageEvent, ParseError};

/// Where the parser is in the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the root element.
    Prolog,
    /// Inside `<OAI-PMH>`, between its children.
    Envelope,
    /// Inside a list verb element (`ListRecords`, `GetRecord`, …), between items.
    List,
    /// `</OAI-PMH>` has been read.
    Done,
}

/// Pulls the items of one OAI-PMH response out of a byte stream.
///
/// Call [`next_event`](Self::next_event) until it returns `Ok(None)`, which it does only after a
/// complete `</OAI-PMH>`. It is fused on errors: once it has returned an error it returns the same
/// error again. As an [`Iterator`] it yields that error once and then ends.
pub struct PageParser<R> {
    /// The document (its buffer is measured by the parse tests).
    pub(super) source: XmlSource<R>,
    state: State,
    verb: Option<Verb>,
    has_payload: bool,
    failure: Option<ParseError>,
}

impl<R: BufRead> PageParser<R> {
    /// A parser reading the page from `reader`. Wrap unbuffered sources in a `BufReader`.
    pub fn new(reader: R) -> Self {
        PageParser {
            source: XmlSource::new(reader),
            state: State::Prolog,
            verb: None,
            has_payload: false,
            failure: None,
        }
    }

    /// The next item of the page; `Ok(None)` once `</OAI-PMH>` has been read.
    pub fn next_event(&mut self) -> Result<Option<PageEvent>, ParseError> {
        self.fused(None)
    }

    /// Like [`next_event`](Self::next_event), but a record's metadata goes to `sink` while it is
    /// read, and the [`Record`](super::Record) has `metadata: None` and `streamed: true`.
    ///
    /// Base64 `didl:Resource` content is decoded to the sink's `resource_*` methods, read past
    /// quick-xml so that its size does not matter (see [`MetadataSink`]). All calls to the sink
    /// for a record happen during the call that returns the record. Base64 that does not decode
    /// is [`ParseError::Base64`]; an error from the sink is [`ParseError::Sink`].
    ///
    /// ```
    /// use std::io;
    /// use modoai_harvester::parse::{MetadataSink, PageEvent, PageParser, ResourceInfo};
    ///
    /// #[derive(Default)]
    /// struct Files {
    ///     xml: Vec<u8>,
    ///     files: Vec<(Option<String>, Vec<u8>)>,
    /// }
    ///
    /// impl MetadataSink for Files {
    ///     fn xml(&mut self, piece: &[u8]) -> io::Result<()> {
    ///         self.xml.extend_from_slice(piece);
    ///         Ok(())
    ///     }
    ///     fn resource_start(&mut self, resource: &ResourceInfo) -> io::Result<()> {
    ///         self.files.push((resource.mime_type.clone(), Vec::new()));
    ///         Ok(())
    ///     }
    ///     fn resource_bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
    ///         self.files.last_mut().unwrap().1.extend_from_slice(bytes);
    ///         Ok(())
    ///     }
    ///     fn resource_end(&mut self) -> io::Result<()> {
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let page = r#"<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">
    ///   <responseDate>2024-05-01T12:00:00Z</responseDate>
    ///   <GetRecord><record>
    ///     <header><identifier>a</identifier><datestamp>2024-04-30</datestamp></header>
    ///     <metadata><didl:DIDL xmlns:didl="urn:mpeg:mpeg21:2002:02-DIDL-NS"><didl:Item>
    ///       <didl:Resource mimeType="text/plain" encoding="base64">
    ///         SGVsbG8s
    ///         IHdvcmxk
    ///       </didl:Resource>
    ///     </didl:Item></didl:DIDL></metadata>
    ///   </record></GetRecord>
    /// </OAI-PMH>"#;
    ///
    /// let mut parser = PageParser::new(page.as_bytes());
    /// let mut files = Files::default();
    /// while let Some(event) = parser.next_event_with(&mut files)? {
    ///     if let PageEvent::Record(record) = event {
    ///         assert!(record.streamed && record.metadata.is_none());
    ///     }
    /// }
    /// assert_eq!(files.files, [(Some("text/plain".to_owned()), b"Hello, world".to_vec())]);
    /// let xml = String::from_utf8(files.xml)?;
    /// assert!(xml.contains(r#"encoding="base64"></didl:Resource>"#), "{xml}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn next_event_with(
        &mut self,
        sink: &mut impl MetadataSink,
    ) -> Result<Option<PageEvent>, ParseError> {
        self.fused(Some(sink))
    }

    /// The verb element of the response, once the parser has reached it. `None` for error pages.
    pub fn verb(&self) -> Option<Verb> {
        self.verb
    }

    /// True once the whole envelope, up to `</OAI-PMH>`, has been read without error.
    pub fn is_complete(&self) -> bool {
        self.state == State::Done
    }

    /// Bytes of input consumed so far.
    pub fn position(&self) -> u64 {
        self.source.position()
    }

    /// The underlying reader, positioned after the last byte the parser consumed.
    pub fn into_inner(self) -> R {
        self.source.into_inner()
    }
}

impl<R> fmt::Debug for PageParser<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PageParser")
            .field("state", &self.state)
            .field("verb", &self.verb)
            .field("position", &self.source.position())
            .finish_non_exhaustive()
    }
}

impl<R: BufRead> Iterator for PageParser<R> {
    type Item = Result<PageEvent, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failure.is_some() {
            return None;
        }
        self.next_event().transpose()
    }
}

// The state machine; the item parsers are in `items`.
impl<R: BufRead> PageParser<R> {
    /// Returns the error again once there was one.
    fn fused(
        &mut self,
        sink: Option<&mut (dyn MetadataSink + '_)>,
    ) -> Result<Option<PageEvent>, ParseError> {
        if let Some(error) = &self.failure {
            return Err(error.clone());
        }
        let result = self.advance(sink);
        if let Err(error) = &result {
            self.failure = Some(error.clone());
        }
        result
    }

    fn advance(
        &mut self,
        mut sink: Option<&mut (dyn MetadataSink + '_)>,
    ) -> Result<Option<PageEvent>, ParseError> {
        loop {
            let event = match self.state {
                State::Done => return Ok(None),
                State::Prolog => self.root().map(|()| None)?,
                State::Envelope | State::List => self.step(sink.as_deref_mut())?,
            };
            if event.is_some() {
                return Ok(event);
            }
        }
    }

    /// Finds the root element; it must be `OAI-PMH` in the OAI-PMH namespace (§3.2).
    fn root(&mut self) -> Result<(), ParseError> {
        let position = self.source.position();
        let found = match self.source.next()? {
            Token::Text(text) if text.trim().is_empty() => return Ok(()),
            Token::Open(root) if root.oai() == Some("OAI-PMH") => {
                self.state = State::Envelope;
                return if root.empty { self.finish() } else { Ok(()) };
            }
            Token::Open(root) => {
                let found = format!("the root element is `{}`", root.clark_name());
                return Err(ParseError::NotOaiPmh {
                    found,
                    position: root.position,
                });
            }
            Token::Text(text) => format!("text {:?} instead of a root element", snippet(&text)),
            Token::Close | Token::Eof => "no root element".to_owned(),
        };
        Err(ParseError::NotOaiPmh { found, position })
    }

    fn step(
        &mut self,
        sink: Option<&mut (dyn MetadataSink + '_)>,
    ) -> Result<Option<PageEvent>, ParseError> {
        match self.source.next()? {
            Token::Open(element) => self.open(&element, sink),
            Token::Close if self.state == State::List => {
                self.state = State::Envelope;
                Ok(None)
            }
            Token::Close => self.finish().map(|()| None),
            Token::Text(_) => Ok(None),
            Token::Eof => Err(self.source.truncated()),
        }
    }

    /// `</OAI-PMH>`: the page is complete if it carried a verb element or an error.
    fn finish(&mut self) -> Result<(), ParseError> {
        if !self.has_payload {
            return Err(ParseError::NoPayload {
                position: self.source.position(),
            });
        }
        self.state = State::Done;
        Ok(())
    }

    fn open(
        &mut self,
        el: &Element,
        sink: Option<&mut (dyn MetadataSink + '_)>,
    ) -> Result<Option<PageEvent>, ParseError> {
        let event = match (self.state, el.oai()) {
            (State::Envelope, Some("responseDate")) => {
                Datestamp::parse_lenient(&self.text(el)?).map(PageEvent::ResponseDate)
            }
            (State::Envelope, Some("error")) => Some(self.error(el)?),
            (State::Envelope, Some(name)) => match name.parse::<Verb>() {
                Ok(verb) => self.enter(el, verb)?,
                Err(_) => self.skip(el).map(|()| None)?,
            },
            (State::List, Some("record")) => Some(PageEvent::Record(self.record(el, sink)?)),
            (State::List, Some("header")) => Some(PageEvent::Header(self.header(el)?)),
            (State::List, Some("set")) => Some(self.set(el)?),
            (State::List, Some("metadataFormat")) => {
                let names = ["metadataPrefix", "schema", "metadataNamespace"];
                let [prefix, schema, namespace] = self.fields(el, names)?;
                Some(PageEvent::Format {
                    prefix,
                    schema,
                    namespace,
                })
            }
            (State::List, Some("resumptionToken")) => Some(PageEvent::Token(self.token(el)?)),
            _ => self.skip(el).map(|()| None)?,
        };
        Ok(event)
    }

    /// The verb element: Identify is one item, the others contain a list.
    fn enter(&mut self, el: &Element, verb: Verb) -> Result<Option<PageEvent>, ParseError> {
        self.verb = Some(verb);
        self.has_payload = true;
        if verb == Verb::Identify {
            return self
                .identify(el)
                .map(|identify| Some(PageEvent::Identify(identify)));
        }
        if !el.empty {
            self.state = State::List;
        }
        Ok(None)
    }

    /// Calls `visit` for each child element of `parent`, then consumes its end tag. `visit`
    /// must read the child up to and including the child's own end tag.
    fn each_child(
        &mut self,
        parent: &Element,
        mut visit: impl FnMut(&mut Self, Element) -> Result<(), ParseError>,
    ) -> Result<(), ParseError> {
        if parent.empty {
            return Ok(());
        }
        loop {
            match self.source.next()? {
                Token::Open(child) => visit(self, child)?,
                Token::Close => return Ok(()),
                Token::Text(_) => {}
                Token::Eof => return Err(self.source.truncated()),
            }
        }
    }

    /// The element's own text, trimmed; child elements are skipped.
    fn text(&mut self, el: &Element) -> Result<String, ParseError> {
        let mut text = String::new();
        if el.empty {
            return Ok(text);
        }
        loop {
            match self.source.next()? {
                Token::Text(piece) => text.push_str(&piece),
                Token::Open(child) => self.skip(&child)?,
                Token::Close => break,
                Token::Eof => return Err(self.source.truncated()),
            }
        }
        Ok(text.trim().to_owned())
    }

    fn skip(&mut self, el: &Element) -> Result<(), ParseError> {
        if el.empty {
            return Ok(());
        }
        self.source.skip_content()
    }
}

/// The start of a text, for messages about what came instead of XML.
fn snippet(text: &str) -> String {
    text.trim().chars().take(60).collect()
}

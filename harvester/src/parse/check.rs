//! Reading one event with the checks quick-xml leaves to its caller.
//!
//! quick-xml checks tags but not characters, and hands entity references over unresolved. Here
//! every event's raw bytes are checked to be UTF-8 made of characters XML 1.0 allows (§2.2
//! Char), references are resolved to the five predefined entities (§4.6) or to allowed
//! characters, and quick-xml's errors become [`ParseError`]s with byte offsets.

use std::borrow::Cow;
use std::io::BufRead;

use modoai_protocol::is_xml_char;
use quick_xml::errors::IllFormedError;
use quick_xml::escape::{resolve_predefined_entity, EscapeError};
use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::NsReader;

use super::ParseError;

/// How deep elements may nest. quick-xml counts namespace scopes in a `u16`, which overflows at
/// 65,536 levels; real pages stay below a few dozen.
pub(crate) const MAX_DEPTH: usize = 4096;

/// quick-xml's `NsReader` with the checks it leaves to its caller.
pub(crate) struct CheckedReader<R> {
    reader: NsReader<R>,
    /// Open elements, counted here so that [`MAX_DEPTH`] is enforced before quick-xml's counter.
    depth: usize,
    /// Bytes read from the underlying reader past quick-xml (Base64 text, see `xml::resource`),
    /// which quick-xml's offsets do not count.
    skipped: u64,
}

impl<R> CheckedReader<R> {
    pub(crate) fn new(reader: NsReader<R>) -> Self {
        CheckedReader {
            reader,
            depth: 0,
            skipped: 0,
        }
    }

    /// Bytes consumed so far.
    pub(crate) fn position(&self) -> u64 {
        self.reader.buffer_position() + self.skipped
    }

    /// The reader, for name resolution.
    pub(crate) fn ns_reader(&self) -> &NsReader<R> {
        &self.reader
    }

    /// The underlying reader, to read past quick-xml; the bytes taken go to [`Self::skip`].
    pub(crate) fn get_mut(&mut self) -> &mut R {
        self.reader.get_mut()
    }

    /// Counts `n` bytes consumed from [`Self::get_mut`] behind quick-xml's back.
    pub(crate) fn skip(&mut self, n: usize) {
        self.skipped += n as u64;
    }

    pub(crate) fn into_inner(self) -> R {
        self.reader.into_inner()
    }
}

impl<R: BufRead> CheckedReader<R> {
    /// Reads one event, checks its characters and keeps count of the open elements.
    pub(crate) fn read<'b>(&mut self, buf: &'b mut Vec<u8>) -> Result<Event<'b>, ParseError> {
        let skipped = self.skipped;
        let start = self.position();
        let event = self
            .reader
            .read_event_into(buf)
            .map_err(|e| reader_error(e, &mut self.reader, skipped))?;
        check_event(&event, start)?;
        match event {
            Event::Start(_) if self.depth == MAX_DEPTH => {
                return Err(ParseError::TooDeep {
                    position: start,
                    limit: MAX_DEPTH,
                });
            }
            Event::Start(_) => self.depth += 1,
            Event::End(_) => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        Ok(event)
    }
}

fn reader_error<R: BufRead>(
    error: quick_xml::Error,
    reader: &mut NsReader<R>,
    skipped: u64,
) -> ParseError {
    let position = reader.error_position() + skipped;
    match error {
        quick_xml::Error::Io(source) => ParseError::Io {
            position: reader.buffer_position() + skipped,
            source,
        },
        // Unfinished markup, or a `&…` without `;`, is truncation only if nothing follows;
        // otherwise it is a stray `<!` or `&`.
        quick_xml::Error::Syntax(source) if is_at_eof(reader) => ParseError::Truncated {
            position,
            source: Some(source),
        },
        quick_xml::Error::IllFormed(IllFormedError::UnclosedReference) if is_at_eof(reader) => {
            ParseError::Truncated {
                position,
                source: None,
            }
        }
        other => xml_error(other, position),
    }
}

fn is_at_eof<R: BufRead>(reader: &mut NsReader<R>) -> bool {
    reader
        .get_mut()
        .fill_buf()
        .is_ok_and(|rest| rest.is_empty())
}

pub(crate) fn xml_error(error: quick_xml::Error, position: u64) -> ParseError {
    match error {
        quick_xml::Error::Escape(EscapeError::UnrecognizedEntity(_, name)) => {
            ParseError::UndefinedEntity { name, position }
        }
        source => ParseError::Malformed { position, source },
    }
}

pub(crate) fn decoded<E: Into<quick_xml::Error>>(
    text: Result<Cow<'_, str>, E>,
    position: u64,
) -> Result<String, ParseError> {
    text.map(|t| t.into_owned())
        .map_err(|e| xml_error(e.into(), position))
}

/// Checks the raw bytes of an event: UTF-8, and only characters XML 1.0 allows.
fn check_event(event: &Event<'_>, start: u64) -> Result<(), ParseError> {
    // The offset of the event's content behind its opening markup (`<`, `</`, `<!--`, …).
    let (bytes, markup): (&[u8], u64) = match event {
        Event::Start(e) | Event::Empty(e) => (e, 1),
        Event::End(e) => (e, 2),
        Event::Text(e) => (e, 0),
        Event::CData(e) => (e, 9),
        Event::Comment(e) => (e, 4),
        Event::PI(e) => (e, 2),
        Event::Decl(e) => (e, 2),
        Event::DocType(e) => (e, 10),
        Event::GeneralRef(e) => (e, 1),
        Event::Eof => return Ok(()),
    };
    let base = start + markup;
    let text = std::str::from_utf8(bytes).map_err(|e| ParseError::InvalidUtf8 {
        position: base + e.valid_up_to() as u64,
    })?;
    if let Some((i, character)) = first_invalid(text) {
        return Err(ParseError::InvalidChar {
            character,
            position: base + i as u64,
        });
    }
    match event {
        Event::Start(e) | Event::Empty(e) => check_attributes(e, start),
        _ => Ok(()),
    }
}

/// quick-xml parses attributes only when asked, so without this a start tag with a malformed
/// one (`<a b>`, `<a b=c>`, a repeated name, an undefined entity, `&#1;`) would pass unnoticed
/// wherever the parser does not read the attributes: in metadata, and in elements it skips.
fn check_attributes(e: &BytesStart<'_>, position: u64) -> Result<(), ParseError> {
    for attr in e.attributes() {
        let attr = attr.map_err(|err| xml_error(err.into(), position))?;
        attribute_value(&attr, position)?;
    }
    Ok(())
}

/// An attribute's value, unescaped and checked to hold only XML characters.
pub(crate) fn attribute_value<'a>(
    attr: &'a Attribute<'a>,
    position: u64,
) -> Result<Cow<'a, str>, ParseError> {
    let value = attr
        .unescape_value()
        .map_err(|err| xml_error(err, position))?;
    match first_invalid(&value) {
        Some((_, character)) => Err(ParseError::InvalidChar {
            character,
            position,
        }),
        None => Ok(value),
    }
}

pub(crate) fn first_invalid(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| !is_xml_char(c))
}

/// The text a reference stands for: a character reference to an allowed character, or one of
/// the five predefined entities.
pub(crate) fn resolve_ref(
    r: &BytesRef<'_>,
    position: u64,
) -> Result<Cow<'static, str>, ParseError> {
    if r.is_char_ref() {
        return match r.resolve_char_ref().map_err(|e| xml_error(e, position))? {
            Some(c) if is_xml_char(c) => Ok(Cow::Owned(c.to_string())),
            Some(character) => Err(ParseError::InvalidChar {
                character,
                position,
            }),
            None => unreachable!("is_char_ref checked the `#`"),
        };
    }
    let name = String::from_utf8_lossy(r).into_owned();
    match resolve_predefined_entity(&name) {
        Some(text) => Ok(Cow::Borrowed(text)),
        None => Err(ParseError::UndefinedEntity { name, position }),
    }
}

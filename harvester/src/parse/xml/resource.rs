//! The content of an inline Base64 `didl:Resource`, decoded straight from the underlying reader.
//!
//! quick-xml reads a text node whole into its buffer, and a file of a few GiB inlined as Base64 is
//! one text node. So that text is read here, from the `BufRead` quick-xml wraps, up to the next
//! `<` or `&`, which is left unread. This only happens right after quick-xml returned a start
//! tag, a CDATA section, a comment or a reference: then it is between markup
//! (`ParseState::InsideText`) and has not looked at the next byte yet, so it carries on as if it
//! had read the text itself. Its byte offsets miss what was read here, which
//! `CheckedReader::skip` counts.

use std::io::{self, BufRead};
use std::sync::Arc;

use quick_xml::events::Event;

use super::copy::Out;
use super::XmlSource;
use crate::parse::check::resolve_ref;
use crate::parse::decode::{base64_error, Base64Decoder};
use crate::parse::{ParseError, ResourceInfo};

/// Takes text starting at a position and returns how many bytes it took.
type Take<'a> = dyn FnMut(&[u8], u64) -> Result<usize, ParseError> + 'a;

impl<R: BufRead> XmlSource<R> {
    /// Decodes the content of the Base64 resource whose start tag was just read and copied to
    /// `out`, then copies its end tag.
    pub(super) fn decode_resource(
        &mut self,
        out: &mut Out<'_>,
        resource: &ResourceInfo,
    ) -> Result<(), ParseError> {
        let mut decoder = Base64Decoder::new();
        let mut emit = |bytes: &[u8], at: u64| out.resource_bytes(resource, bytes, at);
        loop {
            self.bypass(&mut |text, at| decoder.feed(text, at, &mut emit))?;
            let start = self.position();
            self.buf.clear();
            match self.reader.read(&mut self.buf)? {
                Event::End(e) => {
                    decoder.finish(start, &mut emit)?;
                    out.resource_end(start)?;
                    return out.event(Event::End(e), start);
                }
                // `<![CDATA[` is 9 bytes.
                Event::CData(t) => decoder.feed_all(&t, start + 9, &mut emit)?,
                Event::GeneralRef(r) => {
                    let text = resolve_ref(&r, start)?;
                    decoder.feed_all(text.as_bytes(), start, &mut emit)?;
                }
                // Not after `bypass`, which stops only at `<` or `&`; kept for safety.
                Event::Text(t) => decoder.feed_all(&t, start, &mut emit)?,
                Event::Start(_) | Event::Empty(_) => {
                    return Err(base64_error(start, "an element inside Base64 content"));
                }
                Event::Eof => return Err(self.truncated()),
                Event::Comment(_) | Event::PI(_) | Event::Decl(_) | Event::DocType(_) => {}
            }
        }
    }

    /// Passes text from the underlying reader to `take` until `take` leaves some of it (markup
    /// follows) or the input ends.
    fn bypass(&mut self, take: &mut Take<'_>) -> Result<(), ParseError> {
        loop {
            let at = self.position();
            let text = match self.reader.get_mut().fill_buf() {
                Ok(text) => text,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(ParseError::Io {
                        position: at,
                        source: Arc::new(e),
                    })
                }
            };
            // At the end of the input, quick-xml's next event reports the truncation.
            if text.is_empty() {
                return Ok(());
            }
            let len = text.len();
            let used = take(text, at)?;
            self.reader.get_mut().consume(used);
            self.reader.skip(used);
            if used < len {
                return Ok(());
            }
        }
    }
}

//! The parsers of single items: each reads its element up to and including the end tag.

use std::io::BufRead;

use modoai_protocol::{Datestamp, ErrorCode, Granularity, OaiError};

use super::PageParser;
use crate::parse::xml::Element;
use crate::parse::{
    Header, Identify, MetadataSink, PageEvent, ParseError, Record, ResumptionToken,
};

impl<R: BufRead> PageParser<R> {
    /// One `<error>` (§3.6); an unknown code fails the page, which is an error page anyway.
    pub(super) fn error(&mut self, el: &Element) -> Result<PageEvent, ParseError> {
        self.has_payload = true;
        let code = el.attr("code").unwrap_or_default().trim().to_owned();
        let message = self.text(el)?;
        match code.parse::<ErrorCode>() {
            Ok(code) => Ok(PageEvent::Error(OaiError::new(code, message))),
            Err(()) => Err(ParseError::UnknownErrorCode {
                code,
                message,
                position: el.position,
            }),
        }
    }

    /// A `<record>` (§2.5): header, metadata (to `sink` if there is one); `about` is skipped.
    pub(super) fn record(
        &mut self,
        el: &Element,
        mut sink: Option<&mut (dyn MetadataSink + '_)>,
    ) -> Result<Record, ParseError> {
        let mut record = Record::default();
        self.each_child(el, |p, child| {
            match (child.oai(), sink.as_deref_mut()) {
                (Some("header"), _) => record.header = p.header(&child)?,
                (Some("metadata"), None) => record.metadata = p.metadata(&child)?,
                (Some("metadata"), Some(sink)) if !child.empty => {
                    record.streamed = p.source.stream_content(sink)?;
                }
                _ => p.skip(&child)?,
            }
            Ok(())
        })?;
        Ok(record)
    }

    /// A `<header>` (§2.5); missing children stay empty.
    pub(super) fn header(&mut self, el: &Element) -> Result<Header, ParseError> {
        let mut header = Header {
            deleted: el.attr("status") == Some("deleted"),
            ..Header::default()
        };
        self.each_child(el, |p, child| {
            match child.oai() {
                Some("identifier") => header.identifier = p.text(&child)?,
                Some("datestamp") => header.datestamp_raw = p.text(&child)?,
                Some("setSpec") => header.set_specs.push(p.text(&child)?),
                _ => p.skip(&child)?,
            }
            Ok(())
        })?;
        header.datestamp = Datestamp::parse_lenient(&header.datestamp_raw);
        Ok(header)
    }

    /// The content of `<metadata>`; `None` when it is empty.
    pub(super) fn metadata(&mut self, el: &Element) -> Result<Option<String>, ParseError> {
        if el.empty {
            return Ok(None);
        }
        let xml = self.source.copy_content()?;
        Ok(Some(xml).filter(|xml| !xml.is_empty()))
    }

    /// The attributes are optional (XSD); one that does not parse is dropped, never the token.
    pub(super) fn token(&mut self, el: &Element) -> Result<ResumptionToken, ParseError> {
        let number = |name| el.attr(name).and_then(|v| v.trim().parse().ok());
        Ok(ResumptionToken {
            cursor: number("cursor"),
            complete_list_size: number("completeListSize"),
            expiration: el.attr("expirationDate").and_then(Datestamp::parse_lenient),
            token: self.text(el)?,
        })
    }

    /// The `<Identify>` element (§4.2); `description`s are skipped.
    pub(super) fn identify(&mut self, el: &Element) -> Result<Identify, ParseError> {
        let mut id = Identify::default();
        self.each_child(el, |p, child| {
            let Some(name) = child.oai() else {
                return p.skip(&child);
            };
            match name {
                "repositoryName" => id.repository_name = p.text(&child)?,
                "baseURL" => id.base_url = p.text(&child)?,
                "protocolVersion" => id.protocol_version = p.text(&child)?,
                "adminEmail" => id.admin_emails.push(p.text(&child)?),
                "earliestDatestamp" => {
                    id.earliest_datestamp = Datestamp::parse_lenient(&p.text(&child)?);
                }
                "deletedRecord" => id.deleted_record = p.text(&child)?,
                "granularity" => id.granularity = Granularity::from_identify(&p.text(&child)?),
                "compression" => id.compression.push(p.text(&child)?),
                _ => p.skip(&child)?,
            }
            Ok(())
        })?;
        Ok(id)
    }

    /// A `<set>` (§4.6): spec, name, and the text of its description (its container's
    /// elements, such as `dc:description`, joined by spaces).
    pub(super) fn set(&mut self, el: &Element) -> Result<PageEvent, ParseError> {
        let (mut spec, mut name, mut description) = (String::new(), String::new(), None);
        self.each_child(el, |p, child| {
            match child.oai() {
                Some("setSpec") => spec = p.text(&child)?,
                Some("setName") => name = p.text(&child)?,
                Some("setDescription") => {
                    description = p.metadata(&child)?.map(|xml| text_of(&xml));
                }
                _ => p.skip(&child)?,
            }
            Ok(())
        })?;
        Ok(PageEvent::Set {
            spec,
            name,
            description: description.filter(|d| !d.is_empty()),
        })
    }

    /// The text of the named children (the last one of each name wins); others are skipped.
    pub(super) fn fields<const N: usize>(
        &mut self,
        el: &Element,
        names: [&str; N],
    ) -> Result<[String; N], ParseError> {
        let mut values = [(); N].map(|()| String::new());
        self.each_child(el, |p, child| {
            match child
                .oai()
                .and_then(|name| names.iter().position(|n| *n == name))
            {
                Some(i) => values[i] = p.text(&child)?,
                None => p.skip(&child)?,
            }
            Ok(())
        })?;
        Ok(values)
    }
}

/// The text of an XML fragment (well-formed: it was copied from the page), with its white space
/// collapsed and a space between the texts of elements.
fn text_of(xml: &str) -> String {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut text = String::new();
    loop {
        match reader.read_event() {
            Ok(Event::Text(t)) => text.push_str(&t.decode().unwrap_or_default()),
            Ok(Event::CData(c)) => text.push_str(&String::from_utf8_lossy(&c)),
            Ok(Event::GeneralRef(r)) => {
                let name = r.decode().unwrap_or_default();
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => Some(c.to_string()),
                    _ => quick_xml::escape::resolve_predefined_entity(&name).map(str::to_owned),
                };
                text.push_str(&resolved.unwrap_or_default());
            }
            Ok(Event::Start(_) | Event::End(_) | Event::Empty(_)) => text.push(' '),
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => {}
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_set_description_reads_as_its_text() {
        let xml = "<oai_dc:dc xmlns:oai_dc=\"x\" xmlns:dc=\"y\"><dc:description>Reports \
                   &amp; minutes\n  of &#x41;GMs</dc:description><dc:subject>2019</dc:subject></oai_dc:dc>";
        assert_eq!(super::text_of(xml), "Reports & minutes of AGMs 2019");
    }
}

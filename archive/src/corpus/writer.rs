//! The writer of corpus definitions (`schemas/corpus.xsd`): the head, then part by part.

use std::io::{self, Write};

use modoai_protocol::Datestamp;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;
use time::OffsetDateTime;

use super::{Selection, NS};
use crate::pwid::Pwid;

/// What a corpus definition says before its parts.
#[derive(Clone, Copy, Debug)]
pub struct Head<'a> {
    /// The corpus's own PWID (`collection` coverage).
    pub pwid: &'a Pwid,
    /// The archive id (several, space-separated, for a corpus across archives).
    pub archive: &'a str,
    /// When the corpus was defined, whole seconds.
    pub created: OffsetDateTime,
    /// What the corpus is (for an export: the query and the date).
    pub description: Option<&'a str>,
    /// What selected the parts.
    pub selection: &'a Selection,
    /// Parts listed.
    pub count: u64,
}

/// One part of a corpus definition.
#[derive(Clone, Copy, Debug)]
pub struct PartFacts<'a> {
    /// Its PWID (`part` coverage).
    pub pwid: &'a Pwid,
    /// The URL captured.
    pub url: &'a str,
    /// The OAI identifier of its item.
    pub identifier: &'a str,
    /// The item's OAI datestamp.
    pub datestamp: &'a str,
    /// `resource` or `revisit`.
    pub kind: &'a str,
    /// Its MIME type.
    pub content_type: &'a str,
    /// Its payload digest, `sha1:BASE32`.
    pub digest: &'a str,
    /// The WARC file holding its record.
    pub warc_file: &'a str,
    /// The offset of its record's gzip member.
    pub offset: u64,
    /// The length of that member.
    pub length: u64,
    /// The datestamp of its deletion (a selection of what was deleted).
    pub deleted: Option<&'a str>,
}

/// Writes a corpus definition (`schemas/corpus.xsd`) part by part: the one writer of the format,
/// for the harvester's `corpus` and the explorer's export of a search. Nothing is buffered but
/// what `out` buffers: an export drains its `Vec<u8>` ([`CorpusWriter::get_mut`]) page by page.
pub struct CorpusWriter<W: Write> {
    w: Writer<W>,
}

impl<W: Write> CorpusWriter<W> {
    /// Writes the declaration and the head: the root element with the corpus's PWID, the
    /// archive, the date, the description, the selection and the count.
    pub fn new(out: W, head: &Head<'_>) -> io::Result<Self> {
        let mut w = Writer::new_with_indent(out, b' ', 2);
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
        let pwid_text = head.pwid.to_string();
        w.write_event(Event::Start(
            BytesStart::new("corpus")
                .with_attributes([("xmlns", NS), ("pwid", pwid_text.as_str())]),
        ))?;
        text(&mut w, "archive", head.archive)?;
        text(&mut w, "created", &crate::warc::warc_date(head.created))?;
        if let Some(d) = head.description {
            text(&mut w, "description", d)?;
        }
        selection_element(&mut w, head.selection)?;
        text(&mut w, "count", &head.count.to_string())?;
        Ok(CorpusWriter { w })
    }

    /// Writes one part.
    pub fn part(&mut self, p: &PartFacts<'_>) -> io::Result<()> {
        let (pwid, offset, length) = (
            p.pwid.to_string(),
            p.offset.to_string(),
            p.length.to_string(),
        );
        let mut start = BytesStart::new("part").with_attributes([
            ("pwid", pwid.as_str()),
            ("url", p.url),
            ("identifier", p.identifier),
            ("datestamp", p.datestamp),
            ("type", p.kind),
            ("contentType", p.content_type),
            ("digest", p.digest),
            ("warcFile", p.warc_file),
            ("offset", offset.as_str()),
            ("length", length.as_str()),
        ]);
        if let Some(d) = p.deleted {
            start.push_attribute(("deleted", d));
        }
        self.w.write_event(Event::Empty(start))
    }

    /// The output, to take what was written so far.
    pub fn get_mut(&mut self) -> &mut W {
        self.w.get_mut()
    }

    /// Closes the root element; the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.w.write_event(Event::End(BytesEnd::new("corpus")))?;
        Ok(self.w.into_inner())
    }
}

fn selection_element<W: Write>(w: &mut Writer<W>, selection: &Selection) -> io::Result<()> {
    w.write_event(Event::Start(BytesStart::new("selection")))?;
    let day = |d: &Option<Datestamp>| d.map(|d| d.to_string());
    for (name, value) in [
        ("host", selection.host.clone()),
        ("set", selection.set.clone()),
        ("from", day(&selection.from)),
        ("until", day(&selection.until)),
        ("at", day(&selection.at)),
    ] {
        if let Some(v) = value {
            text(w, name, &v)?;
        }
    }
    if selection.deleted {
        w.write_event(Event::Empty(BytesStart::new("deleted")))?;
    }
    w.write_event(Event::End(BytesEnd::new("selection")))
}

fn text<W: Write>(w: &mut Writer<W>, name: &str, value: &str) -> io::Result<()> {
    w.write_event(Event::Start(BytesStart::new(name)))?;
    w.write_event(Event::Text(BytesText::new(value)))?;
    w.write_event(Event::End(BytesEnd::new(name)))
}

//! `next_event_with`: metadata streamed to a sink, Base64 resources decoded on the way.

mod errors;
mod payloads;

use std::io::{self, BufRead, Read};

use modoai_harvester::parse::{MetadataSink, PageEvent, PageParser, ParseError, ResourceInfo};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{bytes, PAGES};

/// One call to the sink.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Call {
    Xml(Vec<u8>),
    Start(ResourceInfo),
    Bytes(Vec<u8>),
    End,
}

/// Records every call; fails the call named by `fail_on`, if any.
#[derive(Debug, Default)]
struct Recorder {
    calls: Vec<Call>,
    fail_on: Option<&'static str>,
}

impl Recorder {
    fn record(&mut self, name: &str, call: Call) -> io::Result<()> {
        if self.fail_on == Some(name) {
            return Err(io::Error::other(format!("{name} refused")));
        }
        self.calls.push(call);
        Ok(())
    }

    /// The XML pieces joined.
    fn xml(&self) -> String {
        let pieces = self.calls.iter().filter_map(|c| match c {
            Call::Xml(piece) => Some(piece.as_slice()),
            _ => None,
        });
        String::from_utf8(pieces.collect::<Vec<_>>().concat()).unwrap()
    }

    /// The resources with their bytes, after checking that each is `Start, Bytes*, End` and that
    /// no chunk is over 64 KiB.
    fn files(&self) -> Vec<(ResourceInfo, Vec<u8>)> {
        let mut files: Vec<(ResourceInfo, Vec<u8>)> = Vec::new();
        let mut open = false;
        for call in &self.calls {
            match call {
                Call::Xml(_) => assert!(!open, "XML inside a resource: {:?}", self.calls),
                Call::Start(info) => {
                    assert!(!open);
                    open = true;
                    files.push((info.clone(), Vec::new()));
                }
                Call::Bytes(bytes) => {
                    assert!(open && !bytes.is_empty() && bytes.len() <= 64 * 1024);
                    files.last_mut().unwrap().1.extend_from_slice(bytes);
                }
                Call::End => {
                    assert!(open);
                    open = false;
                }
            }
        }
        assert!(!open, "resource not ended");
        files
    }
}

impl MetadataSink for Recorder {
    fn xml(&mut self, piece: &[u8]) -> io::Result<()> {
        assert!(!piece.is_empty());
        self.record("xml", Call::Xml(piece.to_vec()))
    }

    fn resource_start(&mut self, resource: &ResourceInfo) -> io::Result<()> {
        self.record("resource_start", Call::Start(resource.clone()))
    }

    fn resource_bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.record("resource_bytes", Call::Bytes(bytes.to_vec()))
    }

    fn resource_end(&mut self) -> io::Result<()> {
        self.record("resource_end", Call::End)
    }
}

/// A page's events with a fresh [`Recorder`] per event, and the parser's position after each.
fn stream<R: BufRead>(reader: R) -> Result<Vec<(PageEvent, Recorder, u64)>, ParseError> {
    let mut parser = PageParser::new(reader);
    let mut out = Vec::new();
    loop {
        let mut sink = Recorder::default();
        match parser.next_event_with(&mut sink)? {
            Some(event) => out.push((event, sink, parser.position())),
            None => return Ok(out),
        }
    }
}

/// The events of `next_event`, with the position after each.
fn plain(page: &[u8]) -> Vec<(PageEvent, u64)> {
    let mut parser = PageParser::new(page);
    let mut out = Vec::new();
    while let Some(event) = parser.next_event().unwrap() {
        out.push((event, parser.position()));
    }
    out
}

/// Hands out its input 1 to 7 bytes per `fill_buf`, as a slow network would.
struct Trickle<'a> {
    data: &'a [u8],
    pos: usize,
    end: usize,
    rng: StdRng,
}

impl<'a> Trickle<'a> {
    fn new(data: &'a [u8], seed: u64) -> Self {
        let rng = StdRng::seed_from_u64(seed);
        Trickle {
            data,
            pos: 0,
            end: 0,
            rng,
        }
    }
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.read(buf)?;
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Trickle<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.end {
            self.end = (self.pos + self.rng.random_range(1..=7)).min(self.data.len());
        }
        Ok(&self.data[self.pos..self.end])
    }

    fn consume(&mut self, amt: usize) {
        self.pos += amt;
    }
}

const DIDL_NS: &str = "urn:mpeg:mpeg21:2002:02-DIDL-NS";

/// A GetRecord page whose metadata is a DIDL document with `items` inside its `didl:Item`.
fn didl_page(items: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2024-05-01T12:00:00Z</responseDate>
<GetRecord><record><header><identifier>oai:x:1</identifier><datestamp>2024-05-01</datestamp></header>
<metadata><didl:DIDL xmlns:didl="{DIDL_NS}"><didl:Item>{items}</didl:Item></didl:DIDL></metadata>
</record></GetRecord></OAI-PMH>
"#
    )
}

/// The sink of the single record of a streamed page.
fn streamed_record(page: impl BufRead) -> Result<Recorder, ParseError> {
    let events = stream(page)?;
    let mut records = events
        .into_iter()
        .filter_map(|(event, sink, _)| match event {
            PageEvent::Record(record) => Some((record, sink)),
            _ => None,
        });
    let (record, sink) = records.next().expect("a record");
    assert!(record.streamed && record.metadata.is_none());
    Ok(sink)
}

#[test]
fn streamed_xml_is_the_metadata_of_every_fixture() {
    let mut records = 0;
    for (name, ..) in PAGES {
        let page = bytes(name);
        let streamed = stream(page.as_slice()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let plain = plain(&page);
        assert_eq!(streamed.len(), plain.len(), "{name}");
        for ((event, sink, position), (expected, expected_position)) in streamed.iter().zip(plain) {
            assert_eq!(*position, expected_position, "{name}");
            let PageEvent::Record(expected) = expected else {
                assert_eq!(*event, expected, "{name}");
                assert!(sink.calls.is_empty(), "{name}");
                continue;
            };
            let PageEvent::Record(record) = event else {
                panic!("{name}: {event:?}")
            };
            assert_eq!(record.header, expected.header, "{name}");
            assert_eq!(record.streamed, expected.metadata.is_some(), "{name}");
            assert_eq!(record.metadata, None, "{name}");
            assert_eq!(sink.files(), [], "{name}: no inline Base64 here");
            assert_eq!(sink.xml(), expected.metadata.unwrap_or_default(), "{name}");
            records += 1;
        }
    }
    assert_eq!(records, 9 + 2 + 1 + 1 + 1 + 2 + 16);
}

#[test]
fn resources_in_any_prefix_and_ref_only_ones() {
    let items = format!(
        r#"<didl:Component><didl:Resource mimeType="text/plain" encoding="base64">SGVs
bG8=</didl:Resource></didl:Component>
<didl:Component><didl:Resource mimeType="text/html" ref="http://x/a?b=1&amp;c=2"/></didl:Component>
<Component xmlns="{DIDL_NS}"><Resource encoding="base64" mimeType="a/b" ref="http://x/c">AAEC/w==</Resource></Component>
<didl:Resource encoding="base64"/><didl:Resource encoding="base64">
  </didl:Resource><x:Resource xmlns:x="urn:other" encoding="base64">QUJD</x:Resource>"#
    );
    let page = didl_page(&items);
    let sink = streamed_record(page.as_bytes()).unwrap();
    let info = |index, mime: &str, reference: Option<&str>| {
        let mut info = ResourceInfo::default();
        info.index = index;
        info.mime_type = Some(mime.to_owned());
        info.reference = reference.map(str::to_owned);
        info.encoding = Some("base64".to_owned());
        info
    };
    assert_eq!(
        sink.files(),
        [
            (info(0, "text/plain", None), b"Hello".to_vec()),
            (info(2, "a/b", Some("http://x/c")), vec![0, 1, 2, 255]),
        ]
    );
    let xml = sink.xml();
    for kept in [
        r#"<didl:Resource mimeType="text/plain" encoding="base64"></didl:Resource>"#,
        r#"<didl:Resource mimeType="text/html" ref="http://x/a?b=1&amp;c=2"/>"#,
        r#"<Resource encoding="base64" mimeType="a/b" ref="http://x/c"></Resource>"#,
        r#"<didl:Resource encoding="base64"/><didl:Resource encoding="base64"></didl:Resource>"#,
        r#"<x:Resource xmlns:x="urn:other" encoding="base64">QUJD</x:Resource>"#,
    ] {
        assert!(xml.contains(kept), "{kept} in {xml}");
    }
    // The calls come in document order: the XML up to a resource's start tag first.
    let start = sink.calls.iter().position(|c| matches!(c, Call::Start(_)));
    let before: Vec<u8> = sink.calls[..start.unwrap()]
        .iter()
        .flat_map(|c| match c {
            Call::Xml(piece) => piece.clone(),
            _ => Vec::new(),
        })
        .collect();
    assert!(before.ends_with(br#"encoding="base64">"#));
    // next_event keeps the text; without it, the two copies are the same.
    let plain = plain(page.as_bytes());
    let PageEvent::Record(record) = &plain[1].0 else {
        panic!("{plain:?}")
    };
    let inline = record.metadata.as_deref().unwrap();
    assert_eq!(
        inline
            .replace("SGVs\nbG8=", "")
            .replace("AAEC/w==", "")
            .replace(">\n  </didl:Resource>", "></didl:Resource>"),
        xml
    );
}

#[test]
fn text_around_any_markup_is_decoded() {
    for content in [
        "&#81;UJD",
        "QUJ&#x44;",
        "<![CDATA[QUJD]]>",
        "<!-- c -->QUJD<?pi x?>",
        "Q<![CDATA[U]]>J&#68;",
        "QU&#13;&#10;&#32;JD",
        "\n<![CDATA[]]>QUJD\n",
    ] {
        let page = didl_page(&format!(
            r#"<didl:Resource encoding="base64">{content}</didl:Resource><after/>"#
        ));
        let sink = streamed_record(page.as_bytes()).unwrap();
        assert_eq!(sink.files()[0].1, b"ABC", "{content}");
        assert!(
            sink.xml()
                .contains(r#"<didl:Resource encoding="base64"></didl:Resource><after/>"#),
            "{content}"
        );
    }
}

#[test]
fn dyn_sinks_work_too() {
    let page = didl_page(r#"<didl:Resource encoding="base64">QUJD</didl:Resource>"#);
    let mut recorder = Recorder::default();
    let mut sink: &mut dyn MetadataSink = &mut recorder;
    let mut parser = PageParser::new(page.as_bytes());
    while parser.next_event_with(&mut sink).unwrap().is_some() {}
    assert_eq!(recorder.files()[0].1, b"ABC");
}

//! The body of the `page` fuzz target (`fuzz/fuzz_targets/page.rs`), public so that the fuzz
//! crate and this crate's regression test run the same code. Not part of the API.
//!
//! [`page`] runs two [`PageParser`]s over the input in lockstep, one with
//! [`next_event`](PageParser::next_event) and one with
//! [`next_event_with`](PageParser::next_event_with) and a sink that checks how it is called, and
//! checks, step by step, so that memory stays bounded by one record:
//!
//! - both yield the same events and consume the same bytes, except that the sink gets the
//!   metadata (the same text when the record inlines no resource), and streaming alone decodes
//!   Base64 and so may fail on it; streaming never accepts what the buffered parser refuses;
//! - the sink is called only while a record is read, in the documented order (XML pieces, then
//!   for each resource `resource_start`, at least one non-empty chunk of at most 64 KiB and
//!   `resource_end`), and decodes at most 3 bytes per 4 of input;
//! - each event consumes input, no position passes the end, an error repeats itself, a parser
//!   that finished stays finished and is complete;
//! - no page yields more records, headers, sets, errors or tokens than it has `record`, `header`,
//!   `set`, `error` or `resumptionToken` in its bytes.

use std::io;

use crate::parse::{MetadataSink, PageEvent, PageParser, ParseError, ResourceInfo};

/// Inputs longer than this are ignored, so that a run's memory stays bounded.
pub const MAX_INPUT: usize = 1 << 20;

/// The most decoded bytes one `resource_bytes` call may carry.
const MAX_CHUNK: usize = 64 * 1024;

/// Runs the `page` target on one input; panics when an invariant does not hold.
pub fn page(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let mut buffered = PageParser::new(data);
    let mut streamed = PageParser::new(data);
    let mut sink = CheckingSink::default();
    let mut counts = Counts::default();
    let mut position = 0;
    loop {
        let a = buffered.next_event();
        sink.calls = 0;
        let b = streamed.next_event_with(&mut sink);
        match (a, b) {
            (Ok(Some(a)), Ok(Some(b))) => {
                sink.after_event(&b);
                counts.add(&b);
                same_event(a, b, &mut sink);
                assert_eq!(buffered.position(), streamed.position());
                assert!(streamed.position() > position, "an event consumed nothing");
                position = streamed.position();
                assert!(position <= data.len() as u64);
            }
            (Ok(None), Ok(None)) => {
                assert_eq!(sink.calls, 0);
                finished(&mut buffered);
                finished(&mut streamed);
                break;
            }
            (Ok(_), Err(b)) => {
                assert!(
                    matches!(b, ParseError::Base64 { .. }),
                    "only streaming failed: {b}"
                );
                failed(&mut streamed, &b, data);
                break;
            }
            (Err(a), Err(b)) => {
                failed(&mut buffered, &a, data);
                failed(&mut streamed, &b, data);
                break;
            }
            (a, b) => panic!("buffered {a:?}, streamed {b:?}"),
        }
    }
    counts.check(data);
    assert!(sink.decoded <= data.len() as u64 / 4 * 3 + 3);
}

fn finished(parser: &mut PageParser<&[u8]>) {
    assert!(parser.is_complete());
    assert!(matches!(parser.next_event(), Ok(None)));
}

fn failed(parser: &mut PageParser<&[u8]>, error: &ParseError, data: &[u8]) {
    assert!(!parser.is_complete());
    assert!(error.position() <= data.len() as u64, "{error}");
    let again = parser.next_event().expect_err("errors are fused");
    assert_eq!(again.to_string(), error.to_string());
}

/// The buffered event `a` and the streamed event `b` must agree.
fn same_event(mut a: PageEvent, mut b: PageEvent, sink: &mut CheckingSink) {
    if let (PageEvent::Record(a), PageEvent::Record(b)) = (&mut a, &mut b) {
        assert!(!a.streamed && b.metadata.is_none());
        assert_eq!(a.metadata.is_some(), b.streamed);
        let xml = std::mem::take(&mut sink.xml);
        if sink.resources == 0 {
            let text = String::from_utf8(xml).expect("the sink gets UTF-8");
            assert_eq!(a.metadata.as_deref().unwrap_or(""), text);
        }
        sink.resources = 0;
        sink.last_index = None;
        a.metadata = None;
        b.streamed = false;
    }
    assert_eq!(a, b);
}

/// Checks the order of the calls it gets, keeping one record's XML.
#[derive(Default)]
struct CheckingSink {
    /// Calls during the current `next_event_with`.
    calls: usize,
    /// The current record's XML pieces.
    xml: Vec<u8>,
    /// The resource being decoded: its bytes so far.
    open: Option<u64>,
    /// `ResourceInfo::index` of the last resource of the current record.
    last_index: Option<usize>,
    /// Resources of the current record that got calls.
    resources: usize,
    /// Decoded bytes over the whole page.
    decoded: u64,
}

impl CheckingSink {
    /// Checks what the calls of one step must look like once it returned `event`.
    fn after_event(&self, event: &PageEvent) {
        assert!(self.open.is_none(), "a resource was left open");
        match event {
            PageEvent::Record(record) if record.streamed => {}
            _ => assert_eq!(self.calls, 0, "sink called outside a record: {event:?}"),
        }
    }
}

impl MetadataSink for CheckingSink {
    fn xml(&mut self, piece: &[u8]) -> io::Result<()> {
        self.calls += 1;
        assert!(self.open.is_none(), "XML inside a resource");
        self.xml.extend_from_slice(piece);
        Ok(())
    }

    fn resource_start(&mut self, resource: &ResourceInfo) -> io::Result<()> {
        self.calls += 1;
        assert!(self.open.is_none(), "nested resources");
        assert!(resource.is_base64(), "{resource:?}");
        assert!(
            self.xml.ends_with(b">"),
            "a resource starts after its start tag"
        );
        assert!(
            self.last_index.is_none_or(|i| i < resource.index),
            "{resource:?}"
        );
        self.last_index = Some(resource.index);
        self.resources += 1;
        self.open = Some(0);
        Ok(())
    }

    fn resource_bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.calls += 1;
        let open = self.open.as_mut().expect("bytes outside a resource");
        assert!(
            (1..=MAX_CHUNK).contains(&bytes.len()),
            "{} bytes",
            bytes.len()
        );
        *open += bytes.len() as u64;
        self.decoded += bytes.len() as u64;
        Ok(())
    }

    fn resource_end(&mut self) -> io::Result<()> {
        self.calls += 1;
        let bytes = self.open.take().expect("end outside a resource");
        assert!(bytes > 0, "a resource without bytes got calls");
        Ok(())
    }
}

/// How many items of each kind a page yielded.
#[derive(Default)]
struct Counts {
    records: usize,
    headers: usize,
    sets: usize,
    errors: usize,
    tokens: usize,
}

impl Counts {
    fn add(&mut self, event: &PageEvent) {
        match event {
            PageEvent::Record(_) => self.records += 1,
            PageEvent::Header(_) => self.headers += 1,
            PageEvent::Set { .. } => self.sets += 1,
            PageEvent::Error(_) => self.errors += 1,
            PageEvent::Token(_) => self.tokens += 1,
            _ => {}
        }
    }

    /// Each item is an element, and element names cannot be written with references.
    fn check(&self, data: &[u8]) {
        let count = |name: &[u8]| data.windows(name.len()).filter(|w| *w == name).count();
        assert!(self.records <= count(b"record"));
        assert!(self.headers <= count(b"header"));
        assert!(self.sets <= count(b"set"));
        assert!(self.errors <= count(b"error"));
        assert!(self.tokens <= count(b"resumptionToken"));
    }
}

#[cfg(test)]
mod tests {
    use modoai_protocol::fuzzing::inputs;

    /// Every seed (real pages, some cut or broken) and every input that once failed
    /// (`fuzz/regressions/page/`) goes through the target, so a fixed crash stays fixed in the
    /// ordinary test run.
    #[test]
    fn corpus_and_regressions() {
        let all = [inputs("corpus/page"), inputs("regressions/page")].concat();
        assert!(!all.is_empty(), "no page seeds");
        all.iter().for_each(|(_, input)| super::page(input));
    }
}

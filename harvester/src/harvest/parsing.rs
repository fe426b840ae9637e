//! The parsing half of a page: a thread that parses the body as it arrives, decodes its inline
//! payloads into spools and reads each record's [`Facts`], handing the records in order to the
//! thread that stores them, over a bounded queue.
//!
//! The two halves overlap, and the request of the next page starts as soon as this page is
//! parsed, while its last records are still being stored. The next page is parsed only after
//! this page's checkpoint, which saves its token once every item of this page is durable, so a
//! crash still loses nothing.

use std::io;
use std::path::PathBuf;
use std::sync::mpsc::SyncSender;

use modoai_archive::facts::Facts;
use modoai_archive::warc::{Spool, DEFAULT_SPOOL_THRESHOLD};
use modoai_protocol::{Datestamp, OaiError};
use tokio::runtime::Handle;

use super::collect::{Collector, Decoded};
use super::context::next_url;
use super::prefetch::Prefetch;
use super::refs::is_http;
use crate::client::{BodyReader, Client};
use crate::parse::{Header, PageEvent, PageParser, ParseError, ResumptionToken};

/// Batches of parsed records waiting to be stored, besides the one being stored and the one
/// being filled.
pub(super) const QUEUE: usize = 2;

/// Records of a batch: the storing thread is woken once a batch, not once a record.
const BATCH_RECORDS: usize = 16;

/// Bytes of a batch: a batch is handed over once its records' spools hold this much, so that
/// the records in memory stay within a few times [`DEFAULT_SPOOL_THRESHOLD`] (a spool keeps
/// up to that much in memory, more goes to a temporary file).
const BATCH_BYTES: u64 = DEFAULT_SPOOL_THRESHOLD as u64;

/// One record, parsed.
pub(super) struct Parsed {
    pub(super) header: Header,
    /// The metadata XML, Base64 content left out.
    pub(super) xml: Option<Spool>,
    pub(super) resources: Vec<Decoded>,
    pub(super) facts: Facts,
    /// It names `ref` resources to fetch after the page (none inline, the policy allows it).
    pub(super) wants_refs: bool,
}

/// One page's outcome: what it said besides its records.
pub(super) struct Page {
    pub(super) response_date: Option<Datestamp>,
    pub(super) errors: Vec<OaiError>,
    pub(super) token: Option<ResumptionToken>,
    /// The request of the next page, started once this page was parsed.
    pub(super) next: Option<Prefetch>,
}

/// Why a page's parsing stopped early.
pub(super) enum Broken {
    /// The body: worth fetching the page again.
    Page(ParseError),
    /// A spool could not be written or read back.
    Spool(io::Error),
}

/// How to ask for the next page: the parsing thread starts it.
pub(super) struct NextPage {
    pub(super) client: Client,
    pub(super) handle: Handle,
    pub(super) endpoint: String,
    /// `ref` resources are fetched (`--no-fetch-refs` not given).
    pub(super) fetch_refs: bool,
}

/// Parses `reader` to its end, sending its records in order, in batches, to `records` (stopping
/// early, with `Ok`, if the receiver is gone), and starts the next page's request if the page
/// has a token, no error and no record waiting for `ref` resources (those need the host's slot
/// first).
pub(super) fn parse_page(
    reader: BodyReader,
    spool_dir: PathBuf,
    records: SyncSender<Vec<Parsed>>,
    next_page: NextPage,
) -> Result<Page, Broken> {
    let new_spool = move || Spool::new(spool_dir.clone(), DEFAULT_SPOOL_THRESHOLD);
    let mut collector = Collector::new(&new_spool);
    let mut parser = PageParser::new(reader);
    let mut page = Page {
        response_date: None,
        errors: Vec::new(),
        token: None,
        next: None,
    };
    let mut refs = false;
    let mut batch = Batch::default();
    loop {
        let event = match parser.next_event_with(&mut collector) {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(e) => {
                // The records parsed whole before the error are stored all the same.
                batch.send(&records);
                return Err(match e {
                    ParseError::Sink { source, .. } => {
                        Broken::Spool(io::Error::new(source.kind(), source.to_string()))
                    }
                    e => Broken::Page(e),
                });
            }
        };
        match event {
            PageEvent::ResponseDate(d) => page.response_date = Some(d),
            PageEvent::Error(e) => page.errors.push(e),
            PageEvent::Token(t) => page.token = Some(t),
            PageEvent::Record(record) => {
                let (mut xml, resources) = collector.take();
                let facts = match facts(&mut xml) {
                    Ok(facts) => facts,
                    Err(e) => {
                        batch.send(&records);
                        return Err(Broken::Spool(e));
                    }
                };
                let wants_refs = next_page.fetch_refs
                    && facts.didl
                    && resources.is_empty()
                    && !record.header.deleted
                    && facts
                        .resources
                        .iter()
                        .any(|r| r.reference.as_deref().is_some_and(is_http));
                refs |= wants_refs;
                let parsed = Parsed {
                    header: record.header,
                    xml,
                    resources,
                    facts,
                    wants_refs,
                };
                if batch.push(parsed) && !batch.send(&records) {
                    // The storing thread stopped (an error, or the harvest was interrupted).
                    return Ok(page);
                }
            }
            _ => {}
        }
    }
    if !batch.send(&records) {
        return Ok(page);
    }
    // The body has ended and its host slot is free: the next page can be asked for now.
    if !refs && page.errors.is_empty() {
        let next = page.token.as_ref().filter(|t| !t.is_final());
        page.next = next.map(|t| {
            let url = next_url(&next_page.endpoint, &t.token);
            Prefetch::start(&next_page.client, &next_page.handle, url)
        });
    }
    Ok(page)
}

/// Records parsed, to hand over together.
#[derive(Default)]
struct Batch {
    records: Vec<Parsed>,
    bytes: u64,
}

impl Batch {
    /// Adds a record; true when the batch is full.
    fn push(&mut self, parsed: Parsed) -> bool {
        let spools = parsed
            .xml
            .iter()
            .chain(parsed.resources.iter().map(|r| &r.bytes));
        self.bytes += spools.map(Spool::len).sum::<u64>();
        self.records.push(parsed);
        self.records.len() >= BATCH_RECORDS || self.bytes >= BATCH_BYTES
    }

    /// Hands the records over (if any); false if the receiver is gone.
    fn send(&mut self, to: &SyncSender<Vec<Parsed>>) -> bool {
        self.bytes = 0;
        let records = std::mem::take(&mut self.records);
        records.is_empty() || to.send(records).is_ok()
    }
}

/// The facts of a record's metadata, read back from its spool (none for a record whose XML
/// cannot hold any).
fn facts(xml: &mut Option<Spool>) -> io::Result<Facts> {
    Ok(match xml {
        Some(spool) if spool.in_memory().is_some_and(|b| !Facts::may_hold(b)) => Facts::default(),
        Some(spool) => Facts::read(spool.reader()?),
        None => Facts::default(),
    })
}

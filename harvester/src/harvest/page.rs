//! One page of a list: fetched, parsed as it arrives, its records stored (or deferred for their
//! `ref` resources, fetched once the page has ended), and fetched again while it arrives broken.

use std::io;

use modoai_protocol::{Datestamp, OaiError};

use super::collect::Collector;
use super::context::Context;
use super::harvester::Harvester;
use super::prefetch::Prefetch;
use super::{HarvestError, Summary};
use crate::archive::ArchiveError;
use crate::parse::{PageEvent, PageParser, ParseError, ResumptionToken};
use crate::warc::{Spool, DEFAULT_SPOOL_THRESHOLD};

/// One page's outcome.
pub(super) struct Page {
    pub(super) response_date: Option<Datestamp>,
    pub(super) errors: Vec<OaiError>,
    pub(super) token: Option<ResumptionToken>,
    /// The request of the next page, when it could start before this page's checkpoint.
    pub(super) next: Option<Prefetch>,
}

enum Failure {
    /// Worth fetching the page again.
    Retry(ParseError),
    /// Not.
    Fatal(HarvestError),
}

impl Harvester<'_> {
    /// One page (its request already started if `prefetch` is its), fetched again while it
    /// arrives broken.
    pub(super) fn page(
        &mut self,
        ctx: &Context,
        url: &str,
        mut prefetch: Option<Prefetch>,
        summary: &mut Summary,
    ) -> Result<Page, HarvestError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.try_page(ctx, url, prefetch.take(), summary) {
                Ok(page) => return Ok(page),
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Retry(error)) if attempt <= self.client.config().max_retries => {
                    let wait = self.client.backoff(attempt);
                    let msg = format!("{url}: {error}; fetching the page again in {wait:.1?}");
                    tracing::warn!("{msg}");
                    self.progress.warn(&msg);
                    summary.page_retries += 1;
                    self.net().pause(wait)?;
                }
                Err(Failure::Retry(error)) => {
                    return Err(HarvestError::BrokenPage {
                        url: url.to_owned(),
                        attempts: attempt,
                        error,
                    })
                }
            }
        }
    }

    fn try_page(
        &mut self,
        ctx: &Context,
        url: &str,
        prefetch: Option<Prefetch>,
        summary: &mut Summary,
    ) -> Result<Page, Failure> {
        let reader = match prefetch.and_then(|p| p.take(self.net(), url)) {
            Some(reader) => reader,
            None => self
                .net()
                .get(url, false)
                .map(|response| response.into_reader(&self.handle)),
        }
        .map_err(Failure::Fatal)?;
        let spool_dir = self.archive.layout().spool();
        let new_spool = move || Spool::new(spool_dir.clone(), DEFAULT_SPOOL_THRESHOLD);
        let mut collector = Collector::new(&new_spool);
        let mut parser = PageParser::new(reader);
        let mut page = Page {
            response_date: None,
            errors: Vec::new(),
            token: None,
            next: None,
        };
        let mut deferred = Vec::new();
        loop {
            let event = match parser.next_event_with(&mut collector) {
                Ok(Some(e)) => e,
                Ok(None) => break,
                Err(ParseError::Sink { source, .. }) => {
                    let error = io::Error::new(source.kind(), source.to_string());
                    let path = self.archive.layout().spool();
                    return Err(Failure::Fatal(ArchiveError::io(&path, error).into()));
                }
                Err(e) => return Err(Failure::Retry(e)),
            };
            match event {
                PageEvent::ResponseDate(d) => page.response_date = Some(d),
                PageEvent::Error(e) => page.errors.push(e),
                PageEvent::Token(t) => page.token = Some(t),
                PageEvent::Record(record) => {
                    let (xml, resources) = collector.take();
                    if let Some(d) = self
                        .item(ctx, record.header, xml, resources, summary)
                        .map_err(Failure::Fatal)?
                    {
                        deferred.push(d);
                    }
                    // A safe point: the item is stored (or deferred, to be harvested again).
                    self.net().check().map_err(Failure::Fatal)?;
                }
                _ => {}
            }
        }
        drop(parser);
        // The body has ended and its host slot is free: the next page can be asked for now.
        // Not when `ref` resources are still to fetch: they may need the same host's slot.
        if deferred.is_empty() && page.errors.is_empty() {
            let next = page.token.as_ref().filter(|t| !t.is_final());
            page.next =
                next.map(|t| Prefetch::start(&self.client, &self.handle, ctx.next_url(&t.token)));
        }
        for d in deferred {
            self.net().check().map_err(Failure::Fatal)?;
            self.fetch_refs(ctx, d, summary).map_err(Failure::Fatal)?;
        }
        Ok(page)
    }
}

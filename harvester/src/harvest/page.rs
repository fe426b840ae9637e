//! One page of a list: fetched, parsed as it arrives on a thread of its own ([`super::parsing`]),
//! its records stored in order on this one (or deferred for their `ref` resources, fetched once
//! the page has ended), and fetched again while it arrives broken.

use std::sync::mpsc::{self, Receiver};
use std::thread;

use super::context::Context;
use super::harvester::Harvester;
use super::parsing::{parse_page, Broken, NextPage, Page, Parsed, QUEUE};
use super::prefetch::Prefetch;
use super::refs::{spool_error, Deferred};
use super::summary::Archived;
use super::{HarvestError, Summary};
use crate::parse::ParseError;

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
        let stopper = reader.stopper();
        let spool_dir = self.archive.layout().spool();
        let next_page = NextPage {
            client: self.client.clone(),
            handle: self.handle.clone(),
            endpoint: ctx.endpoint().to_owned(),
            fetch_refs: ctx.fetch_refs,
        };
        let (sender, records) = mpsc::sync_channel(QUEUE);
        let mut deferred = Vec::new();
        let (stored, parsed) = thread::scope(|scope| {
            let parsing = thread::Builder::new()
                .name("modoai-parse".into())
                .spawn_scoped(scope, move || {
                    parse_page(reader, spool_dir, sender, next_page)
                })
                .expect("a thread for parsing the page");
            let stored = self.store_page(ctx, records, &mut deferred, summary);
            if stored.is_err() {
                // The parsing thread may wait for body bytes that are no longer wanted.
                stopper.stop();
            }
            let parsed = parsing
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (stored, parsed)
        });
        stored.map_err(Failure::Fatal)?;
        let page = match parsed {
            Ok(page) => page,
            Err(Broken::Page(e)) => return Err(Failure::Retry(e)),
            Err(Broken::Spool(error)) => {
                return Err(Failure::Fatal(spool_error(self.archive, error).into()))
            }
        };
        for d in deferred {
            self.net().check().map_err(Failure::Fatal)?;
            self.fetch_refs(ctx, d, summary).map_err(Failure::Fatal)?;
        }
        Ok(page)
    }

    /// Stores the records of a page as the parsing thread hands them over, in order, a batch
    /// at a time (written together: [`Archive::end_batch`](modoai_archive::archive::Archive::end_batch));
    /// a record waiting for its `ref` resources goes to `deferred`. Consumes the queue, so that
    /// an early return (an error, an interruption) makes the parsing thread stop.
    fn store_page(
        &mut self,
        ctx: &Context,
        records: Receiver<Vec<Parsed>>,
        deferred: &mut Vec<Deferred>,
        summary: &mut Summary,
    ) -> Result<(), HarvestError> {
        for batch in records {
            let before = Archived::of(summary);
            self.archive.begin_batch();
            let stored = self.store_batch(ctx, batch, deferred, summary);
            let written = match &stored {
                // Interrupted between two items: the items before are kept.
                Ok(()) | Err(HarvestError::Interrupted) => self
                    .archive
                    .end_batch()
                    .map_err(HarvestError::from)
                    .and(stored),
                Err(_) => {
                    self.archive.abandon_batch();
                    stored
                }
            };
            if let Err(e) = written {
                if !matches!(e, HarvestError::Interrupted) {
                    // None of the batch's items is in the archive: the next run takes them.
                    before.restore(summary);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    fn store_batch(
        &mut self,
        ctx: &Context,
        batch: Vec<Parsed>,
        deferred: &mut Vec<Deferred>,
        summary: &mut Summary,
    ) -> Result<(), HarvestError> {
        for parsed in batch {
            if let Some(d) = self.item(ctx, parsed, summary)? {
                deferred.push(d);
            }
            // A safe point: the item is stored (or deferred, to be harvested again).
            self.net().check()?;
        }
        Ok(())
    }
}

//! [`Harvester`]: one list's pages in order, its state saved after a page at most once a second.

use std::collections::HashSet;
use std::time::Instant;

use modoai_archive::archive::{Archive, ListState, Run, Running};
use modoai_archive::warc::warc_date;
use modoai_protocol::{Datestamp, ErrorCode, Granularity, OaiError};
use time::OffsetDateTime;
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use super::context::Context;
use super::net::Net;
use super::{endpoint, HarvestError, HarvestOptions, Progress, Summary};
use crate::client::Client;

/// How many times a list starts over after `badResumptionToken` before the harvest gives up.
const MAX_RESTARTS: u32 = 3;

/// Harvests lists into an archive. Blocking: run it on a thread outside the async runtime
/// (e.g. `tokio::task::spawn_blocking`); requests run on `handle`.
pub struct Harvester<'a> {
    pub(super) client: Client,
    pub(super) handle: Handle,
    pub(super) archive: &'a mut Archive,
    pub(super) progress: &'a dyn Progress,
    pub(super) cancel: CancellationToken,
}

impl<'a> Harvester<'a> {
    /// A harvester writing into `archive`.
    pub fn new(
        client: Client,
        handle: Handle,
        archive: &'a mut Archive,
        progress: &'a dyn Progress,
    ) -> Self {
        Harvester {
            client,
            handle,
            archive,
            progress,
            cancel: CancellationToken::new(),
        }
    }

    /// Stops the harvest when `token` is cancelled (e.g. on SIGINT), at the next safe point: the
    /// item being stored is finished, waits and requests in flight end at once, the list's state
    /// is saved so that the same harvest continues from there, and [`Summary::error`] is
    /// [`HarvestError::Interrupted`]. Defaults to a token that is never cancelled.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = token;
        self
    }

    pub(super) fn net(&self) -> Net<'_> {
        Net {
            client: &self.client,
            handle: &self.handle,
            cancel: &self.cancel,
        }
    }

    /// Harvests one list to its end (or until it fails: see [`Summary::error`]).
    pub fn run(&mut self, options: &HarvestOptions) -> Summary {
        let started = Instant::now();
        let stats = self.client.stats();
        let mut summary = Summary {
            endpoint: options.endpoint.clone(),
            set: options.set.clone(),
            ..Summary::default()
        };
        if let Err(e) = self.harvest(options, &mut summary) {
            summary.error = Some(e);
        }
        if let Err(e) = self.archive.end_run() {
            summary.error.get_or_insert(e.into());
        }
        let now = self.client.stats();
        summary.requests = now.requests - stats.requests;
        summary.http_retries = now.retries - stats.retries;
        summary.elapsed = started.elapsed();
        summary
    }

    fn harvest(&mut self, o: &HarvestOptions, summary: &mut Summary) -> Result<(), HarvestError> {
        for d in [&o.from, &o.until].into_iter().flatten() {
            if Datestamp::parse_request(d).is_none() {
                return Err(HarvestError::BadDate(d.clone()));
            }
        }
        let identify = endpoint::identify_with(self.net(), &o.endpoint)?;
        let granularity = identify.granularity.unwrap_or(Granularity::Day);
        let prefix = self.prefix(o)?;
        summary.prefix = prefix.clone();
        let ctx = Context::new(o, prefix, &self.client);
        let before = self.archive.state().lists.get(&ctx.key.id()).cloned();
        let mut running = self.start(&ctx, o, granularity, summary)?;
        let result = self.pages(&ctx, &mut running, summary);
        if result.is_ok() {
            self.capture_site_root(&ctx);
        }
        match &result {
            Err(e) if e.is_usage() => self.forget(&ctx, before)?,
            _ => self.finish(&ctx, &running, &result, summary)?,
        }
        result
    }

    /// The format asked; else the one the archive holds of the endpoint, so that a run repeated
    /// without `--metadata-prefix` continues the same list; else `oai_crate` if the endpoint
    /// offers it, else `oai_dc`. An archive holding several formats of the endpoint needs one
    /// named.
    fn prefix(&self, o: &HarvestOptions) -> Result<String, HarvestError> {
        if let Some(p) = &o.prefix {
            return Ok(p.clone());
        }
        let held = self.archive.state().prefixes_of(&o.endpoint);
        match held.len() {
            0 => {}
            1 => return Ok(held.into_iter().next().unwrap_or_default().to_owned()),
            _ => {
                return Err(HarvestError::WhichPrefix {
                    endpoint: o.endpoint.clone(),
                    held: held.into_iter().map(str::to_owned).collect(),
                })
            }
        }
        let formats = endpoint::formats_with(self.net(), &o.endpoint)?;
        Ok(if formats.iter().any(|f| f.prefix == "oai_crate") {
            "oai_crate".to_owned()
        } else {
            "oai_dc".to_owned()
        })
    }

    /// The interrupted run of the list to continue, or a new one (incremental unless told
    /// otherwise), saved in the archive's state.
    fn start(
        &mut self,
        ctx: &Context,
        o: &HarvestOptions,
        granularity: Granularity,
        summary: &mut Summary,
    ) -> Result<Running, HarvestError> {
        let list = self.archive.state_mut().list_mut(&ctx.key);
        let running = match list.running.clone() {
            Some(r) if o.from.is_none() && o.until.is_none() => {
                summary.resumed = true;
                tracing::info!(endpoint = %o.endpoint, pages = r.pages, "continuing an interrupted harvest");
                r
            }
            _ => {
                let incremental = list
                    .complete_from
                    .as_deref()
                    .filter(|_| o.incremental)
                    .and_then(Datestamp::parse_lenient)
                    .map(|d| d.format(granularity));
                Running {
                    from: o.from.clone().or(incremental),
                    until: o.until.clone(),
                    token: None,
                    pages: 0,
                    first_response_date: None,
                    started: warc_date(OffsetDateTime::now_utc()),
                    list_size: None,
                    items: 0,
                }
            }
        };
        summary.from = running.from.clone();
        list.running = Some(running.clone());
        self.archive.checkpoint()?;
        Ok(running)
    }

    /// Records the run's outcome in the list's state: complete, or where to continue.
    fn finish(
        &mut self,
        ctx: &Context,
        running: &Running,
        result: &Result<(), HarvestError>,
        summary: &Summary,
    ) -> Result<(), HarvestError> {
        let list = self.archive.state_mut().list_mut(&ctx.key);
        let outcome = match result {
            Ok(()) => {
                list.complete_from = running.first_response_date.clone();
                list.running = None;
                "complete".to_owned()
            }
            Err(e) => {
                list.running = Some(running.clone());
                e.to_string()
            }
        };
        list.runs.push(Run {
            started: running.started.clone(),
            finished: warc_date(OffsetDateTime::now_utc()),
            from: running.from.clone(),
            until: running.until.clone(),
            archived: summary.archived,
            skipped: summary.skipped,
            bytes: summary.bytes,
            pages: summary.pages,
            outcome,
        });
        self.archive.checkpoint()?;
        Ok(())
    }

    /// Puts the list's state back as it was before a run whose first request was refused: a
    /// mistake in the command is neither a harvest to continue nor one to count.
    fn forget(&mut self, ctx: &Context, before: Option<ListState>) -> Result<(), HarvestError> {
        let lists = &mut self.archive.state_mut().lists;
        match before {
            Some(list) => lists.insert(ctx.key.id(), list),
            None => lists.remove(&ctx.key.id()),
        };
        self.archive.checkpoint()?;
        Ok(())
    }

    /// Follows the list to its end, from the saved token or from its first page.
    fn pages(
        &mut self,
        ctx: &Context,
        running: &mut Running,
        summary: &mut Summary,
    ) -> Result<(), HarvestError> {
        let mut url = match &running.token {
            Some(t) => ctx.next_url(t),
            None => ctx.first_url(running),
        };
        let mut restarts = 0;
        // Tokens of this run (a resumed run starts afresh: the state keeps only the next one).
        let mut tokens_seen = HashSet::new();
        // The list's first request of this run: refusals of it are mistakes in the command.
        let mut first = running.token.is_none();
        let mut next = None;
        loop {
            self.net().check()?;
            let mut page = self.page(ctx, &url, next.take(), summary)?;
            next = page.next.take();
            if !page.errors.is_empty() {
                let codes: Vec<ErrorCode> = page.errors.iter().map(|e| e.code).collect();
                if first {
                    self.check_first(ctx, &url, &page.errors)?;
                }
                if codes.iter().all(|c| *c == ErrorCode::NoRecordsMatch) {
                    if running.first_response_date.is_none() {
                        running.first_response_date = page.response_date.map(|d| d.to_string());
                    }
                    return Ok(());
                }
                if codes.contains(&ErrorCode::BadResumptionToken) && running.token.is_some() {
                    restarts += 1;
                    summary.restarts += 1;
                    if restarts > MAX_RESTARTS {
                        return Err(HarvestError::TooManyRestarts {
                            url,
                            restarts: restarts - 1,
                        });
                    }
                    let msg = format!("{url}: badResumptionToken; starting the list over (items already archived are skipped)");
                    tracing::warn!("{msg}");
                    self.progress.warn(&msg);
                    running.token = None;
                    tokens_seen.clear();
                    url = ctx.first_url(running);
                    first = false;
                    continue;
                }
                return Err(HarvestError::Oai {
                    url,
                    errors: page.errors,
                });
            }
            first = false;
            running.pages += 1;
            summary.pages += 1;
            if running.first_response_date.is_none() {
                running.first_response_date = page.response_date.map(|d| d.to_string());
            }
            if let Some(t) = &page.token {
                running.list_size = t.complete_list_size.or(running.list_size);
            }
            let token = page.token.filter(|t| !t.is_final());
            self.progress.page(
                summary.pages,
                running.list_size,
                token.as_ref().and_then(|t| t.cursor),
            );
            match token {
                None => {
                    running.token = None;
                    return Ok(());
                }
                Some(t) if tokens_seen.contains(&t.token) => {
                    return Err(HarvestError::RepeatedToken {
                        url,
                        token: t.token,
                    });
                }
                Some(t) => {
                    tokens_seen.insert(t.token.clone());
                    url = ctx.next_url(&t.token);
                    running.token = Some(t.token);
                }
            }
            self.archive.state_mut().list_mut(&ctx.key).running = Some(running.clone());
            self.archive.checkpoint_soon()?;
        }
    }

    /// Errors that answer the list's first request: `badArgument` and
    /// `cannotDisseminateFormat` refuse what was asked; `noRecordsMatch` for a set the endpoint
    /// does not list is a mistyped set, not an empty one (OAI-PMH §3.6 gives no error code for
    /// an unknown set).
    fn check_first(
        &self,
        ctx: &Context,
        url: &str,
        errors: &[OaiError],
    ) -> Result<(), HarvestError> {
        let refused = errors.iter().any(|e| {
            matches!(
                e.code,
                ErrorCode::BadArgument | ErrorCode::CannotDisseminateFormat
            )
        });
        if refused {
            return Err(HarvestError::Refused {
                url: url.to_owned(),
                errors: errors.to_vec(),
            });
        }
        let Some(set) = &ctx.key.set else {
            return Ok(());
        };
        if errors.iter().any(|e| e.code != ErrorCode::NoRecordsMatch) {
            return Ok(());
        }
        let sets: Vec<String> = endpoint::sets_with(self.net(), ctx.endpoint())?
            .into_iter()
            .map(|s| s.spec)
            .collect();
        if sets.contains(set) {
            return Ok(());
        }
        Err(HarvestError::UnknownSet {
            set: set.clone(),
            url: url.to_owned(),
            errors: errors.to_vec(),
            sets,
        })
    }
}

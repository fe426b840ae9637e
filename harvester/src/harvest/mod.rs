//! The harvest loop: one list (endpoint, format, set) page by page into an [`Archive`].
//!
//! Pages are parsed as they arrive and every record is stored as soon as it is parsed; a
//! checkpoint after each page (WARC and ledger synced, then the next token saved) lets a killed
//! harvest continue where it stopped. A page that fails to arrive or parse is fetched again with the
//! client's backoff, then reported; items it delivered before failing are not stored twice, since
//! the archive knows every (identifier, datestamp) it holds.

mod collect;
pub mod endpoint;
mod facts;
mod store;

use std::io::{self, Write};
use std::time::{Duration, Instant};

use md5::{Digest, Md5};
use modoai_protocol::form::request_url;
use modoai_protocol::{Datestamp, ErrorCode, Granularity, OaiError, Verb};
use time::OffsetDateTime;
use tokio::runtime::Handle;

use crate::archive::{Archive, ArchiveError, ListKey, Run, Running};
use crate::client::{Client, FetchError};
use crate::parse::{Header, PageEvent, PageParser, ParseError, ResumptionToken};
use crate::warc::{warc_date, Spool, WarcFields, DEFAULT_SPOOL_THRESHOLD};

pub use endpoint::Format;
pub use facts::{Facts, PluginFacts, ResourceFacts};

use collect::{Collector, Decoded};
use store::{Item, Payload};

/// How many times a list starts over after `badResumptionToken` before the harvest gives up.
const MAX_RESTARTS: u32 = 3;

/// What to harvest.
#[derive(Clone, Debug)]
pub struct HarvestOptions {
    /// The OAI-PMH base URL.
    pub endpoint: String,
    /// The format; `None` = `oai_crate` if offered, else `oai_dc`.
    pub prefix: Option<String>,
    /// A set to harvest selectively.
    pub set: Option<String>,
    /// `from`, as given (`YYYY-MM-DD` or `YYYY-MM-DDThh:mm:ssZ`). Overrides the incremental date.
    pub from: Option<String>,
    /// `until`, as given.
    pub until: Option<String>,
    /// Ask `from` the start of the last complete harvest of the same list. Default true.
    pub incremental: bool,
    /// Fetch `didl:Resource/@ref` URLs of records that carry no inline resource. Default true.
    pub fetch_refs: bool,
    /// The warcinfo `isPartOf`: the name of the harvest. Default `modoai-harvest`.
    pub name: String,
}

impl HarvestOptions {
    /// A full harvest of `endpoint` with the defaults.
    pub fn new(endpoint: &str) -> Self {
        HarvestOptions {
            endpoint: endpoint.to_owned(),
            prefix: None,
            set: None,
            from: None,
            until: None,
            incremental: true,
            fetch_refs: true,
            name: "modoai-harvest".into(),
        }
    }
}

/// Why a harvest stopped before the end of its list.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HarvestError {
    /// The HTTP client gave up (after its retries).
    #[error("{0}")]
    Fetch(Box<FetchError>),
    /// A page kept arriving broken.
    #[error("page {url} still broken after {attempts} attempts: {error}")]
    BrokenPage {
        /// The request.
        url: String,
        /// How many times it was fetched.
        attempts: u32,
        /// The last parse error.
        error: ParseError,
    },
    /// The endpoint answered with OAI-PMH errors.
    #[error("{url}: the endpoint answered {}", describe(errors))]
    Oai {
        /// The request.
        url: String,
        /// The errors.
        errors: Vec<OaiError>,
    },
    /// The endpoint sent a resumption token it had sent before: following it would loop.
    #[error(
        "{url}: the endpoint repeated resumption token {token:?}; stopping instead of looping"
    )]
    RepeatedToken {
        /// The request whose answer repeated the token.
        url: String,
        /// The token.
        token: String,
    },
    /// `badResumptionToken` kept coming back after starting over.
    #[error("{url}: badResumptionToken again after {restarts} fresh starts")]
    TooManyRestarts {
        /// The request.
        url: String,
        /// Restarts made.
        restarts: u32,
    },
    /// The archive could not be written.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// A date argument is not an OAI-PMH datestamp.
    #[error("{0:?} is not a date of the form YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ")]
    BadDate(String),
}

fn describe(errors: &[OaiError]) -> String {
    if errors.is_empty() {
        return "no usable answer".into();
    }
    errors
        .iter()
        .map(|e| format!("{}: {}", e.code.as_str(), e.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Figures of one harvest.
#[derive(Debug, Default)]
pub struct Summary {
    /// The list harvested.
    pub endpoint: String,
    /// Its format.
    pub prefix: String,
    /// Its set.
    pub set: Option<String>,
    /// `from` asked (incremental or given).
    pub from: Option<String>,
    /// Pages completed.
    pub pages: u64,
    /// Items seen in the pages.
    pub items: u64,
    /// Items newly archived.
    pub archived: u64,
    /// Items already in the archive (same identifier and datestamp).
    pub skipped: u64,
    /// Deleted records archived as such.
    pub deleted: u64,
    /// Payloads stored as revisits (identical payload already archived).
    pub revisits: u64,
    /// Payload bytes archived.
    pub bytes: u64,
    /// Fixity mismatches found (each recorded in the archive).
    pub fixity_errors: u64,
    /// Records that could not be archived (no identifier, a `ref` that could not be fetched).
    pub bad_records: u64,
    /// Pages fetched again after a broken body.
    pub page_retries: u64,
    /// Fresh starts after `badResumptionToken`.
    pub restarts: u32,
    /// HTTP requests and retries.
    pub requests: u64,
    /// HTTP retries (network errors, 5xx, 503).
    pub http_retries: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Continued an interrupted harvest.
    pub resumed: bool,
    /// Why it stopped early; `None` when the list was harvested to its end.
    pub error: Option<HarvestError>,
}

impl Summary {
    /// The list was harvested to its end.
    pub fn is_complete(&self) -> bool {
        self.error.is_none()
    }
}

/// Receives progress, e.g. for a progress bar. Every method has an empty default.
pub trait Progress {
    /// A page arrived: the list's size and the cursor, when the endpoint gives them.
    fn page(&self, _pages: u64, _list_size: Option<u64>, _cursor: Option<u64>) {}
    /// An item was handled; `bytes` archived (0 if skipped).
    fn item(&self, _bytes: u64) {}
    /// A warning worth showing (a retry, a fixity mismatch).
    fn warn(&self, _message: &str) {}
}

/// A [`Progress`] that ignores everything.
#[derive(Debug, Default)]
pub struct Quiet;

impl Progress for Quiet {}

/// Harvests lists into an archive. Blocking: run it on a thread outside the async runtime
/// (e.g. `tokio::task::spawn_blocking`); requests run on `handle`.
pub struct Harvester<'a> {
    client: Client,
    handle: Handle,
    archive: &'a mut Archive,
    progress: &'a dyn Progress,
}

/// A record waiting for its `ref` resources, fetched after the page (the page's connection holds
/// the host's politeness slot until it ends).
struct Deferred {
    header: Header,
    facts: Facts,
    xml: Option<Spool>,
}

/// One page's outcome.
struct Page {
    response_date: Option<Datestamp>,
    errors: Vec<OaiError>,
    token: Option<ResumptionToken>,
}

enum Failure {
    /// Worth fetching the page again.
    Retry(ParseError),
    /// Not.
    Fatal(HarvestError),
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
        let identify = endpoint::identify(&self.client, &self.handle, &o.endpoint)?;
        let granularity = identify.granularity.unwrap_or(Granularity::Day);
        let prefix = match &o.prefix {
            Some(p) => p.clone(),
            None => {
                let formats = endpoint::formats(&self.client, &self.handle, &o.endpoint)?;
                if formats.iter().any(|f| f.prefix == "oai_crate") {
                    "oai_crate".to_owned()
                } else {
                    "oai_dc".to_owned()
                }
            }
        };
        summary.prefix = prefix.clone();
        let key = ListKey {
            endpoint: o.endpoint.clone(),
            prefix: prefix.clone(),
            set: o.set.clone(),
        };
        let list = self.archive.state_mut().list_mut(&key);
        let mut running = match list.running.clone() {
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
        let ctx = Context {
            endpoint: o.endpoint.clone(),
            prefix: prefix.clone(),
            fetch_refs: o.fetch_refs,
            warcinfo: warcinfo(o, &prefix, &self.client),
        };
        let result = self.pages(&ctx, &mut running, summary);
        let list = self.archive.state_mut().list_mut(&key);
        let outcome = match &result {
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
        result
    }

    fn pages(
        &mut self,
        ctx: &Context,
        running: &mut Running,
        summary: &mut Summary,
    ) -> Result<(), HarvestError> {
        let url = match &running.token {
            Some(t) => request_url(&ctx.endpoint, Verb::ListRecords, &[("resumptionToken", t)]),
            None => first_url(ctx, running, &summary.set),
        };
        self.continue_pages(ctx, running, summary, url)
    }

    /// Follows the list from `url` to its end.
    fn continue_pages(
        &mut self,
        ctx: &Context,
        running: &mut Running,
        summary: &mut Summary,
        mut url: String,
    ) -> Result<(), HarvestError> {
        let mut restarts = 0;
        // Tokens of this run (a resumed run starts afresh: the state keeps only the next one).
        let mut tokens_seen = std::collections::HashSet::new();
        loop {
            let page = self.page(ctx, &url, summary)?;
            if !page.errors.is_empty() {
                let codes: Vec<ErrorCode> = page.errors.iter().map(|e| e.code).collect();
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
                    url = first_url(ctx, running, &summary.set);
                    continue;
                }
                return Err(HarvestError::Oai {
                    url,
                    errors: page.errors,
                });
            }
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
                    url = request_url(
                        &ctx.endpoint,
                        Verb::ListRecords,
                        &[("resumptionToken", &t.token)],
                    );
                    running.token = Some(t.token);
                }
            }
            let key = ListKey {
                endpoint: ctx.endpoint.clone(),
                prefix: ctx.prefix.clone(),
                set: summary.set.clone(),
            };
            self.archive.state_mut().list_mut(&key).running = Some(running.clone());
            self.archive.checkpoint()?;
        }
    }

    /// One page, fetched again while it arrives broken.
    fn page(
        &mut self,
        ctx: &Context,
        url: &str,
        summary: &mut Summary,
    ) -> Result<Page, HarvestError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.try_page(ctx, url, summary) {
                Ok(page) => return Ok(page),
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Retry(error)) if attempt <= self.client.config().max_retries => {
                    let wait = self.client.backoff(attempt);
                    let msg = format!("{url}: {error}; fetching the page again in {wait:.1?}");
                    tracing::warn!("{msg}");
                    self.progress.warn(&msg);
                    summary.page_retries += 1;
                    std::thread::sleep(wait);
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
        summary: &mut Summary,
    ) -> Result<Page, Failure> {
        let response = self
            .handle
            .block_on(self.client.get(url))
            .map_err(|e| Failure::Fatal(HarvestError::Fetch(Box::new(e))))?;
        let reader = response.into_reader(&self.handle);
        let spool_dir = self.archive.dir().join("spool");
        let new_spool = move || Spool::new(spool_dir.clone(), DEFAULT_SPOOL_THRESHOLD);
        let mut collector = Collector::new(&new_spool);
        let mut parser = PageParser::new(reader);
        let mut page = Page {
            response_date: None,
            errors: Vec::new(),
            token: None,
        };
        let mut deferred = Vec::new();
        loop {
            let event = match parser.next_event_with(&mut collector) {
                Ok(Some(e)) => e,
                Ok(None) => break,
                Err(ParseError::Sink { source, .. }) => {
                    let source = io::Error::new(source.kind(), source.to_string());
                    let path = self.archive.dir().join("spool");
                    return Err(Failure::Fatal(ArchiveError::Io { path, source }.into()));
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
                }
                _ => {}
            }
        }
        drop(parser);
        for d in deferred {
            self.fetch_refs(ctx, d, summary).map_err(Failure::Fatal)?;
        }
        Ok(page)
    }

    /// Stores one record, or hands it back to wait for its `ref` resources.
    fn item(
        &mut self,
        ctx: &Context,
        header: Header,
        mut xml: Option<Spool>,
        resources: Vec<Decoded>,
        summary: &mut Summary,
    ) -> Result<Option<Deferred>, HarvestError> {
        summary.items += 1;
        if header.identifier.is_empty() {
            summary.bad_records += 1;
            let msg = format!(
                "a record without identifier (datestamp {:?}) was skipped",
                header.datestamp_raw
            );
            tracing::warn!("{msg}");
            self.progress.warn(&msg);
            self.progress.item(0);
            return Ok(None);
        }
        if self.archive.contains(
            &ctx.endpoint,
            &ctx.prefix,
            &header.identifier,
            &header.datestamp_raw,
        ) {
            summary.skipped += 1;
            self.progress.item(0);
            return Ok(None);
        }
        let facts = match &mut xml {
            Some(spool) => {
                let reader = spool
                    .reader()
                    .map_err(|source| spool_error(self.archive, source))?;
                Facts::read(reader)
            }
            None => Facts::default(),
        };
        let refs = facts.didl
            && resources.is_empty()
            && ctx.fetch_refs
            && !header.deleted
            && facts
                .resources
                .iter()
                .any(|r| r.reference.as_deref().is_some_and(is_http));
        if refs {
            return Ok(Some(Deferred { header, facts, xml }));
        }
        let primary = primary_uri(&header, &facts, &get_record(ctx, &header));
        let payloads = resources
            .into_iter()
            .enumerate()
            .map(|(n, r)| {
                let mime = r
                    .mime_type
                    .clone()
                    .or_else(|| {
                        facts
                            .resources
                            .get(r.index)
                            .and_then(|f| f.mime_type.clone())
                    })
                    .unwrap_or_else(|| "application/octet-stream".into());
                Payload {
                    target_uri: nth_uri(&primary, n),
                    mime,
                    bytes: r.bytes,
                    md5: Some(r.md5),
                    source: "inline".into(),
                }
            })
            .collect();
        self.store(ctx, header, facts, xml, payloads, summary)
            .map(|()| None)
    }

    fn fetch_refs(
        &mut self,
        ctx: &Context,
        d: Deferred,
        summary: &mut Summary,
    ) -> Result<(), HarvestError> {
        let mut payloads = Vec::new();
        let refs: Vec<_> = d
            .facts
            .resources
            .iter()
            .filter_map(|r| {
                Some((
                    r.reference.clone().filter(|u| is_http(u))?,
                    r.mime_type.clone(),
                ))
            })
            .collect();
        let mut seen = std::collections::HashSet::new();
        for (url, mime) in refs {
            if !seen.insert(url.clone()) {
                continue;
            }
            match self.fetch(&url) {
                Ok((bytes, md5, served)) => payloads.push(Payload {
                    target_uri: url.clone(),
                    mime: mime
                        .or(served)
                        .unwrap_or_else(|| "application/octet-stream".into()),
                    bytes,
                    md5: Some(md5),
                    source: url,
                }),
                Err(e) => {
                    summary.bad_records += 1;
                    let msg = format!("{}: resource {url} not archived: {e}", d.header.identifier);
                    tracing::warn!("{msg}");
                    self.progress.warn(&msg);
                    if matches!(e, FetchFailure::Archive(_)) {
                        return Err(match e {
                            FetchFailure::Archive(a) => a.into(),
                            FetchFailure::Fetch(_) => unreachable!(),
                        });
                    }
                    // The item is not recorded, so the next run tries it again.
                    return Ok(());
                }
            }
        }
        self.store(ctx, d.header, d.facts, d.xml, payloads, summary)
    }

    /// GETs `url` into a spool, with its MD5 and served Content-Type.
    fn fetch(&mut self, url: &str) -> Result<(Spool, String, Option<String>), FetchFailure> {
        let response = self
            .handle
            .block_on(self.client.get(url))
            .map_err(|e| FetchFailure::Fetch(e.to_string()))?;
        let served = response
            .headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut reader = response.into_reader(&self.handle);
        let mut spool = Spool::new(self.archive.dir().join("spool"), DEFAULT_SPOOL_THRESHOLD);
        let mut md5 = Md5::new();
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = match io::Read::read(&mut reader, &mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(FetchFailure::Fetch(e.to_string())),
            };
            md5.update(&buf[..n]);
            spool
                .write_all(&buf[..n])
                .map_err(|source| FetchFailure::Archive(spool_error(self.archive, source)))?;
        }
        Ok((spool, hex::encode(md5.finalize()), served))
    }

    fn store(
        &mut self,
        ctx: &Context,
        header: Header,
        facts: Facts,
        xml: Option<Spool>,
        payloads: Vec<Payload>,
        summary: &mut Summary,
    ) -> Result<(), HarvestError> {
        let item = Item {
            endpoint: &ctx.endpoint,
            prefix: &ctx.prefix,
            header: &header,
            get_record: get_record(ctx, &header),
            facts,
            xml,
            payloads,
        };
        let warcinfo = || ctx.warcinfo.clone();
        let stored = item.store(self.archive, &warcinfo)?;
        let e = &stored.entry;
        summary.archived += 1;
        summary.deleted += u64::from(e.deleted);
        summary.revisits += e.records.iter().filter(|r| r.kind == "revisit").count() as u64;
        summary.bytes += e.bytes;
        summary.fixity_errors += e.fixity_errors.len() as u64;
        for f in &e.fixity_errors {
            self.progress.warn(&format!("{}: fixity {f}", e.identifier));
        }
        self.progress.item(e.bytes);
        Ok(())
    }
}

enum FetchFailure {
    Fetch(String),
    Archive(ArchiveError),
}

impl std::fmt::Display for FetchFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchFailure::Fetch(e) => f.write_str(e),
            FetchFailure::Archive(e) => e.fmt(f),
        }
    }
}

fn spool_error(archive: &Archive, source: io::Error) -> ArchiveError {
    ArchiveError::Io {
        path: archive.dir().join("spool"),
        source,
    }
}

/// What every page of a list shares.
struct Context {
    endpoint: String,
    prefix: String,
    fetch_refs: bool,
    warcinfo: WarcFields,
}

fn warcinfo(o: &HarvestOptions, prefix: &str, client: &Client) -> WarcFields {
    let mut f = WarcFields::new();
    let mut description = format!("OAI-PMH harvest of {} metadataPrefix={prefix}", o.endpoint);
    if let Some(s) = &o.set {
        description.push_str(&format!(" set={s}"));
    }
    // Names and URLs come from the command line; a control character would fail the field.
    let _ = f.field("isPartOf", &o.name);
    let _ = f.field("description", &description);
    let _ = f.field("http-header-user-agent", &client.config().user_agent);
    let _ = f.field(
        "conformsTo",
        "http://www.openarchives.org/OAI/2.0/openarchivesprotocol.htm",
    );
    f
}

/// The request of a list's first page.
fn first_url(ctx: &Context, running: &Running, set: &Option<String>) -> String {
    let mut args = vec![("metadataPrefix", ctx.prefix.as_str())];
    for (name, v) in [
        ("from", &running.from),
        ("until", &running.until),
        ("set", set),
    ] {
        if let Some(v) = v {
            args.push((name, v.as_str()));
        }
    }
    request_url(&ctx.endpoint, Verb::ListRecords, &args)
}

fn get_record(ctx: &Context, header: &Header) -> String {
    request_url(
        &ctx.endpoint,
        Verb::GetRecord,
        &[
            ("identifier", &header.identifier),
            ("metadataPrefix", &ctx.prefix),
        ],
    )
}

fn is_http(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The URL a record's (first) inline payload is archived under: the OAI identifier if it is an
/// http(s) URL (modoai's identifiers are the files' URLs), else a DIDL identifier or `ref` that
/// is one, else the record's GetRecord URL.
fn primary_uri(header: &Header, facts: &Facts, get_record: &str) -> String {
    std::iter::once(header.identifier.as_str())
        .chain(facts.identifiers.iter().map(String::as_str))
        .chain(
            facts
                .resources
                .iter()
                .filter_map(|r| r.reference.as_deref()),
        )
        .find(|u| is_http(u))
        .unwrap_or(get_record)
        .to_owned()
}

/// The URL of the `n`th inline payload of one record.
fn nth_uri(primary: &str, n: usize) -> String {
    if n == 0 {
        return primary.to_owned();
    }
    let sep = if primary.contains('?') { '&' } else { '?' };
    format!("{primary}{sep}didl-resource={n}")
}

//! `GET /api/v1/export?format=…`: every capture of a search, streamed as it is read. The first
//! thousand captures are read before the answer starts (so a bad query, an index being built or
//! a spent quota is an error with its status); then a task reads a thousand at a time after the
//! cursor of the last, each thousand counted against the key's quota, and stops as soon as the
//! client goes away. The last line says whether the export is complete (`docs/explorer.md`).

mod warc;

use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use modoai_archive::archive::Reader;
use tokio::sync::mpsc;

use crate::export::{rows, write_cdxj, CorpusContext, Ending, Format, Rows, EXPORT_UNIT};
use crate::search::{CursorError, Facet, Members, SearchError, SearchParams, Walked};
use crate::web::{Api, AppError, AppState, Caller, FromPairs, Pairs, Params};

/// Pages written ahead of the client (besides the one being sent): an export holds two pages
/// of captures at most.
const AHEAD: usize = 1;
/// Parameters of a search page an export does not use.
/// (`ticket` admitted the caller: `web::Caller`.)
const UNUSED: [&str; 7] = [
    "page",
    "size",
    "after",
    "facets",
    "group",
    "timeout_ms",
    "ticket",
];

/// `/api/v1/export`: the format and the search.
pub(super) struct ExportQuery {
    format: Format,
    params: SearchParams,
    /// The search as a query string, for the corpus's description.
    search: String,
}

impl FromPairs for ExportQuery {
    fn from_pairs(mut pairs: Pairs) -> Result<Self, AppError> {
        let format = match pairs.iter().position(|(k, _)| k == "format") {
            Some(i) => pairs.remove(i).1.parse().map_err(AppError::BadRequest)?,
            None => {
                return Err(AppError::BadRequest(format!(
                    "give format={}",
                    crate::export::names()
                )))
            }
        };
        pairs.retain(|(k, _)| !UNUSED.contains(&k.as_str()));
        let search = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&pairs)
            .finish();
        let params = SearchParams {
            parts_only: format == Format::Corpus,
            ..SearchParams::from_pairs(pairs)?
        };
        Ok(ExportQuery {
            format,
            params,
            search,
        })
    }
}

/// Why an export stopped when its client went away.
const GONE: &str = "the download was cut before the end";

/// A chunk of an export; an error ends the answer abruptly, so that the client sees it cut.
type Chunk = Result<Bytes, std::io::Error>;

/// `GET /api/v1/export`; an error before the export begins is its ticket's progress's end too.
pub(super) async fn export(
    Params(query): Params<ExportQuery>,
    caller: Caller<Api>,
) -> Result<Response, AppError> {
    let progress = caller.progress().cloned();
    let answer = begin(query, caller).await;
    if let (Err(e), Some(p)) = (&answer, progress) {
        p.end(Err(e.to_string()));
    }
    answer
}

/// Begins the export of `query`: its first page read, the rest written by a task.
async fn begin(query: ExportQuery, caller: Caller<Api>) -> Result<Response, AppError> {
    match query.format {
        Format::Cdxj => return export_cdxj(query, caller).await,
        Format::Warc | Format::Wacz => return warc::export_records(query, caller).await,
        _ => {}
    }
    let params = query.params.clone();
    let first = caller
        .run(move |s, who| Ok(s.library.walk(&params, &who.scope(), None, EXPORT_UNIT)?))
        .await?;
    let context = match query.format {
        Format::Corpus => {
            // A corpus states its count first: the whole export must fit the quota.
            caller.afford(more_units(first.total))?;
            corpus_context(&caller, &query, &first).await?
        }
        _ => CorpusContext::default(),
    };
    let Some(rows) = rows(query.format, context) else {
        unreachable!("every format but cdxj, warc and wacz is written by rows")
    };
    if let Some(p) = caller.progress() {
        p.start(first.total);
    }
    let (tx, rx) = mpsc::channel::<Chunk>(AHEAD);
    let answer = answer(&caller, query.format, first.total, rx);
    let running = Running::start(caller.state());
    tokio::spawn(produce(caller, query.params, first, rows, tx, running));
    Ok(answer)
}

/// `GET /api/v1/export?format=cdxj`: the lines of each archive's sorted index whose captures the
/// search finds. The whole export is counted against the quota before it starts (a CDXJ index
/// has no line to say it stopped); a failure while it is written cuts the answer.
async fn export_cdxj(query: ExportQuery, caller: Caller<Api>) -> Result<Response, AppError> {
    let params = query.params;
    let members = caller
        .run(move |s, who| Ok(s.library.members(&params, &who.scope())?))
        .await?;
    let total: u64 = members.iter().map(Members::count).sum();
    let units = more_units(total);
    caller.afford(units)?;
    for _ in 0..units {
        caller.spend()?;
    }
    if let Some(p) = caller.progress() {
        p.start(total);
    }
    let (tx, rx) = mpsc::channel::<Chunk>(AHEAD);
    let answer = answer(&caller, query.format, total, rx);
    let running = Running::start(caller.state());
    tokio::task::spawn_blocking(move || {
        let _running = running;
        let progress = caller.progress();
        let mut sent = true;
        let send = |chunk: Vec<u8>| {
            if let Some(p) = progress {
                // One line a capture.
                p.wrote(chunk.iter().filter(|b| **b == b'\n').count() as u64);
            }
            sent = tx.blocking_send(Ok(Bytes::from(chunk))).is_ok();
            sent
        };
        let written = write_cdxj(&members, send);
        if let Err(e) = &written {
            tracing::error!(error = %e, "a CDXJ export stopped");
            let _ = tx.blocking_send(Err(std::io::Error::other("the export failed")));
        }
        if let Some(p) = progress {
            p.end(match (written, sent) {
                (Ok(_), true) => Ok(()),
                (Ok(_), false) => Err(GONE.into()),
                (Err(e), _) => Err(e.to_string()),
            });
        }
    });
    Ok(answer)
}

/// Requests of the quota an export of `captures` takes besides the request itself.
fn more_units(captures: u64) -> u64 {
    captures.div_ceil(EXPORT_UNIT as u64).saturating_sub(1)
}

/// The answer: its headers, and the body `rx` streams.
fn answer(caller: &Caller<Api>, format: Format, total: u64, rx: mpsc::Receiver<Chunk>) -> Response {
    let head = [
        (header::CONTENT_TYPE, format.media_type().to_owned()),
        (
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"export.{}\"", format.extension()),
        ),
    ];
    let body = Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|chunk| (chunk, rx))
    }));
    let count = [("x-export-captures", total.to_string())];
    (caller.rate_limit(), head, count, body).into_response()
}

/// The archive ids of the archives searched, the search and its fingerprint.
async fn corpus_context(
    caller: &Caller<Api>,
    query: &ExportQuery,
    first: &Walked,
) -> Result<CorpusContext, AppError> {
    let archive_ids = caller
        .run(|s, who| {
            let scope = who.scope();
            Ok(s.library
                .archives()
                .iter()
                .filter(|a| scope.admits(Facet::Archive, &a.name))
                // A collection of other tools' files is named by its PWIDs' archive id.
                .filter_map(|a| match a.collection.is_archive() {
                    true => Reader::open(&a.dir).ok()?.archive_id().map(str::to_owned),
                    false => Some(a.name.clone()),
                })
                .collect())
        })
        .await?;
    let (search, state) = first.fingerprint;
    Ok(CorpusContext {
        archive_ids,
        query: query.search.clone(),
        created: None,
        count: first.total,
        fingerprint: format!("{search:016x}{state:016x}"),
    })
}

/// Writes the export into `tx`, page after page, until the last page, a spent quota, a changed
/// index, or the client going away (`tx` closed: the work stops at once).
async fn produce(
    caller: Caller<Api>,
    params: SearchParams,
    first: Walked,
    mut rows: Box<dyn Rows>,
    tx: mpsc::Sender<Chunk>,
    _running: Running,
) {
    let mut out = Vec::new();
    rows.head(&mut out);
    let (mut page, mut written) = (first, 0u64);
    let ending = loop {
        for (item, stored) in &page.captures {
            rows.row(&mut out, item, stored);
        }
        written += page.captures.len() as u64;
        if let Some(p) = caller.progress() {
            p.wrote(page.captures.len() as u64);
        }
        if tx
            .send(Ok(Bytes::from(std::mem::take(&mut out))))
            .await
            .is_err()
        {
            tracing::info!(written, "export stopped: the client went away");
            if let Some(p) = caller.progress() {
                p.end(Err(GONE.into()));
            }
            return;
        }
        let Some(after) = page.next else {
            break Ending::Complete;
        };
        if let Err(e) = caller.spend() {
            break Ending::Stopped(e.to_string());
        }
        let p = params.clone();
        let next = caller
            .run(move |s, who| Ok(s.library.walk(&p, &who.scope(), Some(after), EXPORT_UNIT)))
            .await;
        page = match next {
            Ok(Ok(w)) => w,
            Ok(Err(SearchError::Cursor(CursorError::Stale))) => {
                break Ending::Stopped("the index changed during the export: export again".into())
            }
            Ok(Err(e)) => break Ending::Stopped(AppError::from(e).to_string()),
            Err(e) => break Ending::Stopped(e.to_string()),
        };
    };
    rows.tail(&mut out, written, &ending);
    let sent = tx.send(Ok(Bytes::from(out))).await.is_ok();
    if let Some(p) = caller.progress() {
        p.end(match ending {
            _ if !sent => Err(GONE.into()),
            Ending::Complete => Ok(()),
            Ending::Stopped(why) => Err(why),
        });
    }
}

/// An export counted in [`AppState::exporting`] while its task lives.
struct Running(Arc<AppState>);

impl Running {
    fn start(state: &Arc<AppState>) -> Running {
        state.exporting.fetch_add(1, Ordering::SeqCst);
        Running(Arc::clone(state))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.exporting.fetch_sub(1, Ordering::SeqCst);
    }
}

//! `GET /api/v1/export?format=warc` and `format=wacz`: the WARC records of a search's captures,
//! as one `.warc.gz` or in a WACZ package. Neither has a line to say it stopped, so each is
//! whole or ends with an HTTP error before its body: the
//! captures are counted and the whole export charged to the key's quota before the answer
//! starts. Then a task reads a page of captures at a time (with a search permit) and copies
//! their records off the runtime (without one, as mementos stream), cutting the answer if a
//! record cannot be read or the index changes, and stopping as soon as the client goes away.

use axum::body::Bytes;
use axum::response::Response;
use tokio::sync::mpsc;

use super::{answer, more_units, Chunk, ExportQuery, Running, AHEAD, GONE};
use crate::export::{Chunks, Format, WaczExport, WarcContext, WarcError, WarcExport, EXPORT_UNIT};
use crate::search::{find_originals, lacks_original, Item, SearchParams, Stored, Walked};
use crate::web::{Api, AppError, Caller};

/// What a page of captures is written with.
enum Writer {
    /// A WARC, its chunks sent page by page.
    Warc(Box<WarcExport>),
    /// A WACZ package, sending its chunks itself.
    Wacz(Box<WaczExport<Chunks<SendChunk>>>),
}

/// Hands a chunk to the answer; `false` when the client went away.
type SendChunk = Box<dyn FnMut(Vec<u8>) -> bool + std::marker::Send>;

/// A sender of chunks into `tx`, from a blocking thread.
fn sender(tx: &mpsc::Sender<Chunk>) -> SendChunk {
    let tx = tx.clone();
    Box::new(move |chunk: Vec<u8>| tx.blocking_send(Ok(Bytes::from(chunk))).is_ok())
}

impl Writer {
    /// Writes `captures`: the head first when `head`.
    fn page(
        &mut self,
        head: bool,
        captures: &[(Item, Stored)],
        places: &[usize],
        tx: &mpsc::Sender<Chunk>,
    ) -> Result<(), WarcError> {
        match self {
            Writer::Warc(export) => {
                let mut out = Chunks::new(sender(tx));
                if head {
                    export.head(&mut out)?;
                }
                export.page(captures, places, &mut out)?;
                export.finish(&mut out)
            }
            Writer::Wacz(export) => export.page(captures, places),
        }
    }

    /// Writes what follows the last capture.
    fn end(self) -> Result<(), WarcError> {
        match self {
            Writer::Warc(_) => Ok(()),
            Writer::Wacz(export) => export.finish().map(drop),
        }
    }
}

/// `GET /api/v1/export?format=warc` or `format=wacz`.
pub(super) async fn export_records(
    query: ExportQuery,
    caller: Caller<Api>,
) -> Result<Response, AppError> {
    let params = query.params.clone();
    let first = caller
        .run(move |s, who| Ok(s.library.walk(&params, &who.scope(), None, EXPORT_UNIT)?))
        .await?;
    let units = more_units(first.total);
    caller.afford(units)?;
    for _ in 0..units {
        caller.spend()?;
    }
    if let Some(p) = caller.progress() {
        p.start(first.total);
    }
    let archives = caller
        .run(|s, _| {
            let all = s.library.archives().iter();
            Ok(all.map(|a| a.dir.clone()).collect())
        })
        .await?;
    let context = WarcContext {
        query: query.search.clone(),
        created: None,
        count: first.total,
        archives,
        scope: caller.who().scope(),
    };
    let (tx, rx) = mpsc::channel::<Chunk>(AHEAD);
    let answer = answer(&caller, query.format, first.total, rx);
    let running = Running::start(caller.state());
    let writer = match query.format {
        Format::Wacz => {
            let out = Chunks::new(sender(&tx));
            let make = move || WaczExport::new(context, out);
            match tokio::task::spawn_blocking(make).await {
                Ok(Ok(w)) => Writer::Wacz(Box::new(w)),
                Ok(Err(e)) => return Err(unavailable(&e.to_string())),
                Err(e) => return Err(unavailable(&e.to_string())),
            }
        }
        _ => Writer::Warc(Box::new(WarcExport::new(context))),
    };
    tokio::spawn(produce(caller, query.params, first, writer, tx, running));
    Ok(answer)
}

/// Writes the export into `tx`, page after page, until the last page; a failure cuts the
/// answer (an error chunk), the client going away stops the work.
async fn produce(
    caller: Caller<Api>,
    params: SearchParams,
    first: Walked,
    mut writer: Writer,
    tx: mpsc::Sender<Chunk>,
    _running: Running,
) {
    let (mut page, mut head) = (first, true);
    loop {
        let mut captures = std::mem::take(&mut page.captures);
        let places = std::mem::take(&mut page.places);
        if captures.iter().any(lacks_original) {
            let found = caller
                .run(move |s, who| {
                    find_originals(&s.library, &who.scope(), &mut captures)?;
                    Ok(captures)
                })
                .await;
            captures = match found {
                Ok(c) => c,
                Err(e) => return cut(&tx, &e.to_string()).await,
            };
        }
        let chunks = tx.clone();
        let last = page.next.is_none();
        let n = captures.len() as u64;
        let job = tokio::task::spawn_blocking(move || {
            let written = writer.page(head, &captures, &places, &chunks);
            match (written, last) {
                (Ok(()), true) => (None, writer.end()),
                (written, _) => (Some(writer), written),
            }
        });
        head = false;
        let progress = caller.progress();
        writer = match job.await {
            Ok((Some(writer), Ok(()))) => {
                progress.inspect(|p| p.wrote(n));
                writer
            }
            Ok((None, Ok(()))) => {
                progress.inspect(|p| p.wrote(n));
                progress.inspect(|p| p.end(Ok(())));
                return;
            }
            Ok((_, Err(WarcError::Gone))) => {
                tracing::info!("a WARC export stopped: the client went away");
                progress.inspect(|p| p.end(Err(GONE.into())));
                return;
            }
            Ok((_, Err(e))) => return cut(&tx, &e.to_string()).await,
            Err(e) => return cut(&tx, &e.to_string()).await,
        };
        let Some(after) = page.next.take() else {
            return;
        };
        let p = params.clone();
        let next = caller
            .run(move |s, who| Ok(s.library.walk(&p, &who.scope(), Some(after), EXPORT_UNIT)))
            .await;
        page = match next {
            Ok(Ok(w)) => w,
            Ok(Err(e)) => return cut(&tx, &e.to_string()).await,
            Err(e) => return cut(&tx, &e.to_string()).await,
        };
    }
}

/// The error of an export that cannot start.
fn unavailable(why: &str) -> AppError {
    tracing::error!(error = why, "an export cannot start");
    AppError::unavailable("the export cannot start just now; try again", 5)
}

/// Ends the answer abruptly, so that the client sees it cut, and says why in the log.
async fn cut(tx: &mpsc::Sender<Chunk>, why: &str) {
    tracing::error!(error = why, "a WARC export stopped");
    let _ = tx
        .send(Err(std::io::Error::other("the export failed")))
        .await;
}

//! `GET /api/v1/export?format=warc`: the WARC records of a search's captures. A WARC has no
//! line to say it stopped, so it is whole or ends with an HTTP error before its body: the
//! captures are counted and the whole export charged to the key's quota before the answer
//! starts. Then a task reads a page of captures at a time (with a search permit) and copies
//! their records off the runtime (without one, as mementos stream), cutting the answer if a
//! record cannot be read or the index changes, and stopping as soon as the client goes away.

use axum::body::Bytes;
use axum::response::Response;
use tokio::sync::mpsc;

use super::{answer, more_units, Chunk, ExportQuery, Running, AHEAD};
use crate::export::{
    find_originals, lacks_original, Chunks, WarcContext, WarcError, WarcExport, EXPORT_UNIT,
};
use crate::search::{SearchParams, Walked};
use crate::web::{Api, AppError, Caller};

/// `GET /api/v1/export?format=warc`.
pub(super) async fn export_warc(
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
    };
    let (tx, rx) = mpsc::channel::<Chunk>(AHEAD);
    let answer = answer(&caller, query.format, first.total, rx);
    let running = Running::start(caller.state());
    let export = WarcExport::new(context);
    tokio::spawn(produce(caller, query.params, first, export, tx, running));
    Ok(answer)
}

/// Writes the export into `tx`, page after page, until the last page; a failure cuts the
/// answer (an error chunk), the client going away stops the work.
async fn produce(
    caller: Caller<Api>,
    params: SearchParams,
    first: Walked,
    mut export: WarcExport,
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
        let sender = tx.clone();
        let job = tokio::task::spawn_blocking(move || {
            let send = |chunk: Vec<u8>| sender.blocking_send(Ok(Bytes::from(chunk))).is_ok();
            let mut out = Chunks::new(send);
            let mut write = || {
                if head {
                    export.head(&mut out)?;
                }
                export.page(&captures, &places, &mut out)?;
                export.finish(&mut out)
            };
            let written = write();
            (export, written)
        });
        head = false;
        export = match job.await {
            Ok((export, Ok(()))) => export,
            Ok((_, Err(WarcError::Gone))) => {
                tracing::info!("a WARC export stopped: the client went away");
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

/// Ends the answer abruptly, so that the client sees it cut, and says why in the log.
async fn cut(tx: &mpsc::Sender<Chunk>, why: &str) {
    tracing::error!(error = why, "a WARC export stopped");
    let _ = tx
        .send(Err(std::io::Error::other("the export failed")))
        .await;
}

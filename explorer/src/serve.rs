//! `modoai-explorer serve`: the doors of the web shell ([`crate::web`]) put together as one
//! router over the archives, and a background task that keeps each archive's index current
//! (building it first when it has none, rebuilding it when it is damaged). Until an archive has
//! an index, searches that reach it answer 503 with `Retry-After`.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;

use crate::collection::{collections, CollectionArg};
use crate::index::{build_collection, ArchiveIndex, BuildOptions};
use crate::search::{Library, Served};
use crate::web::{refund_unavailable, AppState};
use crate::{api, memento, ui, ExplorerError};

/// Every route of the server: the JSON API (`/api/v1/…`, and its 404 under `/api/`), Memento and
/// PWID, and the pages, whose door answers every other path; a `503` answer is not counted
/// against the caller's quota.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .merge(api::routes())
        .merge(memento::routes())
        .merge(ui::routes())
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            refund_unavailable,
        ))
        .with_state(state)
}

/// Serves `state` on `listener` until `shutdown` resolves, keeping the indexes current with
/// `options` every `refresh` (zero: once, at start).
pub async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    options: BuildOptions,
    refresh: Duration,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let library = Arc::clone(&state.library);
    let cancel = Arc::clone(&options.cancel);
    let indexer = tokio::task::spawn_blocking(move || keep_indexed(&library, &options, refresh));
    let result = axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown)
        .await;
    cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = indexer.await;
    result
}

/// Opens each archive's index, then builds what is missing, at start and every `refresh`.
pub fn keep_indexed(library: &Library, options: &BuildOptions, refresh: Duration) {
    for a in library.archives() {
        check(a);
    }
    loop {
        for a in library.archives() {
            if options.cancel.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            update(a, options);
        }
        if refresh.is_zero() {
            return;
        }
        let until = std::time::Instant::now() + refresh;
        while std::time::Instant::now() < until {
            if options.cancel.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// Opens an archive's index if it is whole; a damaged one is removed (rebuilt by [`update`]).
fn check(a: &Served) {
    match ArchiveIndex::open_at(&a.collection.index) {
        Ok(Some(index)) => match index.damaged_files() {
            Ok(files) if files.is_empty() => {
                if let Err(e) = a.reopen() {
                    tracing::warn!(archive = %a.name, error = %e, "the index cannot be opened; rebuilding it");
                    a.close();
                }
            }
            Ok(files) => {
                tracing::warn!(archive = %a.name, damaged = ?files, "damaged index files; rebuilding the index from the archive");
                let _ = ArchiveIndex::create_at(&a.collection.index);
            }
            Err(e) => {
                tracing::warn!(archive = %a.name, error = %e, "the index cannot be checked; rebuilding it")
            }
        },
        Ok(None) => {}
        Err(e) => {
            tracing::warn!(archive = %a.name, error = %e, "the index cannot be opened; rebuilding it")
        }
    }
}

/// Indexes what an archive added since its last checkpoint, then lets searches see it.
fn update(a: &Served, options: &BuildOptions) {
    match build_collection(&a.collection, options, &()) {
        Ok(report) => {
            if report.added > 0 || !a.is_ready() || report.rebuilt {
                tracing::info!(archive = %a.name, added = report.added, total = report.total, "index updated");
                if let Err(e) = a.reopen() {
                    tracing::error!(archive = %a.name, error = %e, "the index cannot be opened after its build");
                }
            }
            a.reload();
        }
        Err(ExplorerError::Busy { .. }) => {
            // Another process indexes it: search what it has committed so far.
            if !a.is_ready() {
                let _ = a.reopen();
            }
        }
        Err(ExplorerError::Interrupted) => {}
        Err(e) => tracing::error!(archive = %a.name, error = %e, "the archive cannot be indexed"),
    }
}

/// The archives of `dirs`, checked to be archives.
pub fn library(dirs: &[PathBuf], budget: Duration) -> Result<Library, ExplorerError> {
    for d in dirs {
        modoai_archive::archive::Reader::open(d)?;
    }
    Ok(Library::new(dirs, budget))
}

/// The collections of `args` (any input; foreign ones indexed under `index_dir`), each input
/// checked.
pub fn collection_library(
    args: &[CollectionArg],
    index_dir: &std::path::Path,
    budget: Duration,
) -> Result<Library, crate::collection::CollectionError> {
    Ok(Library::of(collections(args, index_dir)?, budget))
}

//! [`serve`]: the accept loop, one task per connection, and the graceful shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use http::Request;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tower::{Layer, ServiceBuilder};

use super::{conn, side};

use crate::fetch::BoxError;
use crate::observe::{self, ObserveLayer};
use crate::site::SiteService;
use crate::{Config, OaiPmhLayer, RequestBody};

/// Boxes a request's body into [`RequestBody`]. hyper's `Incoming` cannot be made up for the
/// layer's internal requests to the site, a boxed body can: map requests with this before the
/// layer (`ServiceBuilder::new().map_request(modoai::box_request)`).
pub fn box_request<B>(r: Request<B>) -> Request<RequestBody>
where
    B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    r.map(|b| b.map_err(|e| Box::new(e) as BoxError).boxed_unsync())
}

/// Serves the configured document root with the OAI-PMH route on `listener` until `shutdown`
/// completes, then lets in-flight responses finish for a grace period
/// ([`Config::shutdown_grace`]); the connections still open then are closed, and the tool
/// processes of their requests killed.
pub async fn serve(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let site = SiteService::new(config.root())?.hiding(config.own_files());
    let (grace, header_timeout) = (config.shutdown_grace, config.header_timeout);
    let slots = Arc::new(Semaphore::new(config.max_connections));
    let plugins = config.plugins.clone();
    let mut config = config;
    config.standalone = true;
    let layer = OaiPmhLayer::new(config);
    layer.open_index().map_err(std::io::Error::other)?;
    let shared = layer.shared.clone();
    let config = &layer.shared.config;
    let observer = observe::observer(config, Box::new(move || shared.index_stats()))?;
    if let (Some(metrics), Some(plugins)) = (&observer.metrics, &plugins) {
        plugins.observe_with(Arc::new(metrics.plugins()));
    }
    let side = side::start(config, &observer, header_timeout).await?;
    let reopen = observe::reopen_on_sighup(config, &observer)?;
    let oai = layer.layer(site);
    oai.start();
    let svc = ServiceBuilder::new()
        .map_request(box_request::<Incoming>)
        .service(oai);
    let graceful = GracefulShutdown::new();
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            (accepted, slot) = accept(&listener, &slots) => {
                let (stream, peer) = match accepted {
                    Ok(a) => a,
                    Err(err) => {
                        tracing::warn!(error = %err, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                // Without TCP_NODELAY, a response written in two segments (headers, then a
                // small body) waits for the client's delayed ACK: about 40 ms per plain GET.
                if let Err(err) = stream.set_nodelay(true) {
                    tracing::debug!(%peer, error = %err, "cannot set TCP_NODELAY");
                }
                let first = conn::FirstRequest::default();
                let per_conn = ServiceBuilder::new()
                    .map_request({
                        let first = first.clone();
                        move |r| {
                            first.begun();
                            r
                        }
                    })
                    .map_request(move |r| crate::access::with_peer(r, peer))
                    .layer(ObserveLayer::new(observer.clone()))
                    .service(svc.clone());
                let builder = conn::builder(header_timeout);
                let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), TowerToHyperService::new(per_conn));
                let conn = graceful.watch(conn.into_owned());
                connections.spawn(async move {
                    if let Err(err) = conn::drive(conn, first, header_timeout).await {
                        tracing::debug!(%peer, error = %err, "connection ended with an error");
                    }
                    drop(slot);
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    observer.health.shutting_down();
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("all connections closed"),
        () = tokio::time::sleep(grace) => tracing::warn!("grace period over; closing remaining connections"),
    }
    // Dropping a connection drops its requests, and a dropped request kills its tools' process
    // groups; the responses' producers hold the tools too, so the plugins are told to stop.
    connections.shutdown().await;
    if let Some(plugins) = plugins {
        plugins.shutdown();
    }
    for task in [side, reopen].into_iter().flatten() {
        task.abort();
    }
    if let Some(log) = observer.log.clone() {
        let _ = tokio::task::spawn_blocking(move || log.sync(Duration::from_secs(2))).await;
    }
    Ok(())
}

/// Waits for a free connection slot, then accepts a connection and hands over the slot with it.
async fn accept(
    listener: &TcpListener,
    slots: &Arc<Semaphore>,
) -> (
    std::io::Result<(TcpStream, std::net::SocketAddr)>,
    OwnedSemaphorePermit,
) {
    let slot = Arc::clone(slots)
        .acquire_owned()
        .await
        .expect("the connection semaphore is never closed");
    (listener.accept().await, slot)
}

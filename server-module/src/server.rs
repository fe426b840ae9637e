//! The standalone server: [`SiteService`] behind [`OaiPmhLayer`], on hyper.

use std::future::Future;
use std::time::Duration;

use http::Request;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::{Layer, ServiceBuilder};

use crate::fetch::BoxError;
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

/// How long in-flight responses may take to finish after shutdown is asked for.
const GRACE: Duration = Duration::from_secs(10);

/// Serves the configured document root with the OAI-PMH route on `listener` until `shutdown`
/// completes, then lets in-flight responses finish for a grace period.
pub async fn serve(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let site = SiteService::new(config.root())?;
    let oai = OaiPmhLayer::new(config).layer(site);
    oai.start();
    let svc = ServiceBuilder::new()
        .map_request(box_request::<Incoming>)
        .service(oai);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
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
                let builder = auto::Builder::new(TokioExecutor::new());
                let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), TowerToHyperService::new(svc.clone()));
                let conn = graceful.watch(conn.into_owned());
                tokio::spawn(async move {
                    if let Err(err) = conn.await {
                        tracing::debug!(%peer, error = %err, "connection ended with an error");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("all connections closed"),
        () = tokio::time::sleep(GRACE) => tracing::warn!("grace period over; closing remaining connections"),
    }
    Ok(())
}

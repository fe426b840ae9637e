//! The metrics listener: `listen` of `[metrics]`, an address of its own that serves only the
//! metrics route and `/healthz` (like Prometheus exporters), so they can stay off the public one.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::conn;
use crate::observe::{self, Observer};
use crate::Config;

/// Binds the metrics listener, if the settings give one, and serves it until the task is aborted.
pub(super) async fn start(
    config: &Config,
    observer: &Arc<Observer>,
    header_timeout: Duration,
) -> std::io::Result<Option<JoinHandle<()>>> {
    let Some((route, addr)) = config
        .observation
        .metrics
        .as_ref()
        .and_then(|m| Some((m.route.clone(), m.listen?)))
    else {
        return Ok(None);
    };
    let listener = TcpListener::bind(addr).await.map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("cannot listen on {addr} for the metrics ([metrics] listen): {e}"),
        )
    })?;
    tracing::info!(address = %addr, "metrics on http://{addr}{route}");
    let observer = observer.clone();
    Ok(Some(tokio::spawn(accept_loop(
        listener,
        observer,
        route,
        header_timeout,
    ))))
}

async fn accept_loop(
    listener: TcpListener,
    observer: Arc<Observer>,
    route: String,
    header_timeout: Duration,
) {
    let route: Arc<str> = route.into();
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(err) => {
                tracing::warn!(error = %err, "metrics listener: accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let (observer, route) = (observer.clone(), route.clone());
        let svc = tower::service_fn(move |req: Request<Incoming>| {
            let res = observe::endpoint(&observer, Some(&route), &req).unwrap_or_else(not_found);
            std::future::ready(Ok::<_, Infallible>(res))
        });
        tokio::spawn(async move {
            let conn = conn::builder(header_timeout)
                .serve_connection(TokioIo::new(stream), TowerToHyperService::new(svc))
                .await;
            if let Err(err) = conn {
                tracing::debug!(error = %err, "metrics connection ended with an error");
            }
        });
    }
}

fn not_found() -> Response<Full<Bytes>> {
    let mut res = Response::new(Full::new(Bytes::from_static(b"Not Found\n")));
    *res.status_mut() = StatusCode::NOT_FOUND;
    res
}

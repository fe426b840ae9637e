//! Run with cargo run -p example-bare-hyper
//!
//! The OAI-PMH layer ([`OaiPmh`]) over tower-http's `ServeDir`, served by hyper with no
//! framework: an accept loop, one task per connection, hyper-util's `auto::Builder` (HTTP/1.1
//! and HTTP/2), `TowerToHyperService` to run the tower service, and a graceful shutdown on
//! Ctrl-C. It serves `examples/site` on 127.0.0.1:3001 (or the `IP:PORT` given as first
//! argument), with OAI-PMH on `/modoai`.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use modoai::{Config, OaiPmh};
use tokio::net::TcpListener;
use tower::ServiceBuilder;
use tower_http::services::ServeDir;

/// How long in-flight responses may take to finish once shutdown is asked for.
const GRACE: Duration = Duration::from_secs(10);

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3001".to_owned());
    let listener = TcpListener::bind(&addr).await?;
    let base_url = format!("http://{}/", listener.local_addr()?);
    let config = Config::new(site_root(), &base_url)?.repository_name("modoai bare hyper example");
    println!("serving {base_url}, OAI-PMH at {}", config.oai_base_url());
    let ctrl_c = async {
        // If no signal handler can be installed, run until killed.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    serve(listener, config, ctrl_c).await?;
    Ok(())
}

/// The example site shipped with the repository.
fn site_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../site")
}

/// Serves `config`'s document root with `ServeDir`, plus OAI-PMH, on `listener` until `shutdown`
/// completes; then lets in-flight responses finish for up to [`GRACE`].
async fn serve(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let site = ServeDir::new(config.root());
    let oai = OaiPmh::new(site, config);
    // Build the index now rather than on the first harvest; files are served meanwhile and the
    // OAI-PMH route answers 503 with Retry-After until the first scan is done.
    oai.start();
    let svc = ServiceBuilder::new()
        .map_request(modoai::box_request::<Incoming>)
        .service(oai);
    let builder = auto::Builder::new(TokioExecutor::new());
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(conn) => conn,
                Err(err) => {
                    // Usually EMFILE or a reset before accept: back off instead of spinning.
                    eprintln!("accept failed: {err}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let conn = builder.serve_connection_with_upgrades(
            TokioIo::new(stream),
            TowerToHyperService::new(svc.clone()),
        );
        let conn = graceful.watch(conn.into_owned());
        tokio::spawn(async move {
            // A client that goes away mid-response is not the server's error.
            let _ = conn.await;
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(GRACE) => eprintln!("grace period over; closing remaining connections"),
    }
    Ok(())
}

#[cfg(test)]
mod tests;

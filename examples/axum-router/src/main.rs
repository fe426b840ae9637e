//! Run with cargo run -p example-axum-router
//!
//! An axum app whose fallback serves `examples/site` with tower-http's `ServeDir`, and which
//! answers OAI-PMH on `/modoai` through [`OaiPmhLayer`]. Every other route (here `/hello`) is
//! untouched. Pass `IP:PORT` as the first argument to listen elsewhere than 127.0.0.1:3000;
//! then harvest, for example, `http://127.0.0.1:3000/modoai?verb=ListRecords&metadataPrefix=oai_dc`.

use std::error::Error;
use std::path::{Path, PathBuf};

use axum::routing::get;
use axum::Router;
use modoai::{Config, OaiPmhLayer};
use tower_http::services::ServeDir;

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3000".to_owned());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let base_url = format!("http://{}/", listener.local_addr()?);
    let app = app(site_root(), &base_url)?;
    println!("serving {base_url}, OAI-PMH at {base_url}modoai");
    axum::serve(listener, app).await?;
    Ok(())
}

/// The example site shipped with the repository.
fn site_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../site")
}

/// The app: `/hello`, the files under `root` as the fallback, and OAI-PMH on `/modoai`.
///
/// `Router::layer` wraps every route and the fallback, but axum routes before the layer sees a
/// request, so `/modoai` must not be a route of its own: it reaches the fallback's copy of the
/// layer, whose inner service (`ServeDir`) is also the one the index asks for each file's
/// headers and bytes. The index is built on the first OAI-PMH request; until it is ready that
/// route answers 503 with Retry-After (OAI-PMH §3.1.2.2). `ServeDir` also serves dot-files,
/// which the index leaves out: what the site publishes is still the inner service's choice.
fn app(root: PathBuf, base_url: &str) -> Result<Router, modoai::ConfigError> {
    let config = Config::new(&root, base_url)?.repository_name("modoai axum example");
    Ok(Router::new()
        .route("/hello", get(|| async { "Hello from axum\n" }))
        .fallback_service(ServeDir::new(root))
        .layer(OaiPmhLayer::new(config)))
}

#[cfg(test)]
mod tests;

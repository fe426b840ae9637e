//! [`OaiPmhLayer`]: adds the OAI-PMH route to any tower service that serves a document root.

use std::sync::{Arc, OnceLock};

use tower::Layer;

use crate::config::Config;
use crate::index::{Index, IndexError};
use crate::oai::Repository;
use crate::service::OaiPmh;

/// Answers the OAI-PMH route (default `/modoai`) and passes every other request to the inner
/// service untouched. The inner service decides what the site serves: the layer asks it, with
/// internal `HEAD` and `GET` requests, for each file's headers and bytes, so a file it refuses is
/// no record (a file it serves that is hidden or outside the root is not one either).
///
/// All services made by one layer share one index, built with the inner service of the first one
/// that receives an OAI-PMH request. In axum, `Router::layer` wraps each route and the fallback
/// separately, and routing happens first: put the layer after `fallback_service` (as below) and
/// add no route of your own at the OAI path, or wrap the whole router instead
/// (`OaiPmhLayer::new(config).layer(router)`).
///
/// The index is built on the first OAI-PMH request, which is answered 503 with Retry-After until
/// the index is ready. To build it at start-up instead, start it with the site service once:
/// `layer.clone().layer(ServeDir::new("public")).start()` (see [`OaiPmh::start`]).
///
/// ```no_run
/// use axum::Router;
/// use modoai::{Config, OaiPmhLayer};
/// use tower_http::services::ServeDir;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let config = Config::new("public", "http://www.example.org/")?;
/// let app = Router::new().fallback_service(ServeDir::new("public")).layer(OaiPmhLayer::new(config));
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// axum::serve(listener, app).await?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct OaiPmhLayer {
    pub(crate) shared: Arc<Shared>,
}

/// What every service made by one layer shares: the settings and, once started, the repository.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) config: Config,
    pub(crate) repo: OnceLock<Arc<Repository>>,
    index: OnceLock<Arc<Index>>,
}

impl std::fmt::Debug for Repository {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repository")
            .field("root", &self.config.root)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index").finish_non_exhaustive()
    }
}

impl Shared {
    /// The site index, opened in the state folder on first use. A state folder that cannot be
    /// used is logged and the index kept in a temporary folder instead, so the site still
    /// answers (`OaiPmhLayer::open_index` makes it an error at start-up).
    pub(crate) fn index(&self) -> Arc<Index> {
        if let Some(index) = self.index.get() {
            return index.clone();
        }
        let opened = self.try_index().unwrap_or_else(|err| {
            tracing::error!(error = %err, "the site index is kept in a temporary folder instead: deletions will not persist");
            let temp = Index::open(None, &self.config.root).expect("a temporary index can always be made");
            let _ = self.index.set(Arc::new(temp));
            self.index.get().expect("just set").clone()
        });
        opened
    }

    fn try_index(&self) -> Result<Arc<Index>, IndexError> {
        if let Some(index) = self.index.get() {
            return Ok(index.clone());
        }
        let index = Index::open(self.config.state_dir.as_deref(), &self.config.root)?;
        let _ = self.index.set(Arc::new(index));
        Ok(self.index.get().expect("just set").clone())
    }

    /// The records in the index and the end of its last full scan, once the index exists.
    pub(crate) fn index_stats(&self) -> Option<(usize, Option<std::time::SystemTime>)> {
        self.repo
            .get()
            .map(|r| (r.index.len(), r.index.last_scan()))
    }
}

impl OaiPmhLayer {
    /// A layer with the given settings. The site index is built in the background on the first
    /// request (or on [`OaiPmh::start`]); until it is ready the route answers 503 with Retry-After.
    pub fn new(config: Config) -> Self {
        OaiPmhLayer {
            shared: Arc::new(Shared {
                config,
                repo: OnceLock::new(),
                index: OnceLock::new(),
            }),
        }
    }

    /// Opens the site index in the state folder ([`Config::state_dir`]) now, so that a folder
    /// that cannot be made or opened (or one another modoai holds) is an error at start-up. Without
    /// this, the index is opened on first use, and such a folder is logged and replaced by a
    /// temporary one.
    pub fn open_index(&self) -> Result<(), IndexError> {
        self.shared.try_index().map(drop)
    }
}

impl<S> Layer<S> for OaiPmhLayer {
    type Service = OaiPmh<S>;

    fn layer(&self, inner: S) -> Self::Service {
        OaiPmh::from_parts(inner, self.shared.clone())
    }
}

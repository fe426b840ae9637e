//! [`OaiPmh`]: the service [`crate::OaiPmhLayer`] produces.

use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, Response};
use http_body::Body;
use tower::Service;

use crate::body::ResponseBody;
use crate::doors::{self, Door};
use crate::fetch::{BoxError, Inner, ServiceFetch, Site};
use crate::future::ResponseFuture;
use crate::index::{self, Change};
use crate::layer::{OaiPmhLayer, Shared};
use crate::oai::{self, Repository};
use crate::Config;
use modoai_protocol::Datestamp;

/// Serves OAI-PMH on one route in front of a site service `S`.
///
/// `S` is a cloneable, `Send + 'static` tower service of `Request<B>` to `Response<ResBody>`
/// whose future is `Send` and whose error is `Into<BoxError>`; `ResBody` is an
/// `http_body::Body<Data = Bytes>`, `Send + 'static`, with errors `Into<BoxError>`.
#[derive(Clone, Debug)]
pub struct OaiPmh<S> {
    inner: S,
    shared: Arc<Shared>,
}

impl<S> OaiPmh<S> {
    pub(crate) fn from_parts(inner: S, shared: Arc<Shared>) -> Self {
        OaiPmh { inner, shared }
    }

    /// Wraps `inner` with a new layer of the given settings.
    pub fn new(inner: S, config: Config) -> Self {
        OaiPmh {
            inner,
            shared: OaiPmhLayer::new(config).shared,
        }
    }

    /// A layer with the given settings; shortcut for [`OaiPmhLayer::new`].
    pub fn layer(config: Config) -> OaiPmhLayer {
        OaiPmhLayer::new(config)
    }

    /// The inner service.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The inner service, mutably.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// Unwraps the inner service.
    pub fn into_inner(self) -> S {
        self.inner
    }

    /// The settings in force.
    pub fn config(&self) -> &Config {
        &self.shared.config
    }
}

/// A request body modoai can make up for its internal requests to the site. Services that take
/// any body (such as tower-http's `ServeDir`) accept it; with hyper's `Incoming`, map requests to
/// it first (see the bare-hyper example).
pub type RequestBody = http_body_util::combinators::UnsyncBoxBody<Bytes, BoxError>;

// `Inner` is a crate-private alias of the bounds that the docs of `OaiPmh` spell out.
#[allow(private_bounds)]
impl<S> OaiPmh<S>
where
    S: Inner<RequestBody>,
{
    /// Starts building the site index in the background, if not yet started. Needs a Tokio runtime.
    pub fn start(&self) {
        self.repository::<RequestBody>();
    }

    /// Starts the index if needed and waits until its first full scan is done.
    pub async fn ready(&self) {
        let index = self.repository::<RequestBody>().index.clone();
        index.ready().await;
    }

    /// Number of records (files) in the index now, deleted ones not counted.
    pub fn records(&self) -> usize {
        self.repository::<RequestBody>().index.len()
    }

    /// Up to `limit` changes of the site's files with datestamps from `from` to `until` (both
    /// inclusive, either open), after `after` (the datestamp and `seq` of the last change of an
    /// earlier call, to page), in datestamp order: what a change list (ResourceSync) needs. The log
    /// starts when the first index of the site is complete; what that index found is the
    /// baseline (the records themselves). Kept across restarts with a state folder.
    ///
    /// ```no_run
    /// # async fn f(oai: modoai::OaiPmh<modoai::SiteService>) {
    /// use modoai::protocol::Datestamp;
    /// let since = Datestamp::from_unix(1_700_000_000);
    /// for c in oai.changes(Some(since), None, None, 100) {
    ///     println!("{} {:?} {}", c.datestamp, c.kind, c.path);
    /// }
    /// # }
    /// ```
    pub fn changes(
        &self,
        from: Option<Datestamp>,
        until: Option<Datestamp>,
        after: Option<(Datestamp, u64)>,
        limit: usize,
    ) -> Vec<Change> {
        self.repository::<RequestBody>()
            .index
            .changes(from, until, after, limit)
    }
}

impl<S> OaiPmh<S> {
    fn repository<ReqBody>(&self) -> Arc<Repository>
    where
        S: Inner<ReqBody>,
        ReqBody: Default + Send + 'static,
    {
        self.shared
            .repo
            .get_or_init(|| {
                let config = self.shared.config.clone();
                let index = self.shared.index();
                let site = Arc::new(Site::new(
                    Box::new(ServiceFetch::new(self.inner.clone())),
                    &config.base_url,
                ));
                let types = if config.standalone {
                    index::Types::Detect
                } else {
                    index::Types::Site(site.clone())
                };
                let maintenance = index::Maintenance {
                    root: config.root.clone(),
                    rescan: config.rescan_interval,
                    watch: config.watch,
                    tombstones: config.deleted_records,
                    keep_changes: config.change_log_retention,
                    own: config.own_files(),
                    types,
                    sets: config.sets.clone(),
                };
                tokio::spawn(index::maintain(index.clone(), maintenance));
                if let Some(plugins) = &config.plugins {
                    plugins.start_workers();
                }
                Arc::new(Repository::new(config, index, site))
            })
            .clone()
    }
}

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for OaiPmh<S>
where
    S: Inner<ReqBody, Body = ResBody>,
    ReqBody: Body + Default + Send + 'static,
    ReqBody::Data: Send,
    ReqBody::Error: Into<BoxError>,
{
    type Response = Response<ResponseBody<ResBody>>;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<ReqBody>) -> Self::Future {
        let config = &self.shared.config;
        match Door::of(req.uri().path(), &config.route) {
            door @ (Door::Oai | Door::OaiXml) => {
                let repo = self.repository::<ReqBody>();
                ResponseFuture::oai(Box::pin(oai::handle(repo, req, door)))
            }
            Door::ResourceSync(doc) if config.doors.resourcesync => {
                let repo = self.repository::<ReqBody>();
                let (method, query) = (req.method().clone(), req.uri().query().map(str::to_owned));
                ResponseFuture::oai(Box::pin(async move {
                    doors::resourcesync::answer(&repo, doc, &method, query.as_deref()).await
                }))
            }
            Door::Robots if config.doors.resourcesync && config.base_url.path() == "/" => {
                // The site's own robots.txt wins; ours answers only its 404.
                let repo = self.repository::<ReqBody>();
                let ours = (*req.method() == http::Method::GET)
                    .then(|| doors::resourcesync::robots(&repo));
                ResponseFuture::fallback(self.inner.call(req), ours)
            }
            Door::Schema => {
                let method = req.method().clone();
                ResponseFuture::oai(Box::pin(async move { doors::schema(&method) }))
            }
            Door::Linkset(kind) if config.doors.signposting => {
                let repo = self.repository::<ReqBody>();
                let (method, query) = (req.method().clone(), req.uri().query().map(str::to_owned));
                ResponseFuture::oai(Box::pin(async move {
                    doors::linkset(&repo, kind, &method, query.as_deref())
                }))
            }
            _ => {
                // Signposts only once the index exists: a site request never starts it.
                let links = self
                    .shared
                    .repo
                    .get()
                    .filter(|_| config.doors.signposting)
                    .and_then(|repo| doors::signposts_for(repo, req.method(), req.uri().path()));
                ResponseFuture::inner(self.inner.call(req), links)
            }
        }
    }
}

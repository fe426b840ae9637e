//! Internal requests to the wrapped site service, as mod_oai asked Apache: the site decides which
//! files it serves, under which type, with which headers and bytes.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HOST};
use http::{HeaderValue, Method, Request, Response};
use http_body::Body;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::BodyExt;
use tower::{Service, ServiceExt};

/// The error type of bodies and services the layer talks to.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The site services the layer wraps: the bounds every use of the inner service needs, named once.
/// Implemented for every service of `Request<ReqBody>` to `Response<ResBody>` that is cloneable
/// and sendable, whose errors and body errors box into [`BoxError`].
pub(crate) trait Inner<ReqBody>:
    Service<Request<ReqBody>, Response = Response<Self::Body>, Error: Into<BoxError>, Future: Send>
    + Clone
    + Send
    + 'static
{
    /// The response body of the inner service.
    type Body: Body<Data = Bytes, Error: Into<BoxError>> + Send + 'static;
}

impl<S, ReqBody, ResBody> Inner<ReqBody> for S
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>> + Clone + Send + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    ResBody: Body<Data = Bytes> + Send + 'static,
    ResBody::Error: Into<BoxError>,
{
    type Body = ResBody;
}

/// A response body of the inner service, boxed.
pub(crate) type InnerBody = UnsyncBoxBody<Bytes, BoxError>;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Object-safe access to a clone of the inner service.
pub(crate) trait Fetch: Send + Sync + 'static {
    fn call(&self, req: Request<()>) -> BoxFuture<Result<Response<InnerBody>, BoxError>>;
}

pub(crate) struct ServiceFetch<S, B> {
    inner: Mutex<S>,
    _body: PhantomData<fn(B)>,
}

impl<S, B> ServiceFetch<S, B> {
    pub(crate) fn new(inner: S) -> Self {
        ServiceFetch {
            inner: Mutex::new(inner),
            _body: PhantomData,
        }
    }
}

impl<S, ReqBody> Fetch for ServiceFetch<S, ReqBody>
where
    S: Inner<ReqBody>,
    ReqBody: Default + Send + 'static,
{
    fn call(&self, req: Request<()>) -> BoxFuture<Result<Response<InnerBody>, BoxError>> {
        let svc = self
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let req = req.map(|()| ReqBody::default());
        Box::pin(async move {
            let res = svc.oneshot(req).await.map_err(Into::into)?;
            Ok(res.map(|b| b.map_err(Into::into).boxed_unsync()))
        })
    }
}

/// Internal requests for the files of one site.
pub(crate) struct Site {
    fetch: Box<dyn Fetch>,
    /// URL path of the document root on the site, ending in `/`.
    prefix: String,
    host: Option<HeaderValue>,
}

impl Site {
    pub(crate) fn new(fetch: Box<dyn Fetch>, base_url: &http::Uri) -> Self {
        let mut prefix = base_url.path().to_owned();
        if !prefix.ends_with('/') {
            prefix.push('/');
        }
        let host = base_url
            .authority()
            .and_then(|a| HeaderValue::from_str(a.as_str()).ok());
        Site {
            fetch,
            prefix,
            host,
        }
    }

    /// A plain request for the file at the encoded relative `path`, as a visitor would send it.
    pub(crate) async fn request(
        &self,
        method: Method,
        path: &str,
    ) -> Result<Response<InnerBody>, BoxError> {
        let mut req = Request::builder()
            .method(method)
            .uri(format!("{}{}", self.prefix, path));
        if let Some(host) = &self.host {
            req = req.header(HOST, host);
        }
        self.fetch.call(req.body(())?).await
    }

    /// The MIME type the site serves `path` under, or `None` if it does not serve it.
    pub(crate) async fn served_type(&self, path: &str) -> Option<Option<String>> {
        let res = match self.request(Method::HEAD, path).await {
            Ok(res) => res,
            Err(err) => {
                tracing::warn!(path, error = %err, "internal HEAD failed");
                return None;
            }
        };
        if !res.status().is_success() {
            return None;
        }
        let ty = res
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(crate::mime::essence);
        Some(ty.filter(|t| !t.is_empty() && t != crate::mime::OCTET_STREAM))
    }
}

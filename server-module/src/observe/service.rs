//! [`ObserveLayer`]: the outermost service of the standalone server: it answers `/healthz` and
//! the metrics route, and reports every response (log line, metrics) when its body ends.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, Response};
use http_body::Body;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::BodyExt;
use tower::{Layer, Service};

use super::body::ObservedBody;
use super::endpoints;
use super::observer::Observer;
use super::OaiFacts;
use crate::fetch::BoxError;

/// The body of observed responses.
pub(crate) type ObservedResponse = Response<UnsyncBoxBody<Bytes, BoxError>>;

/// Wraps services in [`Observe`].
#[derive(Clone, Debug)]
pub(crate) struct ObserveLayer {
    observer: Arc<Observer>,
}

impl ObserveLayer {
    pub(crate) fn new(observer: Arc<Observer>) -> Self {
        ObserveLayer { observer }
    }
}

impl<S> Layer<S> for ObserveLayer {
    type Service = Observe<S>;

    fn layer(&self, inner: S) -> Observe<S> {
        Observe {
            inner,
            observer: self.observer.clone(),
        }
    }
}

/// See [`ObserveLayer`].
#[derive(Clone, Debug)]
pub(crate) struct Observe<S> {
    inner: S,
    observer: Arc<Observer>,
}

impl<S, B, RB> Service<Request<B>> for Observe<S>
where
    S: Service<Request<B>, Response = Response<RB>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    RB: Body<Data = Bytes> + Send + 'static,
    RB::Error: Into<BoxError>,
{
    type Response = ObservedResponse;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<ObservedResponse, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let pending = self.observer.begin(&req);
        let observer = self.observer.clone();
        let route = observer.metrics_route.as_deref();
        if let Some(res) = endpoints::answer(&observer, route, &req) {
            return Box::pin(std::future::ready(Ok(observed(res, pending, observer))));
        }
        let future = self.inner.call(req);
        Box::pin(async move { Ok(observed(future.await?, pending, observer)) })
    }
}

/// `res` with its body observed: the status and OAI-PMH facts are taken now, the bytes as the
/// body is sent.
fn observed<RB>(
    res: Response<RB>,
    mut pending: super::observer::Pending,
    observer: Arc<Observer>,
) -> ObservedResponse
where
    RB: Body<Data = Bytes> + Send + 'static,
    RB::Error: Into<BoxError>,
{
    pending.status = res.status().as_u16();
    pending.facts = res.extensions().get::<OaiFacts>().cloned();
    res.map(|body| ObservedBody::new(body, pending, observer).boxed_unsync())
}

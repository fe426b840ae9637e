//! [`ResponseFuture`] of [`crate::OaiPmh`].

use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use http::Response;
use pin_project_lite::pin_project;

use crate::body::ResponseBody;
use crate::oai::OaiBody;

type OaiFuture = Pin<Box<dyn Future<Output = Response<OaiBody>> + Send>>;

pin_project! {
    /// The response future of [`crate::OaiPmh`]: either the inner service's, unboxed, or the
    /// OAI handler's.
    pub struct ResponseFuture<F> {
        #[pin]
        kind: Kind<F>,
    }
}

pin_project! {
    #[project = KindProj]
    enum Kind<F> {
        Inner { #[pin] future: F },
        Oai { future: OaiFuture },
    }
}

impl<F> ResponseFuture<F> {
    pub(crate) fn inner(future: F) -> Self {
        ResponseFuture {
            kind: Kind::Inner { future },
        }
    }

    pub(crate) fn oai(future: OaiFuture) -> Self {
        ResponseFuture {
            kind: Kind::Oai { future },
        }
    }
}

impl<F, B, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Response<B>, E>>,
{
    type Output = Result<Response<ResponseBody<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().kind.project() {
            KindProj::Inner { future } => {
                let res = ready!(future.poll(cx))?;
                Poll::Ready(Ok(res.map(ResponseBody::inner)))
            }
            KindProj::Oai { future } => {
                let res = ready!(future.as_mut().poll(cx));
                Poll::Ready(Ok(res.map(ResponseBody::oai)))
            }
        }
    }
}

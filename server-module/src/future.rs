//! [`ResponseFuture`] of [`crate::OaiPmh`].

use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use http::header::LINK;
use http::{HeaderValue, Response};
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
        Inner { #[pin] future: F, links: Option<HeaderValue> },
        Oai { future: OaiFuture },
    }
}

impl<F> ResponseFuture<F> {
    /// The inner service's future; `links`, the file's signposts, are added to a successful
    /// response.
    pub(crate) fn inner(future: F, links: Option<HeaderValue>) -> Self {
        ResponseFuture {
            kind: Kind::Inner { future, links },
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
            KindProj::Inner { future, links } => {
                let mut res = ready!(future.poll(cx))?;
                if let Some(links) = links.take().filter(|_| res.status().is_success()) {
                    res.headers_mut().append(LINK, links);
                }
                Poll::Ready(Ok(res.map(ResponseBody::inner)))
            }
            KindProj::Oai { future } => {
                let res = ready!(future.as_mut().poll(cx));
                Poll::Ready(Ok(res.map(ResponseBody::oai)))
            }
        }
    }
}

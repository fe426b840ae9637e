//! [`ObservedBody`]: a response body that counts the bytes it yields and reports the response
//! to the [`Observer`] when it ends or is dropped (the client went away).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use http::Method;
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;

use super::observer::{Observer, Pending};
use crate::fetch::BoxError;

pin_project! {
    /// `body`, observed.
    pub(crate) struct ObservedBody<B> {
        #[pin]
        body: B,
        done: Done,
    }
}

/// Reports once: at the end of the body, or when it is dropped.
struct Done {
    pending: Option<Pending>,
    bytes: u64,
    observer: Arc<Observer>,
}

impl Done {
    fn report(&mut self) {
        if let Some(p) = self.pending.take() {
            self.observer.finish(p, self.bytes);
        }
    }
}

impl Drop for Done {
    fn drop(&mut self) {
        self.report();
    }
}

impl<B> ObservedBody<B> {
    pub(crate) fn new(body: B, pending: Pending, observer: Arc<Observer>) -> Self {
        ObservedBody {
            body,
            done: Done {
                pending: Some(pending),
                bytes: 0,
                observer,
            },
        }
    }
}

impl<B> Body for ObservedBody<B>
where
    B: Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.project();
        let polled = this.body.poll_frame(cx).map_err(Into::into);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                // HTTP omits the body of a HEAD response, whatever the service produced.
                let head = this
                    .done
                    .pending
                    .as_ref()
                    .is_some_and(|p| p.method == Method::HEAD);
                if let (Some(data), false) = (frame.data_ref(), head) {
                    this.done.bytes += data.remaining() as u64;
                }
            }
            Poll::Ready(None | Some(Err(_))) => this.done.report(),
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use http_body_util::{BodyExt, StreamBody};

    use super::*;
    use crate::observe::metrics::Metrics;
    use crate::observe::observer::Health;

    fn observer() -> Arc<Observer> {
        Arc::new(Observer {
            log: None,
            metrics: Some(Metrics::new(Box::new(|| None))),
            metrics_route: None,
            health: Health::default(),
            policy: crate::Policy::default(),
        })
    }

    fn body(chunks: &'static [&'static str]) -> impl Body<Data = Bytes, Error = Infallible> {
        let frames = chunks
            .iter()
            .map(|c| Ok::<_, Infallible>(Frame::data(Bytes::from_static(c.as_bytes()))));
        StreamBody::new(futures_util::stream::iter(frames))
    }

    fn count(observer: &Observer, line: &str) -> bool {
        let text = observer.metrics.as_ref().unwrap().encode();
        text.lines().any(|l| l == line)
    }

    #[tokio::test]
    async fn a_body_read_to_its_end_reports_every_byte_once() {
        let o = observer();
        let pending = o.begin(&http::Request::get("/a").body(()).unwrap());
        let b = ObservedBody::new(body(&["abc", "de"]), pending, o.clone());
        assert_eq!(b.collect().await.unwrap().to_bytes(), "abcde");
        assert!(count(
            &o,
            "modoai_http_response_bytes_total{verb=\"site\"} 5"
        ));
        assert!(count(
            &o,
            "modoai_http_request_duration_seconds_count{verb=\"site\"} 1"
        ));
    }

    #[tokio::test]
    async fn a_dropped_body_reports_what_was_sent() {
        let o = observer();
        let pending = o.begin(&http::Request::get("/a").body(()).unwrap());
        let mut b = ObservedBody::new(body(&["abc", "de"]), pending, o.clone());
        let first = b.frame().await.unwrap().unwrap();
        assert_eq!(first.into_data().unwrap(), "abc");
        assert!(!count(
            &o,
            "modoai_http_response_bytes_total{verb=\"site\"} 3"
        ));
        drop(b);
        assert!(count(
            &o,
            "modoai_http_response_bytes_total{verb=\"site\"} 3"
        ));
    }

    #[tokio::test]
    async fn head_responses_send_no_body_bytes() {
        let o = observer();
        let pending = o.begin(&http::Request::head("/a").body(()).unwrap());
        let b = ObservedBody::new(body(&["abc"]), pending, o.clone());
        let _ = b.collect().await.unwrap();
        assert!(count(
            &o,
            "modoai_http_response_bytes_total{verb=\"site\"} 0"
        ));
    }
}

//! A response body that holds a concurrency permit until it ends or is dropped.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::sync::OwnedSemaphorePermit;

use crate::fetch::BoxError;
use crate::oai::OaiBody;

/// `body`, with `permit` released when the last frame has been read or the body is dropped
/// (the client went away, or the connection closed).
pub(crate) struct PermitBody {
    body: OaiBody,
    permit: Option<OwnedSemaphorePermit>,
}

impl PermitBody {
    pub(crate) fn new(body: OaiBody, permit: OwnedSemaphorePermit) -> Self {
        PermitBody {
            body,
            permit: Some(permit),
        }
    }
}

impl Body for PermitBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) {
            self.permit = None;
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
    use std::sync::Arc;

    use http_body_util::{BodyExt, Full};
    use tokio::sync::Semaphore;

    use super::*;

    #[tokio::test]
    async fn the_permit_lives_until_the_body_ends_or_drops() {
        let sem = Arc::new(Semaphore::new(1));
        let body = |s: &Arc<Semaphore>| {
            let inner = Full::new(Bytes::from_static(b"x"))
                .map_err(|e| match e {})
                .boxed_unsync();
            PermitBody::new(inner, s.clone().try_acquire_owned().unwrap())
        };
        let b = body(&sem);
        assert_eq!(sem.available_permits(), 0);
        assert_eq!(b.collect().await.unwrap().to_bytes(), "x");
        assert_eq!(sem.available_permits(), 1);
        let b = body(&sem);
        assert_eq!(sem.available_permits(), 0);
        drop(b);
        assert_eq!(sem.available_permits(), 1);
    }
}

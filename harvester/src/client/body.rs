//! Reading a response body chunk by chunk, with the stall timeout and byte counting.

use std::error::Error as StdError;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;

use super::stats::Counters;

/// A response body as a sequence of non-empty data chunks.
#[derive(Debug)]
pub(crate) struct BodyStream {
    pub(crate) body: Incoming,
    pub(crate) stall: Duration,
    pub(crate) url: String,
    pub(crate) counters: Arc<Counters>,
}

/// Why a body read failed; carried inside the `io::Error`, so the URL reaches the message.
#[derive(Debug, thiserror::Error)]
enum BodyFailure {
    #[error("body of {url} stalled: no bytes for {stall:?}")]
    Stalled { url: String, stall: Duration },
    #[error("body of {url} broke off")]
    Broken {
        url: String,
        #[source]
        source: hyper::Error,
    },
}

impl BodyStream {
    /// The next data chunk, `None` at the end of the body. After an error, stop calling.
    pub(crate) async fn next(&mut self) -> Option<io::Result<Bytes>> {
        loop {
            let frame = match tokio::time::timeout(self.stall, self.body.frame()).await {
                Err(_) => return Some(Err(self.stalled())),
                Ok(None) => return None,
                Ok(Some(Err(error))) => return Some(Err(self.broken(error))),
                Ok(Some(Ok(frame))) => frame,
            };
            // Trailers and empty frames carry no body bytes.
            if let Ok(data) = frame.into_data() {
                if !data.is_empty() {
                    self.counters.received(data.len());
                    return Some(Ok(data));
                }
            }
        }
    }

    fn stalled(&self) -> io::Error {
        let (url, stall) = (self.url.clone(), self.stall);
        io::Error::new(io::ErrorKind::TimedOut, BodyFailure::Stalled { url, stall })
    }

    fn broken(&self, source: hyper::Error) -> io::Error {
        let kind = error_kind(&source);
        let url = self.url.clone();
        io::Error::new(kind, BodyFailure::Broken { url, source })
    }
}

/// The `io::ErrorKind` of a hyper body error: that of the I/O error inside it (a body shorter
/// than its `Content-Length` is `UnexpectedEof`, a reset is `ConnectionReset`), else a guess
/// from hyper's own classification.
fn error_kind(error: &hyper::Error) -> io::ErrorKind {
    let mut source: Option<&(dyn StdError + 'static)> = error.source();
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<io::Error>() {
            return io.kind();
        }
        source = cause.source();
    }
    if error.is_incomplete_message() {
        io::ErrorKind::UnexpectedEof
    } else if error.is_timeout() {
        io::ErrorKind::TimedOut
    } else {
        io::ErrorKind::Other
    }
}

//! The bounds of one connection of the standalone server.
//!
//! - **Slow clients.** HTTP/1's header read timeout (hyper's, with a tokio timer) closes a
//!   connection whose request headers take longer than `header-timeout-secs`; hyper re-arms it
//!   when a response ends, so an idle keep-alive connection is closed after the same time.
//!   Before hyper's HTTP/1 or HTTP/2 code runs, the protocol is detected from the first bytes,
//!   with no timeout of its own; so a connection on which no request has begun within the same
//!   time is closed here, whatever the client sent (nothing, or a preface one byte at a time).
//! - **HTTP/2** connections are pinged every `header-timeout-secs` and closed when a ping goes
//!   unanswered for 20 s, so connections of vanished clients do not pile up.

use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::sync::Notify;

/// How long an HTTP/2 keep-alive ping may go unanswered.
const PING_TIMEOUT: Duration = Duration::from_secs(20);

/// A connection builder with the header timeout.
pub(super) fn builder(header_timeout: Duration) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(header_timeout)
        .keep_alive_timeout(PING_TIMEOUT);
    builder
}

/// Told when a connection's requests begin.
#[derive(Clone, Debug, Default)]
pub(super) struct FirstRequest(Arc<Notify>);

impl FirstRequest {
    /// A request has begun (called for each; only the first matters).
    pub(super) fn begun(&self) {
        self.0.notify_one();
    }
}

/// Drives `conn` to its end, or drops it (closing the socket) when no request has begun on it
/// within `header_timeout`. Returns the connection's error, if any.
pub(super) async fn drive<F, E>(
    conn: F,
    first: FirstRequest,
    header_timeout: Duration,
) -> Result<(), ConnError<E>>
where
    F: std::future::Future<Output = Result<(), E>>,
{
    tokio::pin!(conn);
    tokio::select! {
        ended = conn.as_mut() => return ended.map_err(ConnError::Conn),
        begun = tokio::time::timeout(header_timeout, first.0.notified()) => {
            if begun.is_err() {
                return Err(ConnError::NoRequest);
            }
        }
    }
    conn.await.map_err(ConnError::Conn)
}

/// Why a connection ended badly.
#[derive(Debug)]
pub(super) enum ConnError<E> {
    /// No request began within the header timeout.
    NoRequest,
    /// hyper's error.
    Conn(E),
}

impl<E: std::fmt::Display> std::fmt::Display for ConnError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnError::NoRequest => f.write_str("no request within the header timeout"),
            ConnError::Conn(e) => e.fmt(f),
        }
    }
}

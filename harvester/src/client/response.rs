//! [`Response`]: a successful answer whose body has not been read yet.

use std::fmt;

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, StatusCode};
use tokio::runtime::Handle;

use super::body::BodyStream;
use super::host::HostPermit;
use super::reader::BodyReader;
use super::FetchError;

/// A 2xx response from [`Client::get`](super::Client::get), its body still on the wire.
///
/// The response keeps its host slot (see [`ClientConfig::per_host`](super::ClientConfig::per_host))
/// until the body is read to the end or dropped; only then does the politeness
/// [`delay`](super::ClientConfig::delay) start. Read it promptly, or drop it: with one slot per
/// host, another `get` to the same host waits until then.
pub struct Response {
    /// The status, always a success (2xx).
    pub status: StatusCode,
    /// The response headers.
    pub headers: HeaderMap,
    /// The URL that answered, after redirects.
    pub url: String,
    body: BodyStream,
    permit: HostPermit,
}

impl Response {
    pub(crate) fn new(
        response: http::Response<BodyStream>,
        url: String,
        permit: HostPermit,
    ) -> Self {
        let (parts, body) = response.into_parts();
        Self {
            status: parts.status,
            headers: parts.headers,
            url,
            body,
            permit,
        }
    }

    /// A blocking [`BufRead`](std::io::BufRead) over the body, for a parser on a blocking thread.
    ///
    /// A task spawned on `handle` reads the body into a small bounded queue, so memory stays
    /// bounded whatever the body size. A broken body surfaces as an `io::Error` from the read:
    /// kind `UnexpectedEof` when it is shorter than its `Content-Length`, `TimedOut` when no
    /// bytes came for [`stall_timeout`](super::ClientConfig::stall_timeout). The host slot is
    /// released at the end of the body or when the reader is dropped.
    ///
    /// Read only from outside the runtime (e.g. in [`tokio::task::spawn_blocking`]): reading
    /// blocks the thread, and panics inside an async context.
    ///
    /// ```no_run
    /// use std::io::Read;
    /// use modoai_harvester::client::{Client, ClientConfig};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = Client::new(ClientConfig::default());
    /// let response = client.get("https://example.org/oai?verb=Identify").await?;
    /// let mut reader = response.into_reader(&tokio::runtime::Handle::current());
    /// let size = tokio::task::spawn_blocking(move || {
    ///     let mut text = String::new();
    ///     reader.read_to_string(&mut text).map(|_| text.len())
    /// })
    /// .await??;
    /// println!("{size} bytes");
    /// # Ok(()) }
    /// ```
    pub fn into_reader(self, handle: &Handle) -> BodyReader {
        BodyReader::spawn(self.body, self.permit, handle)
    }

    /// Collects the whole body, failing once it exceeds `limit` bytes. For small answers
    /// (Identify, ListMetadataFormats); stream pages with [`into_reader`](Self::into_reader).
    pub async fn bytes(mut self, limit: usize) -> Result<Bytes, FetchError> {
        let too_large = |url: String| FetchError::BodyTooLarge { url, limit };
        if self
            .content_length()
            .is_some_and(|length| length > limit as u64)
        {
            return Err(too_large(self.url));
        }
        let mut collected = BytesMut::new();
        while let Some(chunk) = self.body.next().await {
            let chunk = chunk.map_err(|source| FetchError::Body {
                url: self.url.clone(),
                source,
            })?;
            if collected.len() + chunk.len() > limit {
                return Err(too_large(self.url));
            }
            collected.extend_from_slice(&chunk);
        }
        drop(self.body); // back to the pool before the host slot is freed
        drop(self.permit);
        Ok(collected.freeze())
    }

    fn content_length(&self) -> Option<u64> {
        let value = self.headers.get(http::header::CONTENT_LENGTH)?;
        value.to_str().ok()?.parse().ok()
    }
}

impl fmt::Debug for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Response")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

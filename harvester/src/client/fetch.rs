//! [`Client`]: GET with retries, redirects and per-host politeness.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http::{header, HeaderValue, Request, StatusCode, Uri};
use http_body_util::Empty;
use hyper::body::Incoming;
use tokio::time::Instant;
use url::Url;

use super::body::BodyStream;
use super::connect::{http_client, HttpClient};
use super::error::connect_cause;
use super::host::{HostPermit, Hosts};
use super::retry::{self, is_retryable};
use super::stats::Counters;
use super::{ClientConfig, FetchError, Response, Stats, DEFAULT_USER_AGENT};

/// Redirects followed for one [`Client::get`] before giving up.
pub const MAX_REDIRECTS: u32 = 10;

/// Retries of [`Client::get_first`] (a header timeout, a reset connection, a 5xx): one, so a
/// passing hiccup does not fail a harvest, while a wrong URL still fails within seconds.
pub const FIRST_REQUEST_RETRIES: u32 = 1;

/// An HTTP(S) client for harvesting: retries with backoff, honours `Retry-After`, follows
/// redirects and keeps to a per-host politeness policy.
///
/// Cloning is cheap, and clones share the connection pool, the politeness state and the
/// [`Stats`]: one client can serve concurrent harvests of several endpoints, and requests to
/// different hosts never wait for each other.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    http: HttpClient,
    config: ClientConfig,
    user_agent: HeaderValue,
    hosts: Hosts,
    counters: Arc<Counters>,
}

/// The outcome of one request, before the retry policy judges it.
enum Answer {
    Success(http::Response<Incoming>),
    Redirect(http::Response<Incoming>),
    Failed(Failure),
}

/// A failed attempt; `Status` keeps the response for its `Retry-After`.
enum Failure {
    Status(http::Response<Incoming>),
    Network(hyper_util::client::legacy::Error),
    Timeout,
}

/// Where one request goes: the URL, as hyper takes it, and its politeness key.
struct Target {
    url: Url,
    uri: Uri,
    host: String,
}

impl Client {
    /// A client with `config`. Creating it does no I/O and needs no runtime.
    pub fn new(config: ClientConfig) -> Self {
        let inner = Inner {
            http: http_client(&config),
            hosts: Hosts::new(config.per_host, config.delay),
            counters: Arc::default(),
            user_agent: user_agent(&config.user_agent),
            config,
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    /// GETs `url`, following up to [`MAX_REDIRECTS`] redirects (301, 302, 303, 307, 308) and
    /// waiting for the host's politeness slot before each request.
    ///
    /// Network errors, header timeouts, 429 and 5xx are retried up to
    /// [`max_retries`](ClientConfig::max_retries) times, after the `Retry-After` the server asked
    /// for (delta-seconds or HTTP-date, RFC 9110 §10.2.3; capped at
    /// [`retry_after_max`](ClientConfig::retry_after_max)) or else after [`Client::backoff`].
    /// Other statuses fail at once. The body is not read: see [`Response`].
    pub async fn get(&self, url: &str) -> Result<Response, FetchError> {
        self.fetch(url, self.inner.config.max_retries, false).await
    }

    /// GETs `url` as the first request to an endpoint, one not yet known to answer: like
    /// [`get`](Self::get), but a failure to connect (refused, no such host, TLS refused) fails at
    /// once as [`FetchError::Unreachable`], and any other failure is retried at most
    /// [`FIRST_REQUEST_RETRIES`] times. A wrong URL then fails in seconds with its cause; the
    /// long policy of [`max_retries`](ClientConfig::max_retries) is for endpoints that have
    /// answered.
    pub async fn get_first(&self, url: &str) -> Result<Response, FetchError> {
        let retries = self.inner.config.max_retries.min(FIRST_REQUEST_RETRIES);
        self.fetch(url, retries, true).await
    }

    async fn fetch(
        &self,
        url: &str,
        max_retries: u32,
        first: bool,
    ) -> Result<Response, FetchError> {
        let mut target = Target::parse(url)?;
        let (mut attempts, mut retries, mut redirects) = (0, 0, 0);
        loop {
            let permit = self.inner.hosts.acquire(&target.host).await;
            attempts += 1;
            let failure = match self.send(&target, attempts).await {
                Answer::Success(response) => return Ok(self.response(response, target, permit)),
                Answer::Redirect(response) => {
                    drop(permit);
                    redirects += 1;
                    target = self.redirect(&target, &response, redirects)?;
                    attempts = 0;
                    continue;
                }
                Answer::Failed(failure) => failure,
            };
            drop(permit);
            if first {
                if let Some(error) = failure.unreachable(&target) {
                    return Err(error);
                }
            }
            if !failure.is_retryable() || retries == max_retries {
                return Err(failure.into_error(&self.inner.config, &target.url, attempts));
            }
            retries += 1;
            self.wait_to_retry(&target, &failure, retries).await;
        }
    }

    /// The backoff before retry `retry` (1-based: the wait before the first retry is about
    /// [`backoff_base`](ClientConfig::backoff_base)), doubled per retry up to
    /// [`backoff_max`](ClientConfig::backoff_max), with equal jitter: a wait drawn from
    /// `[d/2, d]`. Exposed so that a caller retrying a page whose body failed uses the same
    /// policy.
    ///
    /// ```
    /// use std::time::Duration;
    /// use modoai_harvester::client::{Client, ClientConfig};
    ///
    /// let client = Client::new(ClientConfig::default().backoff_base(Duration::from_secs(2)));
    /// let wait = client.backoff(3); // d = 8 s
    /// assert!(wait >= Duration::from_secs(4) && wait <= Duration::from_secs(8));
    /// ```
    pub fn backoff(&self, retry: u32) -> Duration {
        let config = &self.inner.config;
        retry::backoff(config.backoff_base, config.backoff_max, retry)
    }

    /// The configuration this client was made with.
    pub fn config(&self) -> &ClientConfig {
        &self.inner.config
    }

    /// A snapshot of the counters shared by this client and its clones.
    pub fn stats(&self) -> Stats {
        self.inner.counters.snapshot()
    }

    async fn send(&self, target: &Target, attempt: u32) -> Answer {
        let url = &target.url;
        let request = Request::get(target.uri.clone())
            .header(header::USER_AGENT, self.inner.user_agent.clone())
            .body(Empty::<Bytes>::new())
            .expect("a valid URI and header value");
        self.inner.counters.request();
        tracing::debug!(%url, attempt, "GET");
        let timeout = self.inner.config.header_timeout;
        let response = match tokio::time::timeout(timeout, self.inner.http.request(request)).await {
            Err(_) => return Answer::Failed(Failure::Timeout),
            Ok(Err(error)) => return Answer::Failed(Failure::Network(error)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        tracing::debug!(%url, attempt, %status, "response head");
        if status.is_success() {
            Answer::Success(response)
        } else if is_redirect(status) {
            Answer::Redirect(response)
        } else {
            Answer::Failed(Failure::Status(response))
        }
    }

    fn response(
        &self,
        response: http::Response<Incoming>,
        target: Target,
        permit: HostPermit,
    ) -> Response {
        let url = String::from(target.url);
        let body = response.map(|body| BodyStream {
            body,
            stall: self.inner.config.stall_timeout,
            url: url.clone(),
            counters: Arc::clone(&self.inner.counters),
        });
        Response::new(body, url, permit)
    }

    fn redirect(
        &self,
        from: &Target,
        response: &http::Response<Incoming>,
        redirects: u32,
    ) -> Result<Target, FetchError> {
        let location = response.headers().get(header::LOCATION);
        let location = location
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        let bad = || FetchError::BadRedirect {
            url: from.url.to_string(),
            location: location.to_owned(),
        };
        if location.is_empty() {
            return Err(bad());
        }
        let url = from.url.join(location).map_err(|_| bad())?;
        let target = Target::new(url).map_err(|_| bad())?;
        if redirects > MAX_REDIRECTS {
            let url = target.url.to_string();
            return Err(FetchError::TooManyRedirects {
                url,
                limit: MAX_REDIRECTS,
            });
        }
        self.inner.counters.redirect();
        tracing::debug!(from = %from.url, to = %target.url, status = %response.status(), "redirect");
        Ok(target)
    }

    /// Sleeps before retry `retry`: the server's `Retry-After` if it sent one (which then also
    /// holds back every other request to the host), else the backoff.
    async fn wait_to_retry(&self, target: &Target, failure: &Failure, retry: u32) {
        let counters = &self.inner.counters;
        counters.retry();
        let wait = match failure.retry_after() {
            Some(asked) => {
                let wait = self.cap_retry_after(&target.url, asked);
                counters.retry_after(wait);
                self.inner.hosts.defer(&target.host, Instant::now() + wait);
                wait
            }
            None => self.backoff(retry),
        };
        let max = self.inner.config.max_retries;
        tracing::warn!(url = %target.url, retry, max, ?wait, reason = %failure, "retrying");
        tokio::time::sleep(wait).await;
    }

    fn cap_retry_after(&self, url: &Url, asked: Duration) -> Duration {
        let max = self.inner.config.retry_after_max;
        if asked > max {
            tracing::warn!(%url, ?asked, ?max, "Retry-After beyond the cap; waiting the cap");
        }
        asked.min(max)
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("config", &self.inner.config)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

/// The configured `User-Agent`, or the default one if it is not a valid header value.
fn user_agent(configured: &str) -> HeaderValue {
    HeaderValue::from_str(configured).unwrap_or_else(|_| {
        tracing::error!(configured, "invalid User-Agent; sending the default one");
        HeaderValue::from_static(DEFAULT_USER_AGENT)
    })
}

fn is_redirect(status: StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

impl Target {
    fn parse(url: &str) -> Result<Self, FetchError> {
        let bad = |reason: String| FetchError::BadUrl {
            url: url.to_owned(),
            reason,
        };
        let parsed = Url::parse(url).map_err(|error| bad(error.to_string()))?;
        Self::new(parsed).map_err(bad)
    }

    fn new(mut url: Url) -> Result<Self, String> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("scheme {:?} is not http or https", url.scheme()));
        }
        let host = super::host_key(&url).ok_or("no host")?; // http(s) always has a port
        url.set_fragment(None); // never sent (RFC 9110 §4.2.4)
        let uri = Uri::try_from(url.as_str()).map_err(|error| error.to_string())?;
        Ok(Self { url, uri, host })
    }
}

impl Failure {
    fn is_retryable(&self) -> bool {
        match self {
            Self::Status(response) => is_retryable(response.status()),
            Self::Network(_) | Self::Timeout => true,
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Status(response) => retry::retry_after(response.headers(), SystemTime::now()),
            Self::Network(_) | Self::Timeout => None,
        }
    }

    /// A failure to connect, as the error of a first request: the endpoint is not there.
    fn unreachable(&self, target: &Target) -> Option<FetchError> {
        let Self::Network(error) = self else {
            return None;
        };
        if !error.is_connect() {
            return None;
        }
        Some(FetchError::Unreachable {
            url: target.url.to_string(),
            authority: target.host.clone(),
            cause: connect_cause(error),
        })
    }

    fn into_error(self, config: &ClientConfig, url: &Url, attempts: u32) -> FetchError {
        let url = url.to_string();
        match self {
            Self::Status(response) => FetchError::Status {
                url,
                status: response.status(),
                attempts,
            },
            Self::Network(error) => FetchError::Network {
                url,
                attempts,
                source: Box::new(error),
            },
            Self::Timeout => FetchError::Timeout {
                url,
                timeout: config.header_timeout,
                attempts,
            },
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Status(response) => write!(f, "HTTP {}", response.status()),
            Self::Network(error) => write!(f, "{}", ErrorChain(error)),
            Self::Timeout => f.write_str("no response head within the header timeout"),
        }
    }
}

/// An error and its sources on one line, for log messages.
struct ErrorChain<'a>(&'a dyn std::error::Error);

impl fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

//! [`ClientConfig`]: retry, politeness and timeout settings of a [`Client`](super::Client).

use std::time::Duration;

/// The `User-Agent` sent unless [`ClientConfig::user_agent`] replaces it.
pub const DEFAULT_USER_AGENT: &str = concat!(
    "modoai-harvester/",
    env!("CARGO_PKG_VERSION"),
    " (OAI-PMH harvester)"
);

/// Settings of a [`Client`](super::Client), built with consuming setters over [`Default`].
///
/// The fields can be read back through [`Client::config`](super::Client::config).
///
/// ```
/// use std::time::Duration;
/// use modoai_harvester::client::ClientConfig;
///
/// let config = ClientConfig::default()
///     .delay(Duration::from_secs(1))
///     .max_retries(3);
/// assert_eq!(config.max_retries, 3);
/// assert_eq!(config.per_host, 1);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientConfig {
    /// The `User-Agent` header of every request.
    pub user_agent: String,
    /// Attempts after the first one, for one URL.
    pub max_retries: u32,
    /// The backoff before the first retry; doubled for each further retry, with jitter.
    pub backoff_base: Duration,
    /// The longest backoff before one retry.
    pub backoff_max: Duration,
    /// The longest wait a `Retry-After` can impose; longer ones are cut to this and logged.
    pub retry_after_max: Duration,
    /// The minimum pause between the end of one request to a host and the start of the next.
    pub delay: Duration,
    /// Requests in flight at once to one host (authority: host and port); at least 1.
    pub per_host: usize,
    /// The longest wait for a TCP connection.
    pub connect_timeout: Duration,
    /// The longest wait from starting a request (connecting and TLS included) to receiving the
    /// response head.
    pub header_timeout: Duration,
    /// The longest wait for the next body bytes before reading the body fails.
    pub stall_timeout: Duration,
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            user_agent: DEFAULT_USER_AGENT.to_owned(),
            max_retries: 8,
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(5 * 60),
            retry_after_max: Duration::from_secs(60 * 60),
            delay: Duration::ZERO,
            per_host: 1,
            connect_timeout: Duration::from_secs(30),
            header_timeout: Duration::from_secs(120),
            stall_timeout: Duration::from_secs(120),
        }
    }
}

impl ClientConfig {
    /// Sets the `User-Agent` header; a value that is not a valid header (e.g. one with a line
    /// break) is replaced by the default and logged. Defaults to [`DEFAULT_USER_AGENT`].
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// Sets how many times a failed request is retried. Defaults to 8.
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// Sets the backoff before the first retry. Defaults to 1 s.
    pub fn backoff_base(mut self, base: Duration) -> Self {
        self.backoff_base = base;
        self
    }

    /// Sets the cap on one backoff. Defaults to 5 min.
    pub fn backoff_max(mut self, max: Duration) -> Self {
        self.backoff_max = max;
        self
    }

    /// Sets the cap on one `Retry-After` wait. Defaults to 1 h.
    pub fn retry_after_max(mut self, max: Duration) -> Self {
        self.retry_after_max = max;
        self
    }

    /// Sets the politeness pause between requests to one host. Defaults to 0.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Sets how many requests may be in flight to one host. Defaults to 1.
    ///
    /// # Panics
    ///
    /// If `requests` is 0: no request could ever start.
    pub fn per_host(mut self, requests: usize) -> Self {
        assert!(requests > 0, "ClientConfig::per_host must be at least 1");
        self.per_host = requests;
        self
    }

    /// Sets the TCP connect timeout. Defaults to 30 s.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the timeout from starting a request to its response head. Defaults to 120 s.
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Sets how long a body may deliver no bytes before reading it fails. Defaults to 120 s.
    pub fn stall_timeout(mut self, timeout: Duration) -> Self {
        self.stall_timeout = timeout;
        self
    }
}

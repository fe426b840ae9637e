//! [`FlowLimits`] and the `[flow]` section of the configuration file.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::Rate;
use crate::access::AccessError;

/// The longest Retry-After sent: the official validator gives up on longer ones.
pub(super) const MAX_RETRY_AFTER: u32 = 3600;

/// `[flow]`: how much of the server one client, and all enhanced responses together, may use.
///
/// ```toml
/// [flow]
/// rate = 2.0            # OAI-PMH requests per second per client, sustained
/// burst = 20            # requests a client may send at once
/// max-enhanced = 8      # oai_didl/oai_crate record responses in flight, server-wide
///
/// [flow.oai_didl]       # a stricter limit for one format's requests
/// rate = 0.5
/// burst = 4
/// ```
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct FlowSection {
    /// Requests per second per client; absent: no rate limit.
    pub rate: Option<f64>,
    /// Requests a client may send at once; default: the rate rounded up (at least 1).
    pub burst: Option<u32>,
    /// ListRecords and GetRecord responses of `oai_didl` and `oai_crate` in flight at once; see
    /// [`FlowLimits::max_enhanced`].
    pub max_enhanced: Option<usize>,
    /// Clients whose rate-limit state is kept; see [`FlowLimits::max_clients`].
    pub max_clients: Option<usize>,
    /// Retry-After, in seconds, when `max-enhanced` is reached; default 5. At least 1; values
    /// over 3600 are sent as 3600.
    pub busy_retry_after: Option<u32>,
    /// The limit of `oai_dc` requests.
    #[serde(rename = "oai_dc")]
    pub oai_dc: Option<RateSection>,
    /// The limit of `oai_didl` requests.
    #[serde(rename = "oai_didl")]
    pub oai_didl: Option<RateSection>,
    /// The limit of `oai_crate` requests.
    #[serde(rename = "oai_crate")]
    pub oai_crate: Option<RateSection>,
}

/// A format's own rate limit in `[flow]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RateSection {
    /// Requests per second per client.
    pub rate: f64,
    /// Requests at once; default: the rate rounded up.
    pub burst: Option<u32>,
}

/// A `[flow]` setting that cannot work.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FlowError {
    /// A rate that is not a positive number.
    #[error(
        "[flow] {key}: the rate must be a positive number of requests per second, not {value}"
    )]
    Rate {
        /// The key.
        key: String,
        /// The value.
        value: f64,
    },
    /// A count of zero.
    #[error("[flow] {0} must be at least 1")]
    Zero(String),
    /// A limit for a format modoai does not disseminate.
    #[error("[flow]: {0}")]
    Format(AccessError),
}

/// Flow control of the OAI-PMH route (HTTP 503 with `Retry-After` beyond it, OAI-PMH §3.1.2.1);
/// requests to the rest of the site are never limited.
///
/// - A token bucket per client and limit: a request naming a format with its own limit takes from
///   that format's bucket, every other request from the global one. The client is the user or
///   key that was admitted, or else the client address (an IPv6 client by its /64, the block one
///   host usually has). Retry-After says when the bucket has a token again.
/// - A bound on enhanced responses in flight, server-wide: ListRecords and GetRecord in
///   `oai_didl` or `oai_crate`, counted until their body ends or the client goes away.
///
/// Defaults to no rate limit, 32 enhanced responses, 10,000 clients, Retry-After 5 when busy.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowLimits {
    pub(crate) global: Option<Rate>,
    pub(crate) formats: BTreeMap<String, Rate>,
    pub(crate) max_enhanced: usize,
    pub(crate) max_clients: usize,
    pub(crate) busy_retry_after: u32,
}

impl Default for FlowLimits {
    fn default() -> Self {
        FlowLimits::new()
    }
}

fn rate(key: &str, per_sec: f64, burst: Option<u32>) -> Result<Rate, FlowError> {
    if !(per_sec.is_finite() && per_sec > 0.0) {
        return Err(FlowError::Rate {
            key: key.to_owned(),
            value: per_sec,
        });
    }
    let burst = burst.unwrap_or_else(|| per_sec.ceil().min(f64::from(u32::MAX)) as u32);
    if burst == 0 {
        return Err(FlowError::Zero(format!("{key} burst")));
    }
    Ok(Rate { per_sec, burst })
}

impl FlowLimits {
    /// The defaults (see above).
    pub fn new() -> Self {
        FlowLimits {
            global: None,
            formats: BTreeMap::new(),
            max_enhanced: 32,
            max_clients: 10_000,
            busy_retry_after: 5,
        }
    }

    /// Each client's rate on the whole route, in requests per second, with a burst. Defaults to
    /// none.
    pub fn rate(mut self, per_sec: f64, burst: u32) -> Result<Self, FlowError> {
        self.global = Some(rate("rate", per_sec, Some(burst))?);
        Ok(self)
    }

    /// Each client's rate for the requests of one format (`oai_dc`, `oai_didl`, `oai_crate`),
    /// instead of the global rate. Defaults to none.
    pub fn format_rate(
        mut self,
        prefix: &str,
        per_sec: f64,
        burst: u32,
    ) -> Result<Self, FlowError> {
        if !crate::access::FORMATS.contains(&prefix) {
            return Err(FlowError::Format(AccessError::UnknownFormat(
                prefix.to_owned(),
            )));
        }
        self.formats
            .insert(prefix.to_owned(), rate(prefix, per_sec, Some(burst))?);
        Ok(self)
    }

    /// Enhanced (`oai_didl`, `oai_crate`) record responses in flight at once. Defaults to 32.
    ///
    /// # Panics
    ///
    /// If `n` is 0 (no enhanced response could ever be sent).
    pub fn max_enhanced(mut self, n: usize) -> Self {
        assert!(n > 0, "max_enhanced must be at least 1");
        self.max_enhanced = n;
        self
    }

    /// Clients whose buckets are kept; when all are in use, new clients get 503 until a bucket
    /// is full again (and so forgotten). Defaults to 10,000.
    ///
    /// # Panics
    ///
    /// If `n` is 0 (every rate-limited request would be refused).
    pub fn max_clients(mut self, n: usize) -> Self {
        assert!(n > 0, "max_clients must be at least 1");
        self.max_clients = n;
        self
    }

    /// Retry-After, in seconds, when the enhanced responses are at their bound. Values over
    /// 3600 are sent as 3600, the longest Retry-After modoai sends (longer ones make the OAI-PMH
    /// validator give up). Defaults to 5.
    ///
    /// # Panics
    ///
    /// If `secs` is 0 (a client told to retry at once would only add to the load).
    pub fn busy_retry_after(mut self, secs: u32) -> Self {
        assert!(secs > 0, "busy_retry_after must be at least 1 second");
        self.busy_retry_after = secs.min(MAX_RETRY_AFTER);
        self
    }

    /// The limits of a `[flow]` section.
    pub fn from_section(s: &FlowSection) -> Result<Self, FlowError> {
        let mut limits = FlowLimits::new();
        if let Some(r) = s.rate {
            limits.global = Some(rate("rate", r, s.burst)?);
        } else if s.burst.is_some() {
            return Err(FlowError::Zero("rate (burst is set without it)".to_owned()));
        }
        for (key, value) in [
            ("max-enhanced", s.max_enhanced),
            ("max-clients", s.max_clients),
        ] {
            if value == Some(0) {
                return Err(FlowError::Zero(key.to_owned()));
            }
        }
        if s.busy_retry_after == Some(0) {
            return Err(FlowError::Zero("busy-retry-after".to_owned()));
        }
        let defaults = FlowLimits::new();
        limits = limits
            .max_enhanced(s.max_enhanced.unwrap_or(defaults.max_enhanced))
            .max_clients(s.max_clients.unwrap_or(defaults.max_clients))
            .busy_retry_after(s.busy_retry_after.unwrap_or(defaults.busy_retry_after));
        for (prefix, section) in [
            ("oai_dc", &s.oai_dc),
            ("oai_didl", &s.oai_didl),
            ("oai_crate", &s.oai_crate),
        ] {
            if let Some(sec) = section {
                limits
                    .formats
                    .insert(prefix.to_owned(), rate(prefix, sec.rate, sec.burst)?);
            }
        }
        Ok(limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<FlowLimits, String> {
        let s: FlowSection = toml::from_str(text).map_err(|e| e.to_string())?;
        FlowLimits::from_section(&s).map_err(|e| e.to_string())
    }

    #[test]
    fn sections() {
        let l = parse("rate = 2.5\nmax-enhanced = 3\n[oai_didl]\nrate = 0.5\nburst = 4\n").unwrap();
        assert_eq!(
            l.global,
            Some(Rate {
                per_sec: 2.5,
                burst: 3
            })
        );
        assert_eq!(
            l.formats["oai_didl"],
            Rate {
                per_sec: 0.5,
                burst: 4
            }
        );
        assert_eq!(l.max_enhanced, 3);
        assert_eq!(parse("").unwrap(), FlowLimits::new());
        for (bad, says) in [
            ("rate = 0.0\n", "positive"),
            ("rate = -1.0\n", "positive"),
            ("rate = nan\n", "positive"),
            ("rate = 1.0\nburst = 0\n", "burst must be at least 1"),
            ("burst = 3\n", "rate"),
            ("max-enhanced = 0\n", "max-enhanced"),
            ("[oai_dlid]\nrate = 1.0\n", "oai_dlid"),
            ("rates = 1.0\n", "rates"),
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
        assert!(FlowLimits::new().format_rate("oai_x", 1.0, 1).is_err());
    }

    #[test]
    #[should_panic(expected = "max_enhanced must be at least 1")]
    fn zero_enhanced_responses_panic() {
        let _ = FlowLimits::new().max_enhanced(0);
    }

    #[test]
    #[should_panic(expected = "max_clients must be at least 1")]
    fn zero_clients_panic() {
        let _ = FlowLimits::new().max_clients(0);
    }

    #[test]
    #[should_panic(expected = "busy_retry_after must be at least 1 second")]
    fn a_zero_retry_after_panics() {
        let _ = FlowLimits::new().busy_retry_after(0);
    }

    #[test]
    fn long_retry_afters_are_sent_as_an_hour() {
        assert_eq!(
            FlowLimits::new().busy_retry_after(7200).busy_retry_after,
            3600
        );
        assert!(parse("busy-retry-after = 0\n")
            .unwrap_err()
            .contains("busy-retry-after"));
        assert!(parse("max-clients = 0\n")
            .unwrap_err()
            .contains("max-clients"));
    }
}

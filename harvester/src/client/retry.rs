//! Retry policy: which answers are retried, the backoff, and `Retry-After`.

use std::time::{Duration, SystemTime};

use http::{HeaderMap, StatusCode};
use rand::Rng;

/// Whether a status is worth another attempt: 429 and every 5xx (503 is OAI-PMH's flow control,
/// §3.1.2.1; other 5xx are often a proxy's passing trouble).
pub(crate) fn is_retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error()
}

/// Exponential backoff with equal jitter: the wait before retry `retry` (1-based) is drawn from
/// `[d/2, d]` with `d = min(base · 2^(retry-1), max)`. Equal rather than full jitter keeps a floor,
/// so a fleet of harvesters spreads out without ever hammering a struggling server.
pub(crate) fn backoff(base: Duration, max: Duration, retry: u32) -> Duration {
    if retry == 0 {
        return Duration::ZERO;
    }
    let factor = 1u32.checked_shl(retry - 1).unwrap_or(u32::MAX);
    let full = base.saturating_mul(factor).min(max);
    let half = full / 2;
    half + rand::rng().random_range(Duration::ZERO..=full - half)
}

/// The wait a `Retry-After` header asks for (RFC 9110 §10.2.3): delta-seconds or an HTTP-date.
/// A date in the past means at once; `None` when the header is missing or unreadable.
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let value = headers
        .get(http::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Digits too many for u64 are still a (very long) wait, cut by the caller's cap.
        return Some(Duration::from_secs(value.parse().unwrap_or(u64::MAX)));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            http::header::RETRY_AFTER,
            HeaderValue::from_str(value).unwrap(),
        );
        headers
    }

    #[test]
    fn backoff_doubles_within_equal_jitter_bounds() {
        let (base, max) = (Duration::from_millis(100), Duration::from_secs(10));
        for retry in 1..=5 {
            let full = base * 2u32.pow(retry - 1);
            for _ in 0..50 {
                let wait = backoff(base, max, retry);
                assert!(wait >= full / 2 && wait <= full, "retry {retry}: {wait:?}");
            }
        }
    }

    #[test]
    fn backoff_is_capped_and_never_overflows() {
        let max = Duration::from_secs(300);
        for retry in [20, 32, 33, 1000, u32::MAX] {
            let wait = backoff(Duration::from_secs(1), max, retry);
            assert!(wait >= max / 2 && wait <= max, "retry {retry}: {wait:?}");
        }
        assert_eq!(backoff(Duration::from_secs(1), max, 0), Duration::ZERO);
    }

    #[test]
    fn retry_after_delta_seconds() {
        let now = SystemTime::now();
        assert_eq!(
            retry_after(&headers("120"), now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(retry_after(&headers(" 0 "), now), Some(Duration::ZERO));
        let huge = retry_after(&headers("99999999999999999999999"), now);
        assert_eq!(huge, Some(Duration::from_secs(u64::MAX)));
    }

    #[test]
    fn retry_after_http_date() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let later = headers("Sun, 06 Nov 1994 08:50:07 GMT");
        assert_eq!(retry_after(&later, now), Some(Duration::from_secs(30)));
        let past = headers("Sun, 06 Nov 1994 08:00:00 GMT");
        assert_eq!(retry_after(&past, now), Some(Duration::ZERO));
    }

    #[test]
    fn retry_after_unreadable_or_missing() {
        let now = SystemTime::now();
        assert_eq!(retry_after(&headers("-5"), now), None);
        assert_eq!(retry_after(&headers("soon"), now), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }

    #[test]
    fn retryable_statuses() {
        for code in [429, 500, 502, 503, 504] {
            assert!(is_retryable(StatusCode::from_u16(code).unwrap()), "{code}");
        }
        for code in [200, 301, 400, 401, 403, 404, 410] {
            assert!(!is_retryable(StatusCode::from_u16(code).unwrap()), "{code}");
        }
    }
}

//! The RateLimit header fields of an answer to a key with a quota, in the current, Structured-Field
//! form of the IETF httpapi draft "RateLimit header fields for HTTP"
//! (draft-ietf-httpapi-ratelimit-headers-08 and later, RFC 9651 lists):
//! `RateLimit-Policy: "hour";q=1000;w=3600` says the quota (`q` requests per `w` seconds),
//! `RateLimit: "hour";r=998;t=1720` what is left (`r`) and the seconds until the window resets
//! (`t`).

use axum::http::HeaderValue;
use axum::response::{IntoResponseParts, ResponseParts};

use crate::keys::{Usage, WINDOW};

/// The RateLimit fields of an answer: none for a caller without a quota.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RateLimit(Option<Quota>);

/// Where a key with a quota stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Quota {
    per_window: u64,
    remaining: u64,
    reset_secs: u64,
}

impl RateLimit {
    /// The fields of a key's usage (none when it has no quota).
    pub(crate) fn of(u: &Usage) -> RateLimit {
        RateLimit(match (u.quota, u.remaining) {
            (Some(per_window), Some(remaining)) => Some(Quota {
                per_window,
                remaining,
                reset_secs: u.reset,
            }),
            _ => None,
        })
    }

    /// The fields' names and values.
    fn fields(self) -> Option<[(&'static str, String); 2]> {
        let q = self.0?;
        Some([
            (
                "ratelimit-policy",
                format!("\"hour\";q={};w={}", q.per_window, WINDOW.as_secs()),
            ),
            (
                "ratelimit",
                format!("\"hour\";r={};t={}", q.remaining, q.reset_secs),
            ),
        ])
    }
}

impl IntoResponseParts for RateLimit {
    type Error = std::convert::Infallible;

    fn into_response_parts(self, mut res: ResponseParts) -> Result<ResponseParts, Self::Error> {
        for (name, value) in self.fields().into_iter().flatten() {
            if let Ok(v) = HeaderValue::from_str(&value) {
                res.headers_mut().insert(name, v);
            }
        }
        Ok(res)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_key_with_a_quota_gets_the_fields() {
        let usage = |quota, remaining| Usage {
            quota,
            remaining,
            reset: 1720,
            used: 2,
        };
        let fields = RateLimit::of(&usage(Some(1000), Some(998)))
            .fields()
            .unwrap();
        assert_eq!(
            fields,
            [
                ("ratelimit-policy", "\"hour\";q=1000;w=3600".to_owned()),
                ("ratelimit", "\"hour\";r=998;t=1720".to_owned()),
            ]
        );
        assert_eq!(RateLimit::of(&usage(None, None)), RateLimit::default());
        assert!(RateLimit::default().fields().is_none());
    }
}

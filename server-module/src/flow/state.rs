//! [`Flow`]: the limits in force with their state (buckets, enhanced-response permits), the
//! admission of one request against them, and the Retry-After and client key it uses.

use std::net::IpAddr;
use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};
use tokio::time::{Duration, Instant};

use super::config::{FlowLimits, MAX_RETRY_AFTER};
use super::Buckets;

/// The limits in force and their state: the buckets and the enhanced-response permits.
#[derive(Debug)]
pub(crate) struct Flow {
    pub(crate) limits: FlowLimits,
    buckets: Arc<Buckets>,
    enhanced: Arc<Semaphore>,
}

impl Flow {
    pub(crate) fn new(limits: FlowLimits) -> Self {
        Flow {
            buckets: Arc::new(Buckets::new(limits.max_clients)),
            enhanced: Arc::new(Semaphore::new(limits.max_enhanced)),
            limits,
        }
    }

    /// The same limits sharing this state (buckets, permits in flight).
    pub(crate) fn carry_over(&self) -> Self {
        Flow {
            limits: self.limits.clone(),
            buckets: self.buckets.clone(),
            enhanced: self.enhanced.clone(),
        }
    }

    /// Takes a token for one request of `client` naming `prefix` (if any), or says how many
    /// seconds to wait.
    pub(crate) fn admit(&self, client: &str, prefix: Option<&str>) -> Result<(), u32> {
        let own = prefix.and_then(|p| self.limits.formats.get_key_value(p));
        let (group, rate) = match (own, self.limits.global) {
            (Some((p, r)), _) => (p.as_str(), *r),
            (None, Some(r)) => ("*", r),
            (None, None) => return Ok(()),
        };
        self.buckets
            .take(&format!("{group} {client}"), rate, Instant::now())
            .map_err(retry_after)
    }

    /// A permit for one enhanced response, or the Retry-After to send.
    pub(crate) fn enhanced(&self) -> Result<OwnedSemaphorePermit, u32> {
        match self.enhanced.clone().try_acquire_owned() {
            Ok(permit) => Ok(permit),
            Err(TryAcquireError::NoPermits) => Err(self.limits.busy_retry_after),
            Err(TryAcquireError::Closed) => {
                panic!("the enhanced-response semaphore is never closed")
            }
        }
    }
}

/// Whole seconds, rounded up, so the client's retry finds a token; 1 to 3600.
fn retry_after(wait: Duration) -> u32 {
    let secs = wait
        .as_secs()
        .saturating_add(u64::from(wait.subsec_nanos() > 0));
    secs.clamp(1, u64::from(MAX_RETRY_AFTER)) as u32
}

/// The rate-limit key of a client without credentials: its address, an IPv6 one by its /64.
pub(crate) fn address_key(ip: Option<IpAddr>) -> String {
    match ip.map(|ip| ip.to_canonical()) {
        Some(IpAddr::V6(v6)) => {
            let s = v6.segments();
            format!("ip:{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
        Some(IpAddr::V4(v4)) => format!("ip:{v4}"),
        None => "ip:unknown".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_rounds_up_and_is_bounded() {
        assert_eq!(retry_after(Duration::from_millis(1)), 1);
        assert_eq!(retry_after(Duration::from_millis(1500)), 2);
        assert_eq!(retry_after(Duration::from_secs(2)), 2);
        assert_eq!(retry_after(Duration::ZERO), 1);
        assert_eq!(retry_after(Duration::from_secs(10_000)), 3600);
        assert_eq!(retry_after(Duration::MAX), 3600);
    }

    #[test]
    fn address_keys() {
        assert_eq!(
            address_key(Some("192.0.2.1".parse().unwrap())),
            "ip:192.0.2.1"
        );
        assert_eq!(
            address_key(Some("::ffff:192.0.2.1".parse().unwrap())),
            "ip:192.0.2.1"
        );
        assert_eq!(
            address_key(Some("2001:db8:1:2:3:4:5:6".parse().unwrap())),
            address_key(Some("2001:db8:1:2:ffff::1".parse().unwrap()))
        );
        assert_eq!(address_key(None), "ip:unknown");
    }

    #[tokio::test(start_paused = true)]
    async fn format_limits_replace_the_global_one() {
        let flow = Flow::new(
            FlowLimits::new()
                .rate(1.0, 1)
                .unwrap()
                .format_rate("oai_didl", 0.25, 2)
                .unwrap(),
        );
        assert_eq!(flow.admit("c", None), Ok(()));
        assert_eq!(flow.admit("c", Some("oai_dc")), Err(1));
        assert_eq!(flow.admit("c", Some("oai_didl")), Ok(()));
        assert_eq!(flow.admit("c", Some("oai_didl")), Ok(()));
        assert_eq!(flow.admit("c", Some("oai_didl")), Err(4));
        assert_eq!(flow.admit("d", Some("oai_didl")), Ok(()));
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(flow.admit("c", None), Ok(()));
        let open = Flow::new(FlowLimits::new());
        for _ in 0..1000 {
            assert_eq!(open.admit("c", None), Ok(()));
        }
    }

    #[test]
    fn enhanced_permits_are_bounded() {
        let flow = Flow::new(FlowLimits::new().max_enhanced(1).busy_retry_after(7));
        let p = flow.enhanced().unwrap();
        assert_eq!(flow.enhanced().err(), Some(7));
        drop(p);
        assert!(flow.enhanced().is_ok());
    }
}

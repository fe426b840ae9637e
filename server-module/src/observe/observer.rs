//! [`Observer`]: what the standalone server does with each finished response: an access log
//! line and the HTTP metrics; and the health state `/healthz` reports.

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use http::header::{REFERER, USER_AGENT};
use http::{Method, Request};
use time::OffsetDateTime;

use super::line::Record;
use super::metrics::Metrics;
use super::writer::AccessLog;
use super::OaiFacts;
use crate::access::{self, ClientAddr};
use crate::Policy;

/// Shared by every connection of one server.
#[derive(Debug)]
pub(crate) struct Observer {
    pub(crate) log: Option<AccessLog>,
    pub(crate) metrics: Option<Metrics>,
    /// The metrics route when it is served beside the site (no listen address of its own).
    pub(crate) metrics_route: Option<String>,
    pub(crate) health: Health,
    pub(crate) policy: Policy,
}

/// Whether the server is shutting down; cheap to clone.
#[derive(Clone, Debug, Default)]
pub(crate) struct Health(Arc<AtomicBool>);

impl Health {
    /// From now on `/healthz` answers 503.
    pub(crate) fn shutting_down(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub(crate) fn is_shutting_down(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// What is known of a request when it arrives.
#[derive(Debug)]
pub(crate) struct Pending {
    started: Instant,
    time: OffsetDateTime,
    client: Option<IpAddr>,
    pub(crate) method: Method,
    target: String,
    protocol: &'static str,
    user_agent: Option<Vec<u8>>,
    referer: Option<Vec<u8>>,
    pub(crate) status: u16,
    pub(crate) facts: Option<OaiFacts>,
}

impl Observer {
    /// Takes what the log needs of a request as it arrives; the client is resolved by the
    /// trusted-proxy rules in force.
    pub(crate) fn begin<B>(&self, req: &Request<B>) -> Pending {
        let current = self.policy.current();
        let rules = &current.access;
        let peer = req.extensions().get::<ClientAddr>().map(|c| c.0.ip());
        let header = |name| {
            req.headers()
                .get(name)
                .map(|v: &http::HeaderValue| v.as_bytes().to_vec())
        };
        Pending {
            started: Instant::now(),
            time: OffsetDateTime::now_utc(),
            client: access::client_ip(peer, req.headers(), &rules.trusted_proxies, rules.forwarded),
            method: req.method().clone(),
            target: req
                .uri()
                .path_and_query()
                .map_or_else(|| req.uri().to_string(), |p| p.as_str().to_owned()),
            protocol: protocol(req.version()),
            user_agent: header(USER_AGENT),
            referer: header(REFERER),
            status: 0,
            facts: None,
        }
    }

    /// The response of `pending` has ended (or was dropped) after `bytes` of body.
    pub(crate) fn finish(&self, p: Pending, bytes: u64) {
        let duration = p.started.elapsed();
        let verb = match &p.facts {
            None => "site",
            Some(f) => f.verb.map_or("none", |v| v.as_str()),
        };
        // One event per request for `RUST_LOG=modoai::request=debug`, access log or not.
        tracing::debug!(
            target: "modoai::request",
            client = ?p.client,
            method = %p.method,
            uri = %p.target,
            status = p.status,
            bytes,
            duration_ms = duration.as_millis() as u64,
            verb,
            "request"
        );
        if let Some(m) = &self.metrics {
            let refusal = p.facts.as_ref().and_then(|f| f.refusal);
            m.request(verb, p.status, bytes, duration.as_secs_f64(), refusal);
        }
        if let Some(log) = &self.log {
            log.record(&Record {
                time: p.time,
                client: p.client,
                method: p.method.to_string(),
                target: p.target,
                protocol: p.protocol,
                status: p.status,
                bytes,
                duration,
                facts: p.facts,
                user_agent: p.user_agent,
                referer: p.referer,
            });
        }
    }
}

fn protocol(v: http::Version) -> &'static str {
    match v {
        http::Version::HTTP_09 => "HTTP/0.9",
        http::Version::HTTP_10 => "HTTP/1.0",
        http::Version::HTTP_2 => "HTTP/2.0",
        http::Version::HTTP_3 => "HTTP/3.0",
        _ => "HTTP/1.1",
    }
}

//! Flow control of the OAI-PMH route: per-client rate limits and a bound on enhanced responses in
//! flight, answered with 503 and `Retry-After` (OAI-PMH §3.1.2.1) instead of queueing.

mod body;
mod config;
mod state;

pub use config::{FlowError, FlowLimits, FlowSection, RateSection};
pub use modoai_gate::{Buckets, Rate};

pub(crate) use body::PermitBody;
pub(crate) use state::{address_key, Flow};

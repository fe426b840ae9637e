//! What the standalone server tells its operators: an access log (Common, Combined or JSON
//! lines, to standard error or a file reopened on SIGHUP), `/healthz`, and Prometheus metrics;
//! and, for users of the Layer, the [`OaiFacts`] of each OAI-PMH response as a response
//! extension, for their own logging.

mod body;
mod endpoints;
mod facts;
mod line;
mod metrics;
mod observer;
mod service;
mod settings;
mod start;
mod writer;

pub use facts::{OaiFacts, Refusal};
pub use settings::{AccessLogFormat, LogSection, MetricsSection};

pub(crate) use endpoints::answer as endpoint;
pub(crate) use observer::Observer;
pub(crate) use service::ObserveLayer;
pub(crate) use settings::Observation;
pub(crate) use start::{observer, reopen_on_sighup};

//! The standalone server: [`SiteService`] behind [`OaiPmhLayer`], on hyper.
//!
//! Bounded: at most `max-connections` connections at once (beyond, the listener is not polled and
//! the kernel's backlog holds new ones), slow or idle clients closed after `header-timeout-secs`
//! ([`conn`]), and on shutdown a grace period for in-flight responses, after which remaining
//! connections are closed and their tool processes killed.

mod conn;
mod serve;
mod side;

pub use serve::{box_request, serve};

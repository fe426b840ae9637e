//! The harvester's HTTP(S) client: GET with bounded retries, `Retry-After`, redirects, per-host
//! politeness and timeouts, and a blocking body reader for a parser on a blocking thread.
//!
//! ```no_run
//! use std::time::Duration;
//! use modoai_harvester::client::{Client, ClientConfig};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::new(ClientConfig::default().delay(Duration::from_millis(500)));
//! let response = client.get("https://example.org/oai?verb=Identify").await?;
//! let identify = response.bytes(1 << 20).await?;
//! println!("{} bytes from {}; {:?}", identify.len(), client.config().user_agent, client.stats());
//! # Ok(()) }
//! ```
//!
//! # Why it behaves as it does
//!
//! - Providers signal load with `503` + `Retry-After` (OAI-PMH §3.1.2.1), as delta-seconds or as
//!   an HTTP-date (RFC 9110 §10.2.3). Harvesters that ignore it lose records silently
//!   (code4lib/ruby-oai#45) and ones that only parse integers crash on dates (Sickle), so both
//!   forms are read, a huge value is capped, and the wait holds back the whole host.
//! - Every retry loop is bounded by [`ClientConfig::max_retries`]; 4xx other than 429 fail at
//!   once, as retrying cannot help.
//! - A [`Response`] keeps its host's slot until its body is finished, so the politeness
//!   [`ClientConfig::delay`] counts from the end of a transfer, however long the page streamed.
//! - Timeouts cover the three ways a request hangs: connecting, waiting for the head, and a body
//!   that stops (a stall is detected per chunk, so a long page that keeps flowing never times
//!   out).

mod body;
mod config;
mod connect;
mod error;
mod fetch;
mod host;
mod reader;
mod response;
mod retry;
mod stats;

pub use config::{ClientConfig, DEFAULT_USER_AGENT};
pub use error::FetchError;
pub use fetch::{Client, FIRST_REQUEST_RETRIES, MAX_REDIRECTS};
pub use host::host_key;
pub use reader::{BodyReader, BodyStopper};
pub use response::Response;
pub use stats::Stats;

//! The HTTP client (`modoai_harvester::client`) against the scripted fault server of
//! `support`: retries and `Retry-After`, broken connections and bodies, redirects,
//! per-host politeness and streaming.
//!
//! Durations are small so the suite stays fast; timing checks assert lower bounds only.

use std::io::{self, Read};
use std::time::Duration;

use modoai_harvester::client::{Client, ClientConfig, Response};

mod faults;
mod politeness;
mod redirects;
mod retries;
mod streaming;

/// Millisecond backoffs and three retries.
fn fast_config() -> ClientConfig {
    ClientConfig::default()
        .backoff_base(Duration::from_millis(5))
        .backoff_max(Duration::from_millis(50))
        .max_retries(3)
}

fn fast_client() -> Client {
    Client::new(fast_config())
}

/// Reads the whole body through [`Response::into_reader`] on a blocking thread.
async fn read_all(response: Response) -> io::Result<Vec<u8>> {
    let mut reader = response.into_reader(&tokio::runtime::Handle::current());
    tokio::task::spawn_blocking(move || {
        let mut body = Vec::new();
        reader.read_to_end(&mut body).map(|_| body)
    })
    .await
    .unwrap()
}

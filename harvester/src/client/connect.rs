//! The hyper client underneath: a keep-alive pool over plain TCP or rustls TLS.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::Empty;
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioTimer};

use super::ClientConfig;

pub(crate) type HttpClient = Client<HttpsConnector<HttpConnector>, Empty<Bytes>>;

/// Idle keep-alive connections are closed after this; providers commonly drop them sooner.
const POOL_IDLE: Duration = Duration::from_secs(60);

pub(crate) fn http_client(config: &ClientConfig) -> HttpClient {
    let mut tcp = HttpConnector::new();
    tcp.enforce_http(false); // the TLS layer checks the scheme
    tcp.set_connect_timeout(Some(config.connect_timeout));
    tcp.set_nodelay(true);
    // `ring` named explicitly: rustls's implicit default panics if a second provider is enabled.
    let connector = HttpsConnectorBuilder::new()
        .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
        .expect("ring supports rustls's default protocol versions")
        .https_or_http()
        .enable_all_versions()
        .wrap_connector(tcp);
    Client::builder(TokioExecutor::new())
        .pool_timer(TokioTimer::new())
        .pool_idle_timeout(POOL_IDLE)
        .build(connector)
}

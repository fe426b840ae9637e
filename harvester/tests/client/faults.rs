//! Broken transports: dropped connections, refused connections, truncated and stalled bodies,
//! and heads that never come.

use std::error::Error as _;
use std::io::{self, Read};
use std::time::Duration;

use modoai_harvester::client::{Client, FetchError};

use super::{fast_client, fast_config, read_all};
use crate::support::{FaultServer, Reply};

fn body(len: usize) -> Vec<u8> {
    (0..len).map(|i| b'a' + (i % 26) as u8).collect()
}

#[tokio::test]
async fn dropped_connection_then_ok() {
    let server = FaultServer::start(|req| {
        if req.n == 0 {
            Reply::drop_connection()
        } else {
            Reply::ok("ok")
        }
    });
    let client = fast_client();
    let response = client.get(&server.url("/oai")).await.unwrap();
    assert_eq!(&response.bytes(10).await.unwrap()[..], b"ok");
    assert_eq!(server.requests().len(), 2);
    assert_eq!(client.stats().retries, 1);
}

#[tokio::test]
async fn network_errors_exhausted() {
    let server = FaultServer::start(|_| Reply::drop_connection());
    let url = server.url("/oai");
    let error = Client::new(fast_config().max_retries(1))
        .get(&url)
        .await
        .unwrap_err();
    assert!(
        matches!(error, FetchError::Network { attempts: 2, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains(&url), "{error}");
    assert!(error.source().is_some());
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn connection_refused_is_a_network_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let client = Client::new(fast_config().max_retries(1));
    let error = client
        .get(&format!("http://127.0.0.1:{port}/oai"))
        .await
        .unwrap_err();
    assert!(
        matches!(error, FetchError::Network { attempts: 2, .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn truncated_body_is_unexpected_eof() {
    let server = FaultServer::start(|_| Reply::truncate(body(100_000), 40_000));
    let response = fast_client().get(&server.url("/oai")).await.unwrap();
    let mut reader = response.into_reader(&tokio::runtime::Handle::current());
    let (first, again) = tokio::task::spawn_blocking(move || {
        let mut sink = Vec::new();
        let first = reader.read_to_end(&mut sink).unwrap_err();
        let again = reader.read(&mut [0; 16]).unwrap_err();
        (first, again)
    })
    .await
    .unwrap();
    assert_eq!(first.kind(), io::ErrorKind::UnexpectedEof, "{first}");
    assert!(first.to_string().contains(&server.url("/oai")), "{first}");
    assert_eq!(
        again.kind(),
        io::ErrorKind::UnexpectedEof,
        "a failed body stays failed"
    );
}

#[tokio::test]
async fn truncated_chunked_body_fails() {
    let server = FaultServer::start(|_| Reply::truncate(body(100_000), 40_000).chunked());
    let response = fast_client().get(&server.url("/oai")).await.unwrap();
    let error = response.bytes(1 << 20).await.unwrap_err();
    let FetchError::Body { source, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(source.kind(), io::ErrorKind::UnexpectedEof, "{source}");
}

#[tokio::test]
async fn stalled_body_times_out() {
    let server = FaultServer::start(|_| Reply::stall(body(10_000), 1_000, Duration::from_secs(30)));
    let client = Client::new(fast_config().stall_timeout(Duration::from_millis(200)));
    let response = client.get(&server.url("/oai")).await.unwrap();
    let error = read_all(response).await.unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::TimedOut, "{error}");
    assert!(error.to_string().contains("stalled"), "{error}");
}

#[tokio::test]
async fn slow_but_flowing_body_does_not_time_out() {
    let server =
        FaultServer::start(|_| Reply::stall(body(10_000), 5_000, Duration::from_millis(150)));
    let client = Client::new(fast_config().stall_timeout(Duration::from_secs(2)));
    let response = client.get(&server.url("/oai")).await.unwrap();
    assert_eq!(read_all(response).await.unwrap(), body(10_000));
}

#[tokio::test]
async fn missing_head_times_out_and_is_retried() {
    let server = FaultServer::start(|_| Reply::ok("late").delay_head(Duration::from_secs(30)));
    let config = fast_config()
        .header_timeout(Duration::from_millis(200))
        .max_retries(1);
    let error = Client::new(config)
        .get(&server.url("/oai"))
        .await
        .unwrap_err();
    assert!(
        matches!(error, FetchError::Timeout { attempts: 2, .. }),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn https_urls_speak_tls() {
    // A plain-HTTP server cannot answer a TLS handshake: the client fails at the TLS layer,
    // and the server never sees an HTTP request.
    let server = FaultServer::start(|_| Reply::ok("plain"));
    let url = server.url("/oai").replacen("http://", "https://", 1);
    let error = Client::new(fast_config().max_retries(0))
        .get(&url)
        .await
        .unwrap_err();
    assert!(
        matches!(error, FetchError::Network { attempts: 1, .. }),
        "{error:?}"
    );
    assert!(server.requests().is_empty());
}

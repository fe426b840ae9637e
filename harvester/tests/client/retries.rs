//! Retries: 503 + `Retry-After` in both forms, 429, 5xx, exhaustion, and statuses that fail at
//! once.

use std::time::{Duration, Instant, SystemTime};

use http::StatusCode;
use modoai_harvester::client::{Client, FetchError};

use super::{fast_client, fast_config};
use crate::support::{FaultServer, Reply};

/// Fails `failures` times with `fail(n)`, then answers 200 "done".
fn flaky(failures: usize, fail: impl Fn(usize) -> Reply + Send + Sync + 'static) -> FaultServer {
    FaultServer::start(move |req| {
        if req.n < failures {
            fail(req.n)
        } else {
            Reply::ok("done")
        }
    })
}

fn gap(server: &FaultServer, first: usize) -> Duration {
    let requests = server.requests();
    requests[first + 1].arrived - requests[first].arrived
}

#[tokio::test]
async fn retry_after_seconds_is_honoured() {
    let server = flaky(1, |_| Reply::status(503).header("Retry-After", "1"));
    let client = fast_client();
    let response = client.get(&server.url("/oai")).await.unwrap();
    assert_eq!(&response.bytes(100).await.unwrap()[..], b"done");
    assert_eq!(server.requests().len(), 2);
    assert!(
        gap(&server, 0) >= Duration::from_secs(1),
        "{:?}",
        gap(&server, 0)
    );
    let stats = client.stats();
    assert_eq!((stats.retries, stats.retry_after_waits), (1, 1));
    assert_eq!(stats.retry_after_total, Duration::from_secs(1));
}

#[tokio::test]
async fn retry_after_http_date_is_honoured() {
    // HTTP-dates have whole seconds: "now + 2 s" is between 1 and 2 s away.
    let server = flaky(1, |_| {
        let date = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(2));
        Reply::status(503).header("Retry-After", &date)
    });
    let client = fast_client();
    client.get(&server.url("/oai")).await.unwrap();
    assert_eq!(server.requests().len(), 2);
    assert!(
        gap(&server, 0) >= Duration::from_millis(900),
        "{:?}",
        gap(&server, 0)
    );
    assert_eq!(client.stats().retry_after_waits, 1);
}

#[tokio::test]
async fn retry_after_zero_or_past_retries_at_once() {
    let server = flaky(2, |n| {
        let past = httpdate::fmt_http_date(SystemTime::now() - Duration::from_secs(60));
        Reply::status(503).header("Retry-After", if n == 0 { "0" } else { &past })
    });
    // A backoff of minutes would show if the zero waits fell back to it.
    let client = Client::new(fast_config().backoff_base(Duration::from_secs(600)));
    let start = Instant::now();
    client.get(&server.url("/oai")).await.unwrap();
    assert!(start.elapsed() < Duration::from_secs(60));
    let stats = client.stats();
    assert_eq!(
        (stats.requests, stats.retries, stats.retry_after_waits),
        (3, 2, 2)
    );
    assert_eq!(stats.retry_after_total, Duration::ZERO);
}

#[tokio::test]
async fn retry_after_beyond_the_cap_is_capped() {
    let server = flaky(1, |_| Reply::status(503).header("Retry-After", "3600"));
    let client = Client::new(fast_config().retry_after_max(Duration::from_millis(200)));
    client.get(&server.url("/oai")).await.unwrap();
    assert!(gap(&server, 0) >= Duration::from_millis(200));
    assert_eq!(client.stats().retry_after_total, Duration::from_millis(200));
}

#[tokio::test]
async fn retry_after_holds_back_the_whole_host() {
    let server = FaultServer::start(|req| match (req.path(), req.n) {
        ("/a", 0) => Reply::status(503).header("Retry-After", "1"),
        _ => Reply::ok("done"),
    });
    let client = Client::new(fast_config().per_host(4));
    let first = tokio::spawn({
        let (client, url) = (client.clone(), server.url("/a"));
        async move { client.get(&url).await.map(drop) }
    });
    while server.requests().is_empty() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await; // the 503 has been handled
    client.get(&server.url("/b")).await.unwrap();
    first.await.unwrap().unwrap();
    let requests = server.requests();
    let b = requests.iter().find(|r| r.path() == "/b").unwrap();
    assert!(b.arrived - requests[0].arrived >= Duration::from_secs(1));
}

#[tokio::test]
async fn too_many_requests_is_retried_with_backoff() {
    let server = flaky(1, |_| Reply::status(429));
    let client = fast_client();
    client.get(&server.url("/oai")).await.unwrap();
    let stats = client.stats();
    assert_eq!(
        (stats.requests, stats.retries, stats.retry_after_waits),
        (2, 1, 0)
    );
}

#[tokio::test]
async fn server_errors_then_ok() {
    let server = flaky(2, |n| Reply::status(if n == 0 { 500 } else { 502 }));
    let response = fast_client().get(&server.url("/oai")).await.unwrap();
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn retries_exhausted_names_the_url_and_attempts() {
    let server = FaultServer::start(|_| Reply::status(503));
    let url = server.url("/oai?verb=Identify");
    let error = Client::new(fast_config().max_retries(2))
        .get(&url)
        .await
        .unwrap_err();
    let FetchError::Status {
        status,
        attempts,
        url: failed,
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(
        (*status, *attempts, failed.as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, 3, &*url)
    );
    let message = error.to_string();
    assert!(
        message.contains(&url) && message.contains("3 attempts"),
        "{message}"
    );
    assert!(message.contains("503"), "{message}");
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn not_found_fails_at_once() {
    let server = FaultServer::start(|_| Reply::status(404));
    let error = fast_client()
        .get(&server.url("/missing"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            FetchError::Status {
                status: StatusCode::NOT_FOUND,
                attempts: 1,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("(1 attempt)"), "{error}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn zero_retries_means_one_attempt() {
    let server = FaultServer::start(|_| Reply::status(500));
    let client = Client::new(fast_config().max_retries(0));
    let error = client.get(&server.url("/oai")).await.unwrap_err();
    assert!(
        matches!(error, FetchError::Status { attempts: 1, .. }),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_first_request_that_cannot_connect_fails_at_once_with_the_cause() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let client = fast_client();
    let url = format!("http://127.0.0.1:{port}/oai?verb=Identify");
    let error = client.get_first(&url).await.unwrap_err();
    assert!(
        matches!(&error, FetchError::Unreachable { cause, .. } if cause == "connection refused"),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "cannot connect to 127.0.0.1:{port}: connection refused; is the URL right? ({url})"
        )
    );
    assert_eq!(client.stats().retries, 0);
    // Later requests (an endpoint that answered before) keep the full retry policy.
    assert!(matches!(
        client.get(&url).await.unwrap_err(),
        FetchError::Network { attempts: 4, .. }
    ));
}

#[tokio::test]
async fn a_first_request_is_retried_once_after_a_server_error() {
    let server = flaky(5, |_| Reply::status(502));
    let error = fast_client()
        .get_first(&server.url("/oai"))
        .await
        .unwrap_err();
    assert!(
        matches!(error, FetchError::Status { attempts: 2, .. }),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 2);
    let server = flaky(1, |_| Reply::status(503));
    fast_client().get_first(&server.url("/oai")).await.unwrap();
    assert_eq!(server.requests().len(), 2);
}

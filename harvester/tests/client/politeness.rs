//! Per-host politeness: one request at a time per host, a pause after each body, shared by
//! clones; different hosts never wait for each other.

use std::time::Duration;

use modoai_harvester::client::Client;

use super::fast_config;
use crate::support::{FaultServer, Reply};

const DELAY: Duration = Duration::from_millis(200);

/// A body that takes a while: 300 ms stall in the middle.
fn slow_body() -> Reply {
    Reply::stall(vec![b'x'; 10_000], 5_000, Duration::from_millis(300))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn same_host_requests_are_serialized_with_the_delay() {
    let server = FaultServer::start(|_| slow_body());
    let client = Client::new(fast_config().delay(DELAY));
    let tasks: Vec<_> = (0..2)
        .map(|i| {
            let (client, url) = (client.clone(), server.url(&format!("/page{i}")));
            tokio::spawn(async move { client.get(&url).await.unwrap().bytes(1 << 20).await })
        })
        .collect();
    for task in tasks {
        assert_eq!(task.await.unwrap().unwrap().len(), 10_000);
    }
    let requests = server.requests();
    let first_done = requests[0].finished.unwrap();
    // The client frees the host only after receiving the whole body, which the server finished
    // sending a moment before; 10 ms of slack covers that moment.
    assert!(
        requests[1].arrived >= first_done + DELAY - Duration::from_millis(10),
        "second request {:?} after the first body",
        requests[1].arrived.saturating_duration_since(first_done)
    );
}

#[tokio::test]
async fn an_unread_response_holds_its_host_but_no_other() {
    let here = FaultServer::start(|_| Reply::ok("body"));
    let elsewhere = FaultServer::start_as("localhost", |_| Reply::ok("body"));
    let client = Client::new(fast_config().delay(DELAY));
    let held = client.get(&here.url("/held")).await.unwrap();

    let other_url = elsewhere.url("/x");
    let other = tokio::time::timeout(Duration::from_secs(20), client.get(&other_url));
    assert!(other.await.expect("another host must not wait").is_ok());

    let same_host = tokio::spawn({
        let (client, url) = (client.clone(), here.url("/next"));
        async move { client.get(&url).await.map(drop) }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        here.requests().len(),
        1,
        "the same host waits while the body is unread"
    );

    drop(held);
    let released = std::time::Instant::now();
    same_host.await.unwrap().unwrap();
    assert!(here.requests()[1].arrived >= released + DELAY);
}

#[tokio::test]
async fn per_host_allows_parallel_requests() {
    let server = FaultServer::start(|_| Reply::ok("body"));
    let client = Client::new(fast_config().per_host(2));
    let first = client.get(&server.url("/1")).await.unwrap();
    let second_url = server.url("/2");
    let second = tokio::time::timeout(Duration::from_secs(20), client.get(&second_url));
    assert!(second.await.expect("a second slot is free").is_ok());
    drop(first);
}

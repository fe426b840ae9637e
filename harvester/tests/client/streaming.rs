//! Bodies: a 100 MiB stream through the blocking reader with bounded buffering, use from a
//! blocking thread, `bytes` limits, and releasing the host when a reader is dropped or stopped.

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use modoai_harvester::client::{Client, FetchError};

use super::{fast_client, fast_config, read_all};
use crate::support::{generated_byte, FaultServer, Reply};

const MIB: u64 = 1 << 20;

/// Checks `chunk` against the generated body at offset `at`.
fn is_generated(chunk: &[u8], at: u64) -> bool {
    chunk
        .iter()
        .zip(at..)
        .all(|(byte, i)| *byte == generated_byte(i))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundred_mib_stream_with_bounded_buffering() {
    const SIZE: u64 = 100 * MIB;
    let server = Arc::new(FaultServer::start(|_| Reply::generated(SIZE)));
    let client = fast_client();
    let response = client.get(&server.url("/big")).await.unwrap();
    let mut reader = response.into_reader(&tokio::runtime::Handle::current());
    let watched = Arc::clone(&server);
    let (total, ahead) = tokio::task::spawn_blocking(move || {
        let mut buf = vec![0; 64 * 1024];
        let (mut total, mut ahead) = (0u64, None);
        loop {
            let n = reader.read(&mut buf).unwrap();
            if n == 0 {
                break (total, ahead.unwrap());
            }
            // Checking every byte at opt-level 0 is slow; the first and last 64 bytes of each
            // read catch misplaced, lost or repeated chunks.
            let edge = n.min(64);
            assert!(is_generated(&buf[..edge], total), "at {total}");
            assert!(
                is_generated(&buf[n - edge..n], total + (n - edge) as u64),
                "at {total}"
            );
            total += n as u64;
            if ahead.is_none() && total >= MIB {
                // A slow parser: the server must be held back, not buffered for.
                std::thread::sleep(Duration::from_millis(500));
                ahead = Some(watched.body_bytes_sent() - total);
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(total, SIZE);
    assert_eq!(client.stats().bytes_received, SIZE);
    // Queue (8 chunks) + hyper's buffer + both socket buffers: a few MiB, never the body.
    assert!(
        ahead < 32 * MIB,
        "server ran {} MiB ahead of the reader",
        ahead / MIB
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn block_on_from_a_blocking_thread() {
    let server = FaultServer::start(|_| Reply::ok("from a blocking thread"));
    let (client, url) = (fast_client(), server.url("/oai"));
    let handle = tokio::runtime::Handle::current();
    let body = tokio::task::spawn_blocking(move || {
        let response = handle.block_on(client.get(&url)).unwrap();
        let mut text = String::new();
        response
            .into_reader(&handle)
            .read_to_string(&mut text)
            .unwrap();
        text
    })
    .await
    .unwrap();
    assert_eq!(body, "from a blocking thread");
}

#[tokio::test]
async fn block_on_from_a_blocking_thread_of_a_current_thread_runtime() {
    let server = FaultServer::start(|_| Reply::ok("current thread"));
    let (client, url) = (fast_client(), server.url("/oai"));
    let handle = tokio::runtime::Handle::current();
    let body = tokio::task::spawn_blocking(move || {
        let response = handle.block_on(client.get(&url)).unwrap();
        handle.block_on(response.bytes(100)).unwrap()
    })
    .await
    .unwrap();
    assert_eq!(&body[..], b"current thread");
}

#[tokio::test]
async fn chunked_body_reads_whole() {
    let body: Vec<u8> = (0..300_000u32).map(|i| (i % 7) as u8).collect();
    let expected = body.clone();
    let server = FaultServer::start(move |_| Reply::ok(body.clone()).chunked());
    let response = fast_client().get(&server.url("/oai")).await.unwrap();
    assert_eq!(read_all(response).await.unwrap(), expected);
}

#[tokio::test]
async fn bytes_enforces_its_limit() {
    let server = FaultServer::start(|req| {
        let reply = Reply::ok(vec![b'x'; 1000]);
        if req.path() == "/chunked" {
            reply.chunked()
        } else {
            reply
        }
    });
    let client = fast_client();
    for path in ["/length", "/chunked"] {
        let response = client.get(&server.url(path)).await.unwrap();
        let error = response.bytes(999).await.unwrap_err();
        assert!(
            matches!(error, FetchError::BodyTooLarge { limit: 999, .. }),
            "{error:?}"
        );
    }
    let response = client.get(&server.url("/length")).await.unwrap();
    assert_eq!(response.bytes(1000).await.unwrap().len(), 1000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_reader_releases_the_host() {
    let server = FaultServer::start(|req| match req.path() {
        "/big" => Reply::generated(50 * MIB),
        _ => Reply::ok("next"),
    });
    let client = Client::new(fast_config().per_host(1));
    let response = client.get(&server.url("/big")).await.unwrap();
    let mut reader = response.into_reader(&tokio::runtime::Handle::current());
    tokio::task::spawn_blocking(move || {
        reader.read_exact(&mut [0; 1000]).unwrap();
        drop(reader);
    })
    .await
    .unwrap();
    let next_url = server.url("/next");
    let next = tokio::time::timeout(Duration::from_secs(20), client.get(&next_url));
    let body = next
        .await
        .expect("the host was released")
        .unwrap()
        .bytes(10)
        .await
        .unwrap();
    assert_eq!(&body[..], b"next");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopper_ends_a_read_waiting_on_a_stalled_body_and_releases_the_host() {
    let server = FaultServer::start(|req| match req.path() {
        "/stalled" => Reply::stall(vec![b'x'; 1000], 10, Duration::from_secs(600)),
        _ => Reply::ok("next"),
    });
    let client = Client::new(fast_config().per_host(1));
    let response = client.get(&server.url("/stalled")).await.unwrap();
    let mut reader = response.into_reader(&tokio::runtime::Handle::current());
    let stopper = reader.stopper();
    let reading = tokio::task::spawn_blocking(move || {
        let mut body = Vec::new();
        let error = reader.read_to_end(&mut body).unwrap_err();
        (body.len(), error)
    });
    // The reader has the first ten bytes and waits for the rest.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!reading.is_finished(), "the read did not wait");
    stopper.stop();
    let (read, error) = tokio::time::timeout(Duration::from_secs(20), reading)
        .await
        .expect("the stopped read ended")
        .unwrap();
    assert_eq!(read, 10);
    assert_eq!(error.kind(), std::io::ErrorKind::Other, "{error}");
    let next_url = server.url("/next");
    let next = tokio::time::timeout(Duration::from_secs(20), client.get(&next_url));
    let body = next.await.expect("the host was released").unwrap();
    assert_eq!(&body.bytes(10).await.unwrap()[..], b"next");
}

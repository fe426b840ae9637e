//! The standalone server's connection bounds: a slowloris client is disconnected after
//! the header timeout without holding up others, idle keep-alive connections are closed, and
//! connections beyond `max-connections` wait for a free slot instead of breaking the server.
//! Timeouts in these tests only detect hangs; they are no performance thresholds.

use std::time::Duration;

use integration_tests::{Server, TestSite};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Longest any step may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(60);

fn site() -> TestSite {
    let site = TestSite::empty();
    site.write("a.txt", b"hello", None);
    site
}

/// Reads until the peer closes the connection (or resets it); panics on a hang.
async fn until_closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    let read = async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(HANG, read)
        .await
        .expect("the server closes the connection");
    got
}

/// Sends a keep-alive GET of `/a.txt` on `stream` and reads its response (ending in `hello`).
async fn get_a(stream: &mut TcpStream) {
    stream
        .write_all(b"GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n")
        .await
        .unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !got.ends_with(b"hello") {
        let n = tokio::time::timeout(HANG, stream.read(&mut buf))
            .await
            .expect("a response")
            .unwrap();
        assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&buf[..n]);
    }
    assert!(got.starts_with(b"HTTP/1.1 200"), "{got:?}");
}

#[tokio::test]
async fn a_slowloris_client_is_disconnected_and_blocks_no_one() {
    let site = site();
    let server = Server::start(site.path(), |c| c.header_timeout(Duration::from_secs(2))).await;
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    let (mut reader, mut writer) = slow.split();
    let request = b"GET /a.txt HTTP/1.1\r\nHost: t\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";
    let drip = async {
        for &byte in request.iter() {
            if writer.write_all(&[byte]).await.is_err() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        false
    };
    let watch = async {
        let mut buf = [0u8; 1024];
        // Whatever the server says (an error status at most), it then closes.
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    let others = async {
        for _ in 0..3 {
            let r = server.get(&server.id("a.txt")).await;
            assert_eq!(r.body.as_ref(), b"hello", "others are served meanwhile");
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    };
    let (closed, ()) = tokio::time::timeout(HANG, async {
        tokio::join!(
            async {
                tokio::select! {
                    sent_all = drip => !sent_all,
                    () = watch => true,
                }
            },
            others
        )
    })
    .await
    .expect("no hang");
    assert!(
        closed,
        "the server closed the slow connection before the headers were complete"
    );
    assert_eq!(server.get(&server.id("a.txt")).await.status, 200);
}

#[tokio::test]
async fn a_silent_connection_is_closed_after_the_header_timeout() {
    let site = site();
    let server = Server::start(site.path(), |c| c.header_timeout(Duration::from_secs(1))).await;
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    assert!(until_closed(&mut silent).await.is_empty(), "nothing sent");
    // A client that starts an HTTP/2 preface and stops is closed too.
    let mut partial = TcpStream::connect(server.addr).await.unwrap();
    partial.write_all(b"PRI * HT").await.unwrap();
    until_closed(&mut partial).await;
    assert_eq!(server.get(&server.id("a.txt")).await.status, 200);
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    let site = site();
    let server = Server::start(site.path(), |c| c.header_timeout(Duration::from_secs(1))).await;
    let mut conn = TcpStream::connect(server.addr).await.unwrap();
    get_a(&mut conn).await;
    get_a(&mut conn).await;
    assert!(until_closed(&mut conn).await.is_empty());
}

#[tokio::test]
async fn connections_beyond_the_limit_wait_for_a_free_slot() {
    let site = site();
    let server = Server::start(site.path(), |c| {
        c.max_connections(4)
            .header_timeout(Duration::from_secs(120))
    })
    .await;
    // The test client's pooled keep-alive connection (its readiness probes ran one after the
    // other on it) holds one slot; three idle connections take the other three.
    let mut idle = Vec::new();
    for _ in 0..3 {
        idle.push(TcpStream::connect(server.addr).await.unwrap());
    }
    // Slots are taken in accept order; make sure each idle connection was accepted, by a
    // request on each.
    for conn in &mut idle {
        get_a(conn).await;
    }
    let mut waiting = TcpStream::connect(server.addr).await.unwrap();
    waiting
        .write_all(b"GET /a.txt HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 16];
    let early = tokio::time::timeout(Duration::from_millis(500), waiting.peek(&mut buf)).await;
    assert!(
        early.is_err(),
        "with every slot taken the fifth connection is not served yet"
    );
    drop(idle.pop());
    let answer = until_closed(&mut waiting).await;
    assert!(answer.starts_with(b"HTTP/1.1 200"), "{answer:?}");
    assert!(answer.ends_with(b"hello"));

    // Many more than the limit, all dropped: the server serves on.
    let mut crowd = Vec::new();
    for _ in 0..64 {
        crowd.push(TcpStream::connect(server.addr).await.unwrap());
    }
    drop(crowd);
    drop(idle);
    for _ in 0..3 {
        let r = tokio::time::timeout(HANG, server.get(&server.id("a.txt")))
            .await
            .expect("served after the crowd left");
        assert_eq!(r.body.as_ref(), b"hello");
    }
    server.oai("verb=Identify").await.assert_valid();
}

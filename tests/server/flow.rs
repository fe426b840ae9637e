//! Flow control of the OAI-PMH route against the standalone server: per-client rate
//! limits answered with 503 and a Retry-After computed from the bucket, recovery after it, the
//! bound on enhanced responses held while a long `oai_didl` body streams, and plain GETs of the
//! site never limited. Timeouts only detect hangs; waits follow the server's Retry-After.

use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use integration_tests::{Reply, Server, TestSite};
use modoai::access::{hash_api_key, AccessRules, Rule};
use modoai::flow::FlowLimits;

const KEY: &str = "key-A-0123456789abcdefghijklmnopqrstuv";
const KEY2: &str = "key-B-0123456789abcdefghijklmnopqrstuv";
const HANG: Duration = Duration::from_secs(60);

fn site() -> TestSite {
    let site = TestSite::empty();
    for i in 0..3 {
        site.write(&format!("f{i}.txt"), b"hello", Some(1_600_000_000 + i));
    }
    site
}

fn retry_after(r: &Reply) -> u64 {
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text());
    r.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .expect("numeric Retry-After")
}

async fn with_key(server: &Server, query: &str, key: &str) -> Reply {
    let req = Request::get(format!("{}?{query}", server.oai))
        .header("authorization", format!("Bearer {key}"))
        .body(Full::<Bytes>::default())
        .unwrap();
    server.send(req).await
}

#[tokio::test]
async fn rate_limits_answer_503_with_retry_after_and_recover() {
    let site = site();
    let limits = FlowLimits::new().format_rate("oai_dc", 0.5, 2).unwrap();
    let server = Server::start(site.path(), |c| c.flow(limits)).await;
    let q = "verb=ListIdentifiers&metadataPrefix=oai_dc";
    server.oai(q).await.assert_valid();
    server.oai(q).await.assert_valid();
    let r = server.oai(q).await;
    let wait = retry_after(&r);
    assert_eq!(wait, 2, "one token at 0.5 per second");
    // Requests without a format have no limit here, and the site is never limited.
    server.oai("verb=Identify").await.assert_valid();
    assert_eq!(
        server.get(&format!("{}f0.txt", server.base)).await.status,
        StatusCode::OK
    );
    tokio::time::sleep(Duration::from_secs(wait)).await;
    server.oai(q).await.assert_valid();
    server.stop().await;
}

#[tokio::test]
async fn the_global_rate_counts_every_oai_request() {
    let site = site();
    let limits = FlowLimits::new().rate(0.2, 3).unwrap();
    let server = Server::start(site.path(), |c| c.flow(limits)).await;
    // The start-up probe took some tokens; use up the rest.
    let mut limited = None;
    for _ in 0..4 {
        let r = server.oai("verb=Identify").await;
        if r.status != StatusCode::OK {
            limited = Some(r);
            break;
        }
        r.assert_valid();
    }
    let r = limited.expect("the bucket ran out");
    assert_eq!(retry_after(&r), 5, "one token at 0.2 per second");
    let r = server.oai("verb=ListSets").await;
    assert!(retry_after(&r) >= 1);
    server.stop().await;
}

#[tokio::test]
async fn each_credential_has_its_own_bucket() {
    let site = site();
    let rules = AccessRules::new()
        .api_key("a", &hash_api_key(KEY).unwrap())
        .unwrap()
        .api_key("b", &hash_api_key(KEY2).unwrap())
        .unwrap()
        .format("oai_didl", Rule::restricted().keys(["a", "b"]))
        .unwrap();
    let limits = FlowLimits::new().format_rate("oai_didl", 0.01, 1).unwrap();
    let server = Server::start(site.path(), |c| c.access(rules).flow(limits)).await;
    let q = "verb=ListIdentifiers&metadataPrefix=oai_didl";
    with_key(&server, q, KEY).await.assert_valid();
    let r = with_key(&server, q, KEY).await;
    assert_eq!(retry_after(&r), 100);
    with_key(&server, q, KEY2).await.assert_valid();
    // Refused requests are refused before they cost a token.
    assert_eq!(server.oai(q).await.status, StatusCode::UNAUTHORIZED);
    server.stop().await;
}

#[tokio::test]
async fn enhanced_responses_are_bounded_while_a_long_body_streams() {
    let site = TestSite::empty();
    // Large enough that its Base64 cannot all sit in socket buffers while the client reads nothing.
    let big: Vec<u8> = (0..48u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    site.write("big.bin", &big, None);
    site.write("small.txt", b"hello", None);
    let limits = FlowLimits::new()
        .max_enhanced(1)
        .busy_retry_after(3)
        .rate(1000.0, 1000)
        .unwrap();
    let server = Server::start(site.path(), |c| c.flow(limits).inline_max(64 << 20)).await;
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let long = format!(
        "{}?verb=GetRecord&metadataPrefix=oai_didl&identifier={}",
        server.oai,
        server.id("big.bin")
    );
    let streaming = tokio::time::timeout(HANG, client.get(long.parse().unwrap()))
        .await
        .expect("response head")
        .unwrap();
    assert_eq!(streaming.status(), StatusCode::OK);
    // The body is not read: the permit stays taken.
    let small = format!(
        "verb=GetRecord&metadataPrefix=oai_didl&identifier={}",
        server.id("small.txt")
    );
    for q in [small.as_str(), "verb=ListRecords&metadataPrefix=oai_didl"] {
        assert_eq!(retry_after(&server.oai(q).await), 3, "{q}");
    }
    // Other requests are not enhanced responses.
    server
        .oai("verb=ListIdentifiers&metadataPrefix=oai_didl")
        .await
        .assert_valid();
    server
        .oai(&format!(
            "verb=GetRecord&metadataPrefix=oai_dc&identifier={}",
            server.id("small.txt")
        ))
        .await
        .assert_valid();
    // Plain GETs of the site, even the same file, are never limited.
    for _ in 0..5 {
        let r = server.get(&format!("{}big.bin", server.base)).await;
        assert_eq!(r.status, StatusCode::OK);
        assert_eq!(r.body.len(), big.len());
    }
    // Reading the body to its end releases the permit.
    let body = tokio::time::timeout(HANG, streaming.into_body().collect())
        .await
        .expect("the body ends")
        .unwrap()
        .to_bytes();
    assert!(body.len() > big.len());
    let admitted = tokio::time::timeout(HANG, async {
        loop {
            let r = server.oai(&small).await;
            if r.status == StatusCode::OK {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the permit is released");
    admitted.assert_valid();
    server.stop().await;
}

#[tokio::test]
async fn a_dropped_response_releases_its_permit() {
    let site = TestSite::empty();
    let big: Vec<u8> = (0..32u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    site.write("big.bin", &big, None);
    let limits = FlowLimits::new().max_enhanced(1);
    let server = Server::start(site.path(), |c| c.flow(limits).inline_max(64 << 20)).await;
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let q = format!(
        "verb=GetRecord&metadataPrefix=oai_didl&identifier={}",
        server.id("big.bin")
    );
    let streaming = client
        .get(format!("{}?{q}", server.oai).parse().unwrap())
        .await
        .unwrap();
    assert_eq!(streaming.status(), StatusCode::OK);
    assert_eq!(server.oai(&q).await.status, StatusCode::SERVICE_UNAVAILABLE);
    drop(streaming);
    drop(client);
    let r = tokio::time::timeout(HANG, async {
        loop {
            let r = server.oai(&q).await;
            if r.status == StatusCode::OK {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the permit is released when the client goes away");
    assert!(r.body.len() > big.len());
    server.stop().await;
}

#[tokio::test]
async fn saturated_limits_never_touch_plain_gets() {
    let site = site();
    let limits = FlowLimits::new().rate(0.01, 1).unwrap();
    let server = Server::start(site.path(), |c| c.flow(limits)).await;
    let r = server.oai("verb=Identify").await;
    assert_eq!(
        r.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "the start-up probe used the only token"
    );
    for i in 0..50 {
        let r = server.get(&format!("{}f{}.txt", server.base, i % 3)).await;
        assert_eq!(r.status, StatusCode::OK);
        assert_eq!(r.body, "hello");
    }
    server.stop().await;
}

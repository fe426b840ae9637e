//! Request details: `User-Agent`, redirects, bad URLs.

use modoai_harvester::client::{Client, FetchError, DEFAULT_USER_AGENT, MAX_REDIRECTS};

use super::{fast_client, fast_config};
use crate::support::{FaultServer, Reply};

#[tokio::test]
async fn user_agent_is_sent() {
    let server = FaultServer::start(|_| Reply::ok(""));
    fast_client().get(&server.url("/a")).await.unwrap();
    let custom = Client::new(fast_config().user_agent("test-harvester/1.0"));
    custom.get(&server.url("/b")).await.unwrap();
    let requests = server.requests();
    assert_eq!(requests[0].header("User-Agent"), Some(DEFAULT_USER_AGENT));
    assert!(DEFAULT_USER_AGENT.starts_with("modoai-harvester/"));
    assert_eq!(requests[1].header("user-agent"), Some("test-harvester/1.0"));
    assert_eq!(requests[1].method, "GET");
}

#[tokio::test]
async fn redirects_are_followed_across_hosts() {
    let target = FaultServer::start(|_| Reply::ok("there"));
    let absolute = target.url("/final?verb=Identify");
    let server = FaultServer::start(move |req| match req.path() {
        "/start" => Reply::redirect(301, "next?x=1"),
        _ => Reply::redirect(307, &absolute),
    });
    let client = fast_client();
    let response = client.get(&server.url("/start")).await.unwrap();
    assert_eq!(response.url, target.url("/final?verb=Identify"));
    assert_eq!(&response.bytes(100).await.unwrap()[..], b"there");
    assert_eq!(server.requests()[1].target, "/next?x=1");
    let stats = client.stats();
    assert_eq!((stats.requests, stats.redirects, stats.retries), (3, 2, 0));
}

#[tokio::test]
async fn redirect_loop_stops() {
    let server = FaultServer::start(|_| Reply::redirect(302, "/loop"));
    let error = fast_client().get(&server.url("/loop")).await.unwrap_err();
    assert!(
        matches!(error, FetchError::TooManyRedirects { limit: 10, .. }),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), MAX_REDIRECTS as usize + 1);
}

#[tokio::test]
async fn redirect_without_location_fails() {
    let server = FaultServer::start(|_| Reply::status(302));
    let error = fast_client().get(&server.url("/oai")).await.unwrap_err();
    assert!(matches!(error, FetchError::BadRedirect { .. }), "{error:?}");
}

#[tokio::test]
async fn bad_urls_are_rejected_without_a_request() {
    let client = fast_client();
    for url in ["not a url", "ftp://example.org/oai", "/relative/oai"] {
        let error = client.get(url).await.unwrap_err();
        assert!(
            matches!(error, FetchError::BadUrl { .. }),
            "{url}: {error:?}"
        );
        assert!(error.to_string().contains(url), "{error}");
    }
    assert_eq!(client.stats().requests, 0);
}

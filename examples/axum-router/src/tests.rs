//! The app driven in memory with `oneshot`: no sockets.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;

use super::*;

const BASE: &str = "http://site.example/";

/// The visible regular files of `examples/site`, as encoded URL paths.
const EXAMPLE_FILES: [&str; 14] = [
    "about.html",
    "data/catalog.xml",
    "data/logo-copy",
    "data/measurements.csv",
    "data/station.json",
    "docs/readme.txt",
    "docs/report.pdf",
    "images/banner.tiff",
    "images/icon.svg",
    "images/logo.png",
    "images/pattern.gif",
    "images/sunset.jpg",
    "index.html",
    "notes%20and%20drafts/minutes%20%E2%80%93%20draft%20%231.txt",
];

async fn send(app: &Router, req: Request<Body>) -> (StatusCode, header::HeaderMap, Bytes) {
    let res = app.clone().oneshot(req).await.unwrap();
    let (parts, body) = res.into_parts();
    (
        parts.status,
        parts.headers,
        body.collect().await.unwrap().to_bytes(),
    )
}

async fn get(app: &Router, uri: &str) -> (StatusCode, header::HeaderMap, Bytes) {
    send(app, Request::get(uri).body(Body::empty()).unwrap()).await
}

/// GETs an OAI-PMH URL, retrying while the index is still being built (503).
async fn get_oai(app: &Router, uri: &str) -> (StatusCode, header::HeaderMap, Bytes) {
    for _ in 0..200 {
        let res = get(app, uri).await;
        if res.0 != StatusCode::SERVICE_UNAVAILABLE {
            return res;
        }
        assert!(
            res.1.contains_key(header::RETRY_AFTER),
            "a 503 says when to retry"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the index was not ready within 10 s");
}

/// The text content of every `<name>` element, in document order.
fn texts(xml: &[u8], name: &str) -> Vec<String> {
    let xml = std::str::from_utf8(xml).unwrap();
    let (open, close) = (format!("<{name}>"), format!("</{name}>"));
    xml.split(&open)
        .skip(1)
        .map(|s| s.split(&close).next().unwrap().to_owned())
        .collect()
}

fn test_app() -> Router {
    app(site_root(), BASE).unwrap()
}

#[tokio::test]
async fn ordinary_routes_still_answer() {
    let (status, _, body) = get(&test_app(), "/hello").await;
    assert_eq!(
        (status, body.as_ref()),
        (StatusCode::OK, &b"Hello from axum\n"[..])
    );
}

#[tokio::test]
async fn files_pass_through_serve_dir_unchanged() {
    let (status, headers, body) = get(&test_app(), "/images/logo.png").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[header::CONTENT_TYPE], "image/png");
    assert_eq!(
        body,
        std::fs::read(site_root().join("images/logo.png")).unwrap()
    );
}

#[tokio::test]
async fn identify_answers_on_the_oai_route() {
    let (status, headers, body) = get_oai(&test_app(), "/modoai?verb=Identify").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[header::CONTENT_TYPE], "text/xml; charset=UTF-8");
    assert!(
        body.windows(10).any(|w| w == b"<Identify>"),
        "{}",
        String::from_utf8_lossy(&body)
    );
    assert_eq!(texts(&body, "baseURL"), ["http://site.example/modoai"]);
}

#[tokio::test]
async fn list_identifiers_lists_the_site_files() {
    let (status, _, body) = get_oai(
        &test_app(),
        "/modoai?verb=ListIdentifiers&metadataPrefix=oai_dc",
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let mut ids = texts(&body, "identifier");
    ids.sort();
    let expected: Vec<String> = EXAMPLE_FILES.iter().map(|p| format!("{BASE}{p}")).collect();
    assert_eq!(ids, expected, "hidden files stay out; the rest is one page");
}

#[tokio::test]
async fn identify_by_post() {
    // OAI-PMH §3.1.1.2: arguments may come as an application/x-www-form-urlencoded body.
    let req = Request::post("/modoai")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from("verb=Identify"))
        .unwrap();
    let app = test_app();
    get_oai(&app, "/modoai?verb=Identify").await;
    let (status, headers, body) = send(&app, req).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[header::CONTENT_TYPE], "text/xml; charset=UTF-8");
    assert_eq!(texts(&body, "repositoryName"), ["modoai axum example"]);
}

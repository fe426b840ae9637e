//! WARC exports through the API in this process: a `warcinfo` record, then every capture's
//! record and its CRATE record once, as stored; the whole export charged to the quota before
//! the answer starts; an export of nothing is the `warcinfo` alone; a client that goes away
//! stops the work.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use futures_util::StreamExt;
use modoai_archive::any::{Found, ReadOptions, RecordKind, Records, Source};
use tower::ServiceExt;

use super::export::{key, server, CAPTURES};

/// GET `target`, the status and the whole body.
async fn get(app: &Router, target: &str, auth: Option<&str>) -> (StatusCode, Vec<u8>) {
    let mut request = Request::get(target);
    if let Some(a) = auth {
        request = request.header("authorization", a);
    }
    let response = app
        .clone()
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let body = axum::body::to_bytes(response.into_body(), 1 << 30)
        .await
        .unwrap();
    (status, body.to_vec())
}

/// The records of a `.warc.gz`, as `(type, target URI)`, read by the archive crate's reader of
/// any WARC; every byte must be a record.
fn records(warc: &[u8], work: &Path) -> Vec<(String, String)> {
    let path = work.join("export.warc.gz");
    std::fs::write(&path, warc).unwrap();
    let mut out = Vec::new();
    for found in Records::open(&Source::file(&path), ReadOptions::default()).unwrap() {
        match found {
            Found::Record(r) => {
                assert!(r.location.length > 0);
                let uri = r.fields.target_uri.clone().unwrap_or_default();
                out.push((kind(&r.kind).to_owned(), uri));
            }
            Found::Skipped(s) => panic!("bytes that are no record: {s:?}"),
        }
    }
    out
}

fn kind(k: &RecordKind) -> &'static str {
    match k {
        RecordKind::Warcinfo => "warcinfo",
        RecordKind::Resource => "resource",
        RecordKind::Metadata => "metadata",
        RecordKind::Response => "response",
        RecordKind::Revisit(_) => "revisit",
        _ => "other",
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warc_export_holds_every_capture_and_its_crate_record_once_after_a_warcinfo() {
    let work = tempfile::tempdir().unwrap();
    let (app, _) = server(work.path());
    let (status, warc) = get(&app, "/api/v1/export?format=warc&sort=oldest", None).await;
    assert_eq!(status, StatusCode::OK);
    let all = records(&warc, work.path());
    assert_eq!(all[0].0, "warcinfo");
    let mut by_kind: HashMap<&str, Vec<&str>> = HashMap::new();
    for (k, uri) in &all[1..] {
        by_kind.entry(k).or_default().push(uri);
    }
    let resources = &by_kind["resource"];
    assert_eq!(resources.len() as u64, CAPTURES, "every capture, once");
    // The synthetic archive writes a CRATE record for each JPEG, one capture in five.
    assert_eq!(by_kind["metadata"].len() as u64, CAPTURES / 5);
    // The first member: the warcinfo.
    let mut text = String::new();
    let mut first = flate2::read::GzDecoder::new(&warc[..]);
    std::io::Read::read_to_string(&mut first, &mut text).unwrap();
    assert!(text.contains("software: modoai-explorer/"), "{text}");
    assert!(text.contains("search: sort=oldest\r\n"), "{text}");
    assert!(
        text.contains(&format!("captures: {CAPTURES}\r\n")),
        "{text}"
    );

    // Only what the search finds: the JPEGs and their CRATE records.
    let (_, jpegs) = get(&app, "/api/v1/export?format=warc&mime=image/jpeg", None).await;
    let jpegs = records(&jpegs, work.path());
    let count = |k: &str| jpegs.iter().filter(|(kind, _)| kind == k).count() as u64;
    assert_eq!(
        (count("resource"), count("metadata")),
        (CAPTURES / 5, CAPTURES / 5)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warc_export_of_nothing_is_its_warcinfo_and_one_past_the_quota_a_429() {
    let work = tempfile::tempdir().unwrap();
    let (app, _) = server(work.path());
    let (status, warc) = get(&app, "/api/v1/export?format=warc&q=zzzzqqqq", None).await;
    assert_eq!(status, StatusCode::OK);
    let all = records(&warc, work.path());
    assert_eq!(all, [("warcinfo".to_owned(), String::new())]);

    // Five pages of captures do not fit a quota of three: refused before any byte.
    let auth = key(work.path(), "three", Some(3), &[]);
    let (status, body) = get(&app, "/api/v1/export?format=warc", Some(&auth)).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    let body = String::from_utf8(body).unwrap();
    assert!(body.contains("quota"), "{body}");
    // What fits is charged whole before it starts.
    let auth = key(work.path(), "five", Some(5), &[]);
    let (status, _) = get(&app, "/api/v1/export?format=warc", Some(&auth)).await;
    assert_eq!(status, StatusCode::OK);
    // The request and its four more pages spent the quota of five: the next call is refused.
    let (status, me) = get(&app, "/api/v1/me", Some(&auth)).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{me:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_goes_away_stops_the_warc_export() {
    let work = tempfile::tempdir().unwrap();
    let (app, state) = server(work.path());
    let response = app
        .clone()
        .oneshot(
            Request::get("/api/v1/export?format=warc")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "application/warc");
    let mut body = response.into_body().into_data_stream();
    assert!(!body.next().await.unwrap().unwrap().is_empty());
    assert_eq!(state.exporting.load(Ordering::SeqCst), 1);
    drop(body);
    let started = Instant::now();
    while state.exporting.load(Ordering::SeqCst) > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the export still runs"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

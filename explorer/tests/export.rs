//! Exports of a search through the API in this process: every capture once, a last line that
//! says whether the export is complete, the key's scope and quota, empty exports, bad formats,
//! and a client that goes away (the server's work stops).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use futures_util::StreamExt;
use modoai_explorer::config::AccessConfig;
use modoai_explorer::keys::KeyFile;
use modoai_explorer::search::Library;
use modoai_explorer::serve::router;
use modoai_explorer::web::AppState;
use tower::ServiceExt;

use super::{index, synthetic};

/// Captures of the shared archive: a few pages of an export.
pub(super) const CAPTURES: u64 = 4500;

/// One synthetic archive of [`CAPTURES`] captures, indexed once per run.
fn archive() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("export-archive");
        let _ = std::fs::remove_dir_all(&dir);
        synthetic(&dir, 0, CAPTURES, 10);
        index(&dir);
        dir
    })
}

/// A server over the archive with anonymous API calls, and a key file in `work`.
pub(super) fn server(work: &Path) -> (Router, Arc<AppState>) {
    let library = Library::new(&[archive().to_owned()], Duration::from_secs(30));
    for a in library.archives() {
        a.reopen().unwrap();
    }
    let access = AccessConfig {
        anonymous_api: true,
        ..AccessConfig::default()
    };
    let state = Arc::new(AppState::new(Arc::new(library), access, work.join("keys.toml")).unwrap());
    (router(Arc::clone(&state)), state)
}

/// A key `name` with `quota` and `scope` in `work`'s key file.
pub(super) fn key(work: &Path, name: &str, quota: Option<u64>, scope: &[&str]) -> String {
    let scope = scope.iter().map(|s| s.parse().unwrap()).collect();
    let key = KeyFile::load(&work.join("keys.toml"))
        .unwrap()
        .add(name, quota, None, scope)
        .unwrap();
    format!("Bearer {key}")
}

/// GET `target`, the whole body.
async fn get(app: &Router, target: &str, auth: Option<&str>) -> (StatusCode, String) {
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
    let body = axum::body::to_bytes(response.into_body(), 256 << 20)
        .await
        .unwrap();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_csv_export_has_every_capture_once_and_says_it_is_complete() {
    let work = tempfile::tempdir().unwrap();
    let (app, _) = server(work.path());
    let (status, csv) = get(&app, "/api/v1/export?format=csv&sort=oldest", None).await;
    assert_eq!(status, 200, "{csv}");
    let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert!(lines[0].starts_with("id,url,time,mime,"), "{}", lines[0]);
    assert_eq!(
        *lines.last().unwrap(),
        format!("# complete: {CAPTURES} captures")
    );
    let ids: std::collections::HashSet<&str> = lines[1..lines.len() - 1]
        .iter()
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(ids.len() as u64, CAPTURES, "every capture, once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jsonl_export_stays_in_the_keys_scope() {
    let work = tempfile::tempdir().unwrap();
    let (app, _) = server(work.path());
    let auth = key(work.path(), "html", None, &["mime:text/html"]);
    let (_, page) = get(&app, "/api/v1/search?size=1", Some(&auth)).await;
    let in_scope: serde_json::Value = serde_json::from_str(&page).unwrap();
    let (status, jsonl) = get(&app, "/api/v1/export?format=jsonl", Some(&auth)).await;
    assert_eq!(status, 200, "{jsonl}");
    let lines: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (last, captures) = lines.split_last().unwrap();
    assert!(captures.iter().all(|c| c["mime"] == "text/html"));
    assert_eq!(captures.len() as u64, in_scope["total"].as_u64().unwrap());
    assert_eq!(
        *last,
        serde_json::json!({"complete": true, "captures": captures.len()})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_of_nothing_is_an_empty_but_valid_file_and_a_bad_format_a_400() {
    let work = tempfile::tempdir().unwrap();
    let (app, _) = server(work.path());
    let nothing = "q=zzzzqqqq";
    let (_, csv) = get(&app, &format!("/api/v1/export?format=csv&{nothing}"), None).await;
    assert!(csv.ends_with("\r\n# complete: 0 captures\r\n"), "{csv}");
    assert_eq!(
        csv.lines().count(),
        2,
        "the header and the last line: {csv}"
    );
    let (_, jsonl) = get(
        &app,
        &format!("/api/v1/export?format=jsonl&{nothing}"),
        None,
    )
    .await;
    assert_eq!(jsonl, "{\"captures\":0,\"complete\":true}\n");
    let (_, xml) = get(
        &app,
        &format!("/api/v1/export?format=corpus&{nothing}"),
        None,
    )
    .await;
    assert!(xml.contains("<count>0</count>") && xml.trim_end().ends_with("</corpus>"));
    assert!(!xml.contains("<part "), "{xml}");
    for (query, says) in [
        (
            "format=warcx",
            "is not an export format: use csv, jsonl, cdxj, corpus, warc or wacz",
        ),
        ("q=x", "give format="),
        ("format=csv&colour=red", "unknown parameter"),
    ] {
        let (status, body) = get(&app, &format!("/api/v1/export?{query}"), None).await;
        assert_eq!(status, 400, "{query}");
        assert!(body.contains(says), "{query}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quota_spent_mid_export_ends_it_with_a_line_that_says_so() {
    let work = tempfile::tempdir().unwrap();
    let (app, _) = server(work.path());
    let auth = key(work.path(), "three", Some(3), &[]);
    let (status, csv) = get(&app, "/api/v1/export?format=csv", Some(&auth)).await;
    assert_eq!(status, 200);
    let last = csv.lines().last().unwrap();
    assert!(
        last.starts_with("# incomplete: 3000 captures; the hourly quota of 3 requests is spent"),
        "{last}"
    );
    assert_eq!(csv.lines().count(), 1 + 3000 + 1);
    // A corpus states its count before its parts: it must fit the quota before it starts.
    let auth = key(work.path(), "four", Some(4), &[]);
    let (status, body) = get(&app, "/api/v1/export?format=corpus", Some(&auth)).await;
    assert_eq!(status, 429, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_goes_away_stops_the_export() {
    let work = tempfile::tempdir().unwrap();
    let (app, state) = server(work.path());
    let auth = key(work.path(), "gone", Some(1000), &[]);
    let response = app
        .clone()
        .oneshot(
            Request::get("/api/v1/export?format=jsonl")
                .header("authorization", auth.as_str())
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(
        response.headers()["x-export-captures"],
        CAPTURES.to_string().as_str()
    );
    let mut body = response.into_body().into_data_stream();
    let first = body.next().await.unwrap().unwrap();
    assert!(!first.is_empty());
    assert_eq!(
        state.exporting.load(Ordering::SeqCst),
        1,
        "one export running"
    );
    drop(body);
    let started = Instant::now();
    while state.exporting.load(Ordering::SeqCst) > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the export still runs"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (_, me) = get(&app, "/api/v1/me", Some(&auth)).await;
    let me: serde_json::Value = serde_json::from_str(&me).unwrap();
    // The request, the page waiting for the client and the one being sent, and this call; the
    // whole export would have counted 1 + 4 (five pages) + 1.
    assert!(me["used"].as_u64().unwrap() <= 4, "{me}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cdxj_export_is_the_archives_sorted_lines_of_the_search() {
    let work = tempfile::tempdir().unwrap();
    let (app, _) = server(work.path());
    let own = std::fs::read_to_string(archive().join("index.cdxj")).unwrap();
    let own: std::collections::HashSet<&str> = own.lines().collect();
    for (query, expected) in [
        ("", CAPTURES),
        ("&mime=text/html", 0),
        ("&sort=oldest&q=zzzzqqqq", 0),
    ] {
        let (status, cdxj) = get(&app, &format!("/api/v1/export?format=cdxj{query}"), None).await;
        assert_eq!(status, 200, "{cdxj}");
        let lines: Vec<&str> = cdxj.lines().collect();
        let mut sorted = lines.clone();
        sorted.sort_unstable();
        assert_eq!(lines, sorted, "{query}: sorted bytewise");
        assert!(
            lines.iter().all(|l| own.contains(l)),
            "{query}: the archive's own lines"
        );
        let (_, page) = get(&app, &format!("/api/v1/search?size=1{query}"), None).await;
        let total = serde_json::from_str::<serde_json::Value>(&page).unwrap()["total"]
            .as_u64()
            .unwrap();
        assert_eq!(lines.len() as u64, total, "{query}: one line per capture");
        if expected > 0 {
            assert_eq!(total, expected);
        }
    }
}

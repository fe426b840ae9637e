//! The web shell in this process (`ServiceExt::oneshot`, no socket): every door admits a caller
//! the same way and answers errors its own way. (The program is tested end to end in the root
//! `tests/explorer/`.)

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use modoai_archive::archive::Reader;
use modoai_explorer::config::AccessConfig;
use modoai_explorer::keys::KeyFile;
use modoai_explorer::search::{parse_timestamp14, Library};
use modoai_explorer::serve::router;
use modoai_explorer::synthetic::HOT_URL;
use modoai_explorer::web::AppState;
use time::format_description::well_known::Rfc3339;
use tower::ServiceExt;

use super::{index, synthetic};

/// A whole answer.
struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// GET `target` with `headers`.
async fn get(app: &Router, target: &str, headers: &[(&str, &str)]) -> Answer {
    let mut request = Request::get(target);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = app
        .clone()
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    let body = axum::body::to_bytes(body, 64 << 20).await.unwrap();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// The server over the archives `dirs` (their indexes opened), with `access`, its keys in `keys`.
fn server(dirs: &[PathBuf], access: AccessConfig, keys: &Path) -> Router {
    let library = Library::new(dirs, Duration::from_secs(5));
    for a in library.archives() {
        a.reopen().unwrap();
    }
    router(Arc::new(
        AppState::new(Arc::new(library), access, keys.to_owned()).unwrap(),
    ))
}

/// A synthetic archive with an index, in a folder of its own.
fn indexed() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    synthetic(dir.path(), 0, 40, 5);
    index(dir.path());
    dir
}

/// The `ratelimit` field's `r`, the requests left.
fn left(a: &Answer) -> Option<u64> {
    let field = a.header("ratelimit")?;
    field.split(";r=").nth(1)?.split(';').next()?.parse().ok()
}

#[tokio::test]
async fn memento_and_pwid_answers_to_a_key_are_counted_and_carry_its_ratelimit_fields() {
    let archive = indexed();
    let work = tempfile::tempdir().unwrap();
    let keys = work.path().join("keys.toml");
    let key = KeyFile::load(&keys)
        .unwrap()
        .add("memento", Some(6), None, vec![])
        .unwrap();
    let bearer = format!("Bearer {key}");
    let auth = [("authorization", bearer.as_str())];
    let app = server(&[archive.path().to_owned()], AccessConfig::default(), &keys);

    let anonymous = get(&app, &format!("/timemap/link/{HOT_URL}"), &[]).await;
    assert_eq!(anonymous.status, 200, "{}", anonymous.body);
    assert_eq!(anonymous.header("ratelimit"), None, "no key, no quota");

    let timemap = get(&app, &format!("/timemap/json/{HOT_URL}"), &auth).await;
    assert_eq!(timemap.status, 200, "{}", timemap.body);
    assert_eq!(
        timemap.header("ratelimit-policy"),
        Some("\"hour\";q=6;w=3600")
    );
    assert_eq!(left(&timemap), Some(5));
    let first = timemap.json()["mementos"]["first"]["uri"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = &first[first.find("/memento/").unwrap()..];
    let link = get(&app, &format!("/timemap/link/{HOT_URL}"), &auth).await;
    assert_eq!((link.status.as_u16(), left(&link)), (200, Some(4)));
    let gate = get(&app, &format!("/timegate/{HOT_URL}"), &auth).await;
    assert_eq!((gate.status.as_u16(), left(&gate)), (302, Some(3)));
    let memento = get(&app, path, &auth).await;
    assert_eq!((memento.status.as_u16(), left(&memento)), (200, Some(2)));
    assert!(memento.header("memento-datetime").is_some());

    let stamp = &path["/memento/".len().."/memento/".len() + 14];
    let at = parse_timestamp14(stamp).unwrap().format(&Rfc3339).unwrap();
    let id = Reader::open(archive.path())
        .unwrap()
        .archive_id()
        .unwrap()
        .to_owned();
    let pwid = get(
        &app,
        &format!("/pwid/urn:pwid:{id}:{at}:part:{HOT_URL}"),
        &auth,
    )
    .await;
    assert_eq!((pwid.status.as_u16(), left(&pwid)), (302, Some(1)));
    assert!(pwid.header("location").unwrap().ends_with(path));

    let me = get(&app, "/api/v1/me", &auth).await.json();
    assert_eq!(
        (me["used"].as_u64(), me["remaining"].as_u64()),
        (Some(6), Some(0))
    );
    let spent = get(&app, &format!("/timemap/link/{HOT_URL}"), &auth).await;
    assert_eq!(spent.status, 429, "{}", spent.body);
    assert!(spent.header("retry-after").is_some());
    assert_eq!(left(&spent), Some(0));
    assert_eq!(
        spent.json()["error"]["status"],
        429,
        "Memento's errors stay JSON"
    );
}

#[tokio::test]
async fn a_request_that_cannot_be_answered_is_refused_before_it_is_counted() {
    let archive = indexed();
    let work = tempfile::tempdir().unwrap();
    let keys = work.path().join("keys.toml");
    let key = KeyFile::load(&keys)
        .unwrap()
        .add("one", Some(1), None, vec![])
        .unwrap();
    let bearer = format!("Bearer {key}");
    let auth = [("authorization", bearer.as_str())];
    let app = server(&[archive.path().to_owned()], AccessConfig::default(), &keys);
    for target in [
        "/api/v1/search?colour=red",
        "/api/v1/search?q=%FF",
        "/api/v1/terms?size=0",
        "/api/v1/captures",
        "/search?colour=red",
        "/timeline",
        "/memento/yesterday/http://a.example/",
        "/pwid/urn:pwid:nope",
    ] {
        assert_eq!(get(&app, target, &auth).await.status, 400, "{target}");
    }
    let r = get(
        &app,
        &format!("/timegate/{HOT_URL}"),
        &[auth[0], ("accept-datetime", "yesterday")],
    )
    .await;
    assert_eq!(r.status, 400);
    let me = get(&app, "/api/v1/me", &auth).await;
    assert_eq!(me.status, 200, "the quota is still whole: {}", me.body);
    assert_eq!(left(&me), Some(0));
}

#[tokio::test]
async fn each_door_answers_errors_its_own_way() {
    let work = tempfile::tempdir().unwrap();
    let keys = work.path().join("keys.toml");
    // An archive without an index: every search is 503 until it has one.
    let not_indexed = tempfile::tempdir().unwrap();
    synthetic(not_indexed.path(), 0, 3, 0);
    let app = server(
        &[not_indexed.path().to_owned()],
        AccessConfig::default(),
        &keys,
    );
    let html = Some("text/html; charset=utf-8");
    let json = Some("application/json");

    let missing = get(&app, "/api/v1/search", &[]).await;
    assert_eq!(missing.status, 401);
    assert_eq!(missing.header("content-type"), json);
    assert_eq!(
        missing.header("www-authenticate"),
        Some("Bearer realm=\"modoai-explorer\"")
    );
    for auth in ["Bearer not-a-key-of-this-server", "Basic YTpi"] {
        let refused = get(&app, "/api/v1/me", &[("authorization", auth)]).await;
        assert_eq!(refused.status, 401, "{auth}");
        assert_eq!(
            refused.header("www-authenticate"),
            Some("Bearer realm=\"modoai-explorer\", error=\"invalid_token\""),
            "{auth}"
        );
        assert!(refused.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a valid key"));
    }
    for target in ["/api/v1/nothing-here", "/api/", "/api/v1/capture/a/b"] {
        let r = get(&app, target, &[]).await;
        assert_eq!(
            (r.status.as_u16(), r.header("content-type")),
            (404, json),
            "{target}"
        );
        assert_eq!(r.json()["error"]["status"], 404, "{target}");
    }
    let bad = get(&app, "/memento/yesterday/http://a.example/", &[]).await;
    assert_eq!(
        (bad.status.as_u16(), bad.header("content-type")),
        (400, json),
        "Memento's errors are JSON"
    );
    assert!(bad.body.contains("is not a time"), "{}", bad.body);

    for (target, status, says) in [
        ("/no/such/page", 404, "there is no page /no/such/page"),
        ("/search?q=%FF", 400, "not valid form encoding"),
        ("/search?q=maps", 503, "is being built"),
    ] {
        let r = get(&app, target, &[]).await;
        assert_eq!(
            (r.status.as_u16(), r.header("content-type")),
            (status, html),
            "{target}"
        );
        assert!(
            r.body.contains("<h1>") && r.body.contains(says),
            "{target}: {}",
            r.body
        );
    }
    let busy = get(&app, "/search?q=maps", &[]).await;
    assert_eq!(busy.header("retry-after"), Some("5"));
    let busy = get(&app, "/api/v1/search?q=maps", &[]).await;
    assert_eq!(busy.status, 401, "the API's door still needs a key");

    let closed = AccessConfig {
        public_ui: false,
        ..AccessConfig::default()
    };
    let shut = server(&[not_indexed.path().to_owned()], closed, &keys);
    let page = get(&shut, "/search", &[]).await;
    assert_eq!(
        (page.status.as_u16(), page.header("content-type")),
        (401, html)
    );
    assert!(page.body.contains("A key is needed"), "{}", page.body);
    assert!(page.header("www-authenticate").is_some());
    let timemap = get(&shut, &format!("/timemap/link/{HOT_URL}"), &[]).await;
    assert_eq!(
        (timemap.status.as_u16(), timemap.header("content-type")),
        (401, json)
    );
}

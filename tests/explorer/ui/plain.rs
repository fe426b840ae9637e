//! The API page's sandbox, the pages without JavaScript, and errors as pages.

use std::process::Command;

use integration_tests::browser::Browser;

use super::page;
use crate::{add_key, shared_explorer, work_dir, Explorer};

#[tokio::test]
async fn the_api_page_tries_calls_with_a_key_and_shows_curl_commands() {
    let e = shared_explorer("ui-api", false);
    e.get_ready("/search", None);
    let key = add_key(&e.keys, "sandbox", &["--quota", "100/hour"]);
    let b = Browser::start(1300, 1100).await;
    b.open(&page(&e, "/api")).await;
    let calls = b.texts("table.calls tbody td:first-child").await;
    for call in ["GET /api/v1/search", "GET /api/v1/terms", "GET /api/v1/me"] {
        assert!(calls.iter().any(|c| c == call), "{call} in {calls:?}");
    }
    // Without a key: the API's 401.
    b.select("form#sandbox select[name=call]", "me").await;
    b.fill("form#sandbox input[name=params]", "").await;
    b.press("form#sandbox button").await;
    b.wait_text("#status", "401").await;
    // With the key: the caller's limits, with the RateLimit fields.
    b.fill("#key", &key).await;
    b.press("form#sandbox button").await;
    let status = b.wait_text("#status", "200").await;
    assert!(status.contains("ratelimit: \"hour\";r=99"), "{status}");
    let me: serde_json::Value = serde_json::from_str(&b.text("#response").await).unwrap();
    assert_eq!(me["name"], "sandbox");
    assert_eq!(me["quota_per_hour"], 100);
    b.screenshot("explorer-api").await;

    // The curl command beside it, as a shell runs it with the key.
    b.select("form#sandbox select[name=call]", "search").await;
    b.fill("form#sandbox input[name=params]", "q=report&size=3")
        .await;
    let command = b.wait_text("#curl", "q=report&size=3").await;
    let out = Command::new("sh")
        .args(["-c", &command])
        .env("KEY", &key)
        .output()
        .expect("sh runs curl (scripts/setup installs curl)");
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{command}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert!(answer["total"].as_u64().unwrap() >= 1, "{answer}");
    b.close().await;
}

#[test]
fn the_pages_work_without_javascript() {
    let e = shared_explorer("ui-nojs", false);
    e.get_ready("/search", None);
    // Results, facets, calendar, charts and cloud are in the HTML itself; the search page's one
    // script is the export menu's, for downloads with a key (its links work without it).
    let r = e.get("/search?q=report", None);
    assert_eq!(r.status, 200, "{}", r.body);
    for part in [
        "docs/report.pdf",
        "<mark>",
        "section class=\"calendar\"",
        "svg class=\"cloud\"",
    ] {
        assert!(r.body.contains(part), "{part}: {}", r.body);
    }
    assert_eq!(r.body.matches("<script").count(), 1, "{}", r.body);
    let menu = &r.body[r.body.find("<details class=\"export\"").unwrap()..];
    assert!(
        menu.find("<script") < menu.find("</details>"),
        "the script is the menu's"
    );
    assert!(r
        .body
        .contains("href=\"/api/v1/export?format=csv&amp;q=report\""));
    // The sandbox's form, sent without JavaScript, answers the call's curl command.
    let r = e.get(
        "/api?call=captures&params=url%3Dhttp%3A%2F%2Fx.example%2F",
        None,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let curl = r
        .body
        .split("<pre id=\"curl\">")
        .nth(1)
        .and_then(|c| c.split("</pre>").next());
    let curl = curl
        .unwrap_or_else(|| panic!("no curl command: {}", r.body))
        .replace("&quot;", "\"");
    assert!(
        curl.starts_with("curl -H \"Authorization: Bearer $KEY\" 'http://"),
        "{curl}"
    );
    assert!(
        curl.ends_with("/api/v1/captures?url=http://x.example/'"),
        "{curl}"
    );
}

#[test]
fn bad_input_on_a_page_is_a_readable_error_page_never_a_500() {
    let e = shared_explorer("ui-bad", false);
    e.get_ready("/search", None);
    for (target, status, says) in [
        ("/search?q=title%3A", 400, "q="),
        ("/search?q=%28unclosed", 400, "q="),
        ("/search?colour=red", 400, "unknown parameter"),
        ("/search?from=yesterday", 400, "not a date"),
        ("/search?q=%FF", 400, "form encoding"),
        ("/search?page=100000", 400, "narrow"),
        ("/timeline", 400, "/timeline?url=URL"),
        (
            "/timeline?url=http%3A%2F%2Fnowhere.example%2F",
            404,
            "no capture",
        ),
        ("/capture/0000000000000000", 404, "no capture"),
        ("/no/such/page", 404, "there is no page"),
    ] {
        let r = e.get(target, None);
        assert_eq!(r.status, status, "{target}: {}", r.body);
        assert_eq!(
            r.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{target}"
        );
        assert!(
            r.body.contains("<h1>") && r.body.contains(says),
            "{target}: {}",
            r.body
        );
    }
    // The API keeps its JSON errors.
    let r = e.get("/api/v1/nothing-here", None);
    assert_eq!(
        (r.status, r.json()["error"]["status"].as_u64()),
        (404, Some(404))
    );
}

#[test]
fn a_page_of_an_archive_being_indexed_is_503_with_retry_after() {
    let work = work_dir("ui-503");
    let (archive, _) = crate::crash::many_files(&work);
    let e = Explorer::start(&[&archive], &work, "[index]\ncommit-every = 5\n");
    let r = e.get("/search?q=harbour", None);
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
    assert!(
        r.body.contains("The archive is being indexed"),
        "{}",
        r.body
    );
    let done = e.get_ready("/search?q=harbour", None);
    assert_eq!(done.status, 200);
    assert!(done.body.contains("300 captures"), "{}", done.body);
}

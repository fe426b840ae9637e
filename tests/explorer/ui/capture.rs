//! A capture page: its CRATE findings, its image, identical bytes, and its replay in pywb.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use integration_tests::browser::Browser;
use integration_tests::process::{free_port, Running};
use integration_tests::python::venv_tool;

use super::page;
use crate::{enc, harvested, shared_explorer, work_dir, Explorer};

#[tokio::test]
async fn a_capture_page_shows_its_crate_findings_and_its_image() {
    let e = shared_explorer("ui-capture", false);
    e.get_ready("/search", None);
    let b = Browser::start(1300, 1700).await;
    // From the results, as a person gets there: the JPEGs' search, and the sunset's hit (the
    // harvest's two JPEGs share a capture time, so their order alone does not say which is
    // first).
    b.open(&page(&e, &format!("/search?mime={}", enc("image/jpeg"))))
        .await;
    let marked = b
        .script(
            "const hit = [...document.querySelectorAll('li.hit')]\
             .find(h => h.textContent.includes('sunset.jpg'));\
             if (!hit) { return false; }\
             hit.querySelector('h2 a').id = 'sunset'; return true;",
        )
        .await;
    assert_eq!(marked, serde_json::Value::Bool(true), "a hit of sunset.jpg");
    b.click("#sunset").await;
    let url = format!("{}images/sunset.jpg", harvested().base);
    assert_eq!(b.text("article.capture p.url").await, url);
    let tools = b.texts("table.crate tbody td.tool").await;
    for tool in ["file", "md5", "jhove", "exiftool", "siegfried"] {
        assert!(tools.iter().any(|t| t == tool), "{tool} in {tools:?}");
    }
    let jhove = b.text("table.crate tr[data-tool=jhove]").await;
    assert!(
        jhove.contains("ok") && jhove.contains("status: Well-Formed and valid"),
        "{jhove}"
    );
    let siegfried = b.text("table.crate tr[data-tool=siegfried]").await;
    assert!(siegfried.contains("fmt/43"), "{siegfried}");
    // The image itself, drawn from the memento.
    let drawn = b
        .script("const i = document.querySelector('figure.memento img'); return i.complete ? i.naturalWidth : 0;")
        .await;
    assert!(drawn.as_u64().unwrap() > 0, "the image is shown");
    let src = b.attrs("figure.memento img", "src").await;
    assert!(
        src[0].contains("/memento/") && src[0].ends_with("images/sunset.jpg"),
        "{src:?}"
    );
    let pwid = b.text("a.pwid").await;
    assert!(
        pwid.starts_with("urn:pwid:") && pwid.ends_with("images/sunset.jpg"),
        "{pwid}"
    );
    b.screenshot("explorer-capture").await;

    // Identical bytes at two URLs: each page names the other.
    let logo = format!("{}images/logo.png", harvested().base);
    let id = e.get_ready(&format!("/api/v1/captures?url={}", enc(&logo)), None);
    assert_eq!(id.status, 401, "the API needs a key; the pages do not");
    b.open(&page(&e, &format!("/timeline?url={}", enc(&logo))))
        .await;
    assert_eq!(b.count("svg.timeline circle.capture").await, 1);
    b.click("table.captures tbody a").await;
    let same = b.texts("ul.same li").await;
    assert!(
        same.iter().any(|s| s.contains("data/logo-copy")),
        "{same:?}"
    );
    // A PDF is linked, not shown.
    b.open(&page(&e, "/search?q=report")).await;
    b.click("li.hit h2 a").await;
    assert_eq!(b.count("figure.memento img").await, 0);
    assert!(b.text("a.memento").await.contains("Open the file"));
    b.close().await;
}

#[tokio::test]
async fn a_capture_page_links_to_its_replay_in_pywb() {
    let work = work_dir("ui-pywb");
    let port = free_port();
    let _wayback = wayback(&work, &harvested().archive, port);
    let e = Explorer::start(
        &[&harvested().archive],
        &work,
        &format!("[ui]\nreplay = \"http://127.0.0.1:{port}/c\"\n"),
    );
    e.get_ready("/search", None);
    let about = format!("{}about.html", harvested().base);
    let b = Browser::start(1200, 900).await;
    b.open(&page(&e, &format!("/timeline?url={}", enc(&about))))
        .await;
    b.click("table.captures tbody a").await;
    let href = b.attrs("a.replay", "href").await[0].clone();
    let collection = format!("http://127.0.0.1:{port}/c/");
    let (ts, url) = href
        .strip_prefix(&collection)
        .and_then(|rest| rest.split_once('/'))
        .unwrap_or_else(|| panic!("{href}"));
    assert_eq!((ts.len(), url), (14, about.as_str()), "{href}");
    // pywb replays the capture the link names: in its identity mode, the bytes as archived.
    let file =
        std::fs::read(integration_tests::repo_root().join("examples/site/about.html")).unwrap();
    let started = Instant::now();
    loop {
        let r = crate::get(port, &format!("/c/{ts}id_/{url}"), &[]);
        if r.status == 200 {
            assert_eq!(r.bytes, file);
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "pywb does not replay {url}: {}",
            r.status
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // And a person who follows the link sees the page in pywb's frame.
    b.click("a.replay").await;
    b.enter_frame("iframe").await;
    b.wait_text("body", "This site exists to show modoai at work")
        .await;
    b.close().await;
}

/// pywb's `wayback` on `port` over a collection `c` of `archive`'s WARC files, set up as the
/// README does (`wb-manager init`, `wb-manager add`).
fn wayback(work: &Path, archive: &Path, port: u16) -> Running {
    let run = |args: &[String]| {
        let out = Command::new(venv_tool("wb-manager"))
            .args(args)
            .current_dir(work)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "wb-manager {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["init".into(), "c".into()]);
    let mut add = vec!["add".to_owned(), "c".to_owned()];
    for f in std::fs::read_dir(archive.join("warcs")).unwrap() {
        add.push(f.unwrap().path().to_string_lossy().into_owned());
    }
    run(&add);
    let child = Command::new(venv_tool("wayback"))
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .current_dir(work)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("wayback starts");
    Running(child)
}

//! A file deleted on its site, as a person sees it: harvested from a real server with a state
//! folder, deleted, harvested again, indexed; the timeline and the capture page say "Gone since"
//! the deletion's datestamp, the API lists the deletion. Back on the site, harvested and indexed
//! again, it is not gone: the timeline lists the deletion between its captures.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use integration_tests::browser::Browser;
use integration_tests::process::program;
use integration_tests::{Server, TestSite};

use super::page;
use crate::{enc, explorer, harvest_into, work_dir, Explorer};

/// Harvests `oai` into `archive` (the files themselves), then indexes it, off the server's
/// threads.
async fn harvest_and_index(oai: &str, archive: &Path) {
    let (oai, archive) = (oai.to_owned(), archive.to_owned());
    tokio::task::spawn_blocking(move || {
        let ok = |out: Output| {
            let said = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{said}");
        };
        let didl = ["--metadata-prefix", "oai_didl"];
        ok(harvest_into(
            &program("modoai-harvester"),
            &oai,
            &archive,
            &didl,
        ));
        ok(explorer(&["index", "--archive", archive.to_str().unwrap()]));
    })
    .await
    .unwrap();
}

/// The `class` of each row of the timeline's list ("" for a capture).
async fn rows(b: &Browser) -> Vec<String> {
    let v = b
        .script("return [...document.querySelectorAll('table.captures tbody tr')].map(r => r.className);")
        .await;
    serde_json::from_value(v).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_file_is_gone_since_its_deletion_until_it_comes_back() {
    let site = TestSite::empty();
    site.write("a.txt", b"first a", Some(1_577_836_800));
    site.write("b.txt", b"b", Some(1_577_836_800));
    let work = work_dir("ui-gone");
    let state = work.join("state");
    let server = Server::start(site.path(), |c| c.state_dir(&state)).await;
    let archive = work.join("archive");
    let url = server.id("a.txt");
    harvest_and_index(&server.oai, &archive).await;
    std::fs::remove_file(site.path().join("a.txt")).unwrap();
    server.until_deleted(&url, true).await;
    harvest_and_index(&server.oai, &archive).await;
    let deleted_at = deletion_datestamp(&archive, &url);

    let open = "[access]\nanonymous-api = true\n";
    let e = Explorer::start(&[&archive], &work_dir("ui-gone-one"), open);
    let timeline = format!("/timeline?url={}", enc(&url));
    e.get_ready(&timeline, None);
    let b = Browser::start(1200, 900).await;
    b.open(&page(&e, &timeline)).await;
    assert!(b.text("p.gone").await.starts_with("Gone since"));
    assert_eq!(
        b.attrs("p.gone time", "datetime").await,
        std::slice::from_ref(&deleted_at)
    );
    assert_eq!(rows(&b).await, ["", "deletion"]);
    b.screenshot("explorer-gone").await;
    b.click("table.captures tbody a").await;
    assert_eq!(
        b.attrs("article.capture p.gone time", "datetime").await,
        std::slice::from_ref(&deleted_at)
    );
    let api = e
        .get(&format!("/api/v1/captures?url={}", enc(&url)), None)
        .json();
    assert_eq!(
        (
            api["gone_since"].as_str(),
            api["deletions"][0]["datestamp"].as_str()
        ),
        (Some(deleted_at.as_str()), Some(deleted_at.as_str())),
        "{api}"
    );
    drop(e);

    // Back a second later, with other bytes: a new capture, dated after the deletion.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    site.write("a.txt", b"second a", None);
    server.until_deleted(&url, false).await;
    harvest_and_index(&server.oai, &archive).await;
    server.stop().await;
    let e = Explorer::start(&[&archive], &work_dir("ui-gone-two"), open);
    e.get_ready(&timeline, None);
    b.open(&page(&e, &timeline)).await;
    assert_eq!(b.count("p.gone").await, 0, "back: not gone");
    assert_eq!(rows(&b).await, ["", "deletion", ""]);
    let when = b.attrs("table.captures tr.deletion time", "datetime").await;
    assert_eq!(when, [deleted_at]);
    let links = b
        .attrs("table.captures tbody a[href^='/capture/']", "href")
        .await;
    b.open(&page(&e, links.last().unwrap())).await;
    assert_eq!(b.count("p.gone").await, 0);
    let api = e
        .get(&format!("/api/v1/captures?url={}", enc(&url)), None)
        .json();
    assert!(
        api["gone_since"].is_null() && api["deletions"].as_array().unwrap().len() == 1,
        "{api}"
    );
    b.close().await;
}

/// The datestamp of the deletion of `url` in the archive's ledger.
fn deletion_datestamp(archive: &Path, url: &str) -> String {
    let ledger = std::fs::read_to_string(archive.join("ledger.jsonl")).unwrap();
    let deleted: Vec<String> = ledger
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["identifier"] == url && e["deleted"] == true)
        .map(|e| e["datestamp"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(deleted.len(), 1, "{ledger}");
    deleted[0].clone()
}

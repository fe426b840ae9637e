//! The index stays current without a restart: new, changed and deleted files, by watcher and by
//! periodic rescan alone.

use std::time::Duration;

use integration_tests::{Server, TestSite};

async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    for _ in 0..400 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("timed out waiting for: {what}");
}

async fn lifecycle(server: &Server, site: &TestSite) {
    let id = server.id("fresh/new.txt");
    let get = format!("verb=GetRecord&metadataPrefix=oai_dc&identifier={id}");
    assert_eq!(server.oai(&get).await.error_codes(), ["idDoesNotExist"]);
    site.write("fresh/new.txt", b"new", None);
    eventually("a new file becomes a record", async || {
        server.oai(&get).await.error_codes().is_empty()
    })
    .await;
    let before = server.oai(&get).await.texts("datestamp");
    site.write("fresh/new.txt", b"changed", Some(1_900_000_000));
    eventually("a changed file gets its new datestamp", async || {
        server.oai(&get).await.texts("datestamp") != before
    })
    .await;
    assert_eq!(
        server.oai(&get).await.texts("datestamp"),
        ["2030-03-17T17:46:40Z"]
    );
    std::fs::remove_file(site.path().join("fresh/new.txt")).unwrap();
    eventually("a deleted file becomes a deleted record", async || {
        server.oai(&get).await.text().contains("status=\"deleted\"")
    })
    .await;
    let r = server.oai(&get).await;
    r.assert_valid();
    assert!(
        r.texts("metadata").is_empty(),
        "a deleted record has no metadata"
    );
    let listed = server.oai("verb=ListRecords&metadataPrefix=oai_didl").await;
    listed.assert_valid();
    assert!(listed.text().contains("status=\"deleted\""));
    site.write("fresh/dir/a.txt", b"a", None);
    site.write("fresh/dir/b.txt", b"b", None);
    let a = format!(
        "verb=GetRecord&metadataPrefix=oai_dc&identifier={}",
        server.id("fresh/dir/a.txt")
    );
    eventually("a new folder's files become records", async || {
        server.oai(&a).await.error_codes().is_empty()
    })
    .await;
    std::fs::rename(
        site.path().join("fresh/dir"),
        site.path().join("fresh/moved"),
    )
    .unwrap();
    let moved = format!(
        "verb=GetRecord&metadataPrefix=oai_dc&identifier={}",
        server.id("fresh/moved/b.txt")
    );
    eventually("a renamed folder's files move", async || {
        server.oai(&moved).await.error_codes().is_empty()
    })
    .await;
    eventually("the old paths are deleted", async || {
        server.oai(&a).await.text().contains("status=\"deleted\"")
    })
    .await;
}

#[tokio::test]
async fn watcher_keeps_the_index_current() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    lifecycle(&server, &site).await;
}

#[tokio::test]
async fn periodic_rescan_alone_keeps_the_index_current() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| {
        c.watch(false).rescan_interval(Duration::from_secs(1))
    })
    .await;
    lifecycle(&server, &site).await;
}

#[tokio::test]
async fn without_deleted_records_a_vanished_file_is_unknown() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c.deleted_records(false)).await;
    assert_eq!(
        server.oai("verb=Identify").await.texts("deletedRecord"),
        ["no"]
    );
    std::fs::remove_file(site.path().join("about.html")).unwrap();
    let get = format!(
        "verb=GetRecord&metadataPrefix=oai_dc&identifier={}",
        server.id("about.html")
    );
    eventually("the record disappears", async || {
        server.oai(&get).await.error_codes() == ["idDoesNotExist"]
    })
    .await;
}

//! What a person sees of the OAI route in a real browser (headless Chromium): the repository's
//! name, the records, paging by the "Next page" link to the end of the list, a CRATE's tool
//! findings, and the link to the XML. Screenshots of these pages are in docs/ (made with
//! `MODOAI_SCREENSHOTS=docs/screenshots`).

use std::collections::BTreeSet;

use integration_tests::browser::Browser;
use integration_tests::{repo_root, Server, TestSite};
use modoai::Plugins;

#[tokio::test]
async fn a_person_browses_the_oai_route_page_by_page() {
    let site = TestSite::example();
    // The shipped plugins.toml, with its cache in a temporary folder: the real tools' findings.
    let work = tempfile::tempdir().unwrap();
    let plugins = work.path().join("plugins.toml");
    std::fs::copy(repo_root().join("plugins.toml"), &plugins).unwrap();
    let plugins = Plugins::load(&plugins).await.unwrap();
    let server = Server::start(site.path(), |c| {
        c.plugins(plugins)
            .page_size(5)
            .repository_name("Example site")
    })
    .await;
    let browser = Browser::start(1200, 900).await;

    browser.open(&format!("{}?verb=Identify", server.oai)).await;
    assert_eq!(browser.text("header .repo").await, "Example site");
    assert_eq!(browser.text("main h1").await, "Identify");
    assert!(browser.text("main table").await.contains("deletedRecord"));
    browser.screenshot("oai-identify").await;

    // The list, page by page through the "Next page" link, to its end.
    browser
        .open(&format!(
            "{}?verb=ListIdentifiers&metadataPrefix=oai_dc",
            server.oai
        ))
        .await;
    browser.screenshot("oai-list").await;
    let mut seen = BTreeSet::new();
    let mut pages = 0;
    loop {
        pages += 1;
        let ids = browser.texts("main tbody tr td:first-child a").await;
        assert!(!ids.is_empty() && ids.len() <= 5, "page {pages}: {ids:?}");
        for id in ids {
            assert!(seen.insert(id.clone()), "{id} twice");
        }
        if browser.texts("a.next").await.is_empty() {
            break;
        }
        browser.click("a.next").await;
        let url = browser.client().current_url().await.unwrap();
        assert!(
            url.query().unwrap_or("").contains("resumptionToken="),
            "{url}"
        );
    }
    assert_eq!((pages, seen.len()), (3, 14), "{seen:?}");

    // A CRATE: the file linked, the tools' findings as a table.
    let id = server.id("images/sunset.jpg");
    browser
        .open(&format!(
            "{}?verb=GetRecord&metadataPrefix=oai_crate&identifier={id}",
            server.oai
        ))
        .await;
    assert_eq!(browser.text("article h2 a").await, id);
    let tools = browser.texts("table.crate tbody td:first-child").await;
    for tool in ["file", "md5", "jhove", "exiftool", "siegfried"] {
        assert!(tools.iter().any(|t| t == tool), "{tool} in {tools:?}");
    }
    let rows = browser.texts("table.crate tbody tr").await;
    let md5_row = rows.iter().find(|r| r.starts_with("md5")).unwrap();
    let md5 = md5_row
        .split_whitespace()
        .find(|w| w.len() == 32)
        .unwrap()
        .to_owned();
    assert!(md5.bytes().all(|b| b.is_ascii_hexdigit()), "{md5_row}");
    browser.screenshot("oai-record").await;

    // The footer's link gives the same response as XML.
    browser.click("a.raw").await;
    let url = browser.client().current_url().await.unwrap();
    assert!(url.path().ends_with("/modoai/xml"), "{url}");
    let source = browser.client().source().await.unwrap();
    assert!(source.contains(&md5), "the XML holds the same finding");
    browser.close().await;
    server.stop().await;
}

//! Resumption tokens (§3.5): attributes, the empty final token, idempotency, stability while
//! files change, refusals, restarts, byte budgets; from/until bounds.

use std::collections::BTreeMap;
use std::time::Duration;

use integration_tests::{set_mtime, Reply, Server, TestSite};

/// A site of `n` one-line text files with distinct mtimes one minute apart from 2020-01-01.
fn numbered_site(n: u64) -> TestSite {
    let site = TestSite::empty();
    for i in 0..n {
        site.write(
            &format!("f{i:03}.txt"),
            format!("file {i}\n").as_bytes(),
            Some(1_577_836_800 + 60 * i),
        );
    }
    site
}

async fn harvest_pages(server: &Server, first: &str, verb: &str) -> Vec<Reply> {
    let mut pages = vec![server.oai(first).await];
    while let Some((token, _)) = pages.last().unwrap().token().filter(|(t, _)| !t.is_empty()) {
        pages.push(
            server
                .oai(&format!("verb={verb}&resumptionToken={token}"))
                .await,
        );
        assert!(pages.len() < 1000, "runaway list");
    }
    pages
}

#[tokio::test]
async fn tokens_page_through_with_exact_attributes() {
    let site = numbered_site(10);
    let server = Server::start(site.path(), |c| c.page_size(3)).await;
    let pages = harvest_pages(
        &server,
        "verb=ListIdentifiers&metadataPrefix=oai_dc",
        "ListIdentifiers",
    )
    .await;
    assert_eq!(pages.len(), 4);
    let mut ids = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        page.assert_valid();
        let (token, attrs) = page
            .token()
            .expect("every page of a multi-page list has a token element");
        assert_eq!(
            attrs["cursor"],
            (3 * i).to_string(),
            "cursor = items before this page"
        );
        assert_eq!(attrs["completeListSize"], "10");
        if i < 3 {
            assert!(
                token
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-~".contains(&b)),
                "{token}"
            );
            assert!(attrs["expirationDate"].ends_with('Z'));
        } else {
            assert!(token.is_empty(), "the last page carries an empty token");
            assert!(!attrs.contains_key("expirationDate"));
        }
        ids.extend(page.texts("identifier"));
    }
    let expected: Vec<String> = (0..10)
        .map(|i| server.id(&format!("f{i:03}.txt")))
        .collect();
    assert_eq!(ids, expected, "in datestamp order, each once");
}

#[tokio::test]
async fn reissued_token_gives_the_same_page() {
    let site = numbered_site(7);
    let server = Server::start(site.path(), |c| c.page_size(2)).await;
    let first = server.oai("verb=ListRecords&metadataPrefix=oai_dc").await;
    let (token, _) = first.token().unwrap();
    let a = server
        .oai(&format!("verb=ListRecords&resumptionToken={token}"))
        .await;
    let b = server
        .oai(&format!("verb=ListRecords&resumptionToken={token}"))
        .await;
    assert_eq!(a.texts("record"), b.texts("record"));
    assert_eq!(a.token().map(|t| t.1), b.token().map(|t| t.1));
}

#[tokio::test]
async fn changes_during_a_harvest_neither_skip_nor_duplicate() {
    let site = numbered_site(9);
    let server = Server::start(site.path(), |c| c.page_size(3)).await;
    let first = server
        .oai("verb=ListIdentifiers&metadataPrefix=oai_dc")
        .await;
    let mut seen: Vec<(String, String)> = pairs(&first);
    // Mid-harvest: one harvested file changes, one not yet harvested changes, one is added.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    set_mtime(&site.path().join("f000.txt"), now - 5);
    set_mtime(&site.path().join("f006.txt"), now - 4);
    site.write("new.txt", b"new", Some(now - 3));
    wait_for(&server, &server.id("new.txt")).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut token = first.token().unwrap().0;
    while !token.is_empty() {
        let page = server
            .oai(&format!("verb=ListIdentifiers&resumptionToken={token}"))
            .await;
        page.assert_valid();
        seen.extend(pairs(&page));
        token = page.token().map(|t| t.0).unwrap_or_default();
    }
    let mut by_id: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (id, ds) in &seen {
        by_id.entry(id.clone()).or_default().push(ds.clone());
    }
    assert_eq!(
        by_id.len(),
        10,
        "every file, the new one included: {by_id:?}"
    );
    assert_eq!(
        by_id[&server.id("f006.txt")].len(),
        1,
        "changed before it was reached: listed once"
    );
    assert_eq!(
        by_id[&server.id("f000.txt")].len(),
        2,
        "changed after it was sent: its new version too"
    );
    let unique: std::collections::BTreeSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no (identifier, datestamp) twice");
}

fn pairs(r: &Reply) -> Vec<(String, String)> {
    r.texts("identifier")
        .into_iter()
        .zip(r.texts("datestamp"))
        .collect()
}

async fn wait_for(server: &Server, id: &str) {
    for _ in 0..200 {
        let r = server
            .oai(&format!(
                "verb=GetRecord&metadataPrefix=oai_dc&identifier={id}"
            ))
            .await;
        if r.error_codes().is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{id} never appeared in the index");
}

#[tokio::test]
async fn forged_foreign_and_expired_tokens_are_refused() {
    let site = numbered_site(5);
    let server = Server::start(site.path(), |c| {
        c.page_size(2).token_ttl(Duration::from_secs(1))
    })
    .await;
    let first = server
        .oai("verb=ListIdentifiers&metadataPrefix=oai_dc")
        .await;
    let (token, _) = first.token().unwrap();
    let (payload, mac) = token.split_once('.').unwrap();
    let flipped = format!(
        "{}{}.{mac}",
        &payload[..payload.len() - 1],
        if payload.ends_with('A') { 'B' } else { 'A' }
    );
    for bad in [
        flipped,
        format!("{payload}.{}", "A".repeat(mac.len())),
        format!("{token}x"),
        "v1.AAAA.BBBB".to_owned(),
    ] {
        let r = server
            .oai(&format!("verb=ListIdentifiers&resumptionToken={bad}"))
            .await;
        r.assert_valid();
        assert_eq!(r.error_codes(), ["badResumptionToken"], "{bad}");
    }
    let other_verb = server
        .oai(&format!("verb=ListRecords&resumptionToken={token}"))
        .await;
    assert_eq!(other_verb.error_codes(), ["badResumptionToken"]);
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let expired = server
        .oai(&format!("verb=ListIdentifiers&resumptionToken={token}"))
        .await;
    assert_eq!(expired.error_codes(), ["badResumptionToken"]);
    assert!(expired.texts("error")[0].contains("expired"));
}

#[tokio::test]
async fn tokens_survive_a_restart_with_a_configured_secret() {
    let site = numbered_site(5);
    let server = Server::start(site.path(), |c| {
        c.page_size(2).token_secret(b"s3cret".to_vec())
    })
    .await;
    let (token, _) = server
        .oai("verb=ListIdentifiers&metadataPrefix=oai_dc")
        .await
        .token()
        .unwrap();
    server.stop().await;
    let again = Server::start(site.path(), |c| {
        c.page_size(2).token_secret(b"s3cret".to_vec())
    })
    .await;
    let r = again
        .oai(&format!("verb=ListIdentifiers&resumptionToken={token}"))
        .await;
    assert!(r.error_codes().is_empty(), "{}", r.text());
    assert_eq!(
        r.texts("identifier"),
        [again.id("f002.txt"), again.id("f003.txt")]
    );
    let other = Server::start(site.path(), |c| {
        c.page_size(2).token_secret(b"other".to_vec())
    })
    .await;
    let r = other
        .oai(&format!("verb=ListIdentifiers&resumptionToken={token}"))
        .await;
    assert_eq!(r.error_codes(), ["badResumptionToken"]);
}

#[tokio::test]
async fn didl_pages_close_at_the_byte_budget() {
    let site = TestSite::empty();
    for i in 0..6u64 {
        site.write(
            &format!("blob{i}.bin"),
            &vec![i as u8; 30_000],
            Some(1_600_000_000 + i),
        );
    }
    let server = Server::start(site.path(), |c| c.page_size(100).page_bytes(100_000)).await;
    let pages = harvest_pages(
        &server,
        "verb=ListRecords&metadataPrefix=oai_didl",
        "ListRecords",
    )
    .await;
    let sizes: Vec<usize> = pages.iter().map(|p| p.texts("record").len()).collect();
    assert_eq!(
        sizes,
        [2, 2, 2],
        "about 42 KB of Base64 each: two per 100 KB page"
    );
    for p in &pages {
        p.assert_valid();
        assert!(p.body.len() < 100_000 + 4_000, "{}", p.body.len());
    }
    let one = Server::start(site.path(), |c| c.page_bytes(10)).await;
    let pages = harvest_pages(
        &one,
        "verb=ListRecords&metadataPrefix=oai_didl",
        "ListRecords",
    )
    .await;
    assert_eq!(pages.len(), 6, "a page always holds at least one record");
    let dc = harvest_pages(
        &one,
        "verb=ListIdentifiers&metadataPrefix=oai_dc",
        "ListIdentifiers",
    )
    .await;
    assert!(
        dc.len() < 6,
        "headers are small; ListIdentifiers pages are not cut to one"
    );
}

#[tokio::test]
async fn from_and_until_are_inclusive_at_both_granularities() {
    let site = TestSite::empty();
    site.write("a.txt", b"a", Some(1_600_000_000)); // 2020-09-13T12:26:40Z
    site.write("b.txt", b"b", Some(1_600_000_001));
    site.write("c.txt", b"c", Some(1_600_100_000)); // 2020-09-14T16:13:20Z
    let server = Server::start(site.path(), |c| c).await;
    let ids = |q: &'static str| {
        let server = &server;
        async move {
            let r = server
                .oai(&format!("verb=ListIdentifiers&metadataPrefix=oai_dc&{q}"))
                .await;
            r.assert_valid();
            r.texts("identifier")
                .into_iter()
                .map(|i| i.rsplit('/').next().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        ids("from=2020-09-13T12:26:40Z&until=2020-09-13T12:26:40Z").await,
        ["a.txt"]
    );
    assert_eq!(ids("from=2020-09-13T12:26:41Z").await, ["b.txt", "c.txt"]);
    assert_eq!(ids("until=2020-09-13T12:26:41Z").await, ["a.txt", "b.txt"]);
    assert_eq!(
        ids("from=2020-09-13&until=2020-09-13").await,
        ["a.txt", "b.txt"]
    );
    assert_eq!(ids("from=2020-09-14").await, ["c.txt"]);
    assert_eq!(ids("until=2020-09-14").await, ["a.txt", "b.txt", "c.txt"]);
    let none = server
        .oai("verb=ListIdentifiers&metadataPrefix=oai_dc&until=2019-09-13")
        .await;
    assert_eq!(none.error_codes(), ["noRecordsMatch"]);
}

#[tokio::test]
async fn list_sets_pages_too() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c.page_size(4)).await;
    let pages = harvest_pages(&server, "verb=ListSets", "ListSets").await;
    assert!(pages.len() > 2);
    let specs: Vec<String> = pages
        .iter()
        .flat_map(|p| p.assert_valid().texts("setSpec"))
        .collect();
    let all = Server::start(site.path(), |c| c)
        .await
        .oai("verb=ListSets")
        .await
        .texts("setSpec");
    assert_eq!(specs, all);
}

//! Revisits whose original is in another collection: each collection is indexed on its own, so
//! the original is found when the revisit is replayed, and the memento is what pywb's `id_`
//! replay answers with both crawls in one collection.

use super::copy_dir;
use super::foreign::{pywb_id, same_as_pywb, serve, write_cases};
use super::work_dir;

#[test]
fn a_revisit_whose_original_another_collection_holds_is_replayed_from_it_as_pywb_replays_both() {
    let work = work_dir("foreign-cross-revisit");
    let (crawl, later) = (work.join("crawl"), work.join("later"));
    write_cases(&crawl, "first");
    write_cases(&later, "second");
    let (c, l) = (
        format!("harbour={}", crawl.display()),
        format!("later={}", later.display()),
    );
    let explorer = serve(&[&c, &l], &work.join("indexes"), &work, "");
    let revisits = explorer
        .get_ready(
            "/api/v1/search?q=&size=100&kind=revisit&archive=later",
            None,
        )
        .json();
    let at = |url: &str| -> Vec<String> {
        revisits["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["url"] == url)
            .map(|d| format!("{}={url}", d["timestamp"].as_str().unwrap()))
            .collect()
    };
    // The page's revisits at its URL, a day apart: one naming its original's URL, one
    // server-not-modified.
    let wanted = at("http://example.org/page");
    assert_eq!(wanted.len(), 2, "{revisits}");
    let both = work.join("both");
    copy_dir(&crawl, &both);
    copy_dir(&later, &both);
    // The mismatching record is no original; pywb needs nothing of it.
    std::fs::remove_file(both.join("mismatch.warc")).unwrap();
    same_as_pywb(&explorer, &pywb_id(&both, &wanted));
    // The URL-agnostic revisit (another URL, no WARC-Refers-To-Target-URI) pywb does not
    // resolve (503); the explorer finds its original by the payload digest.
    let agnostic = at("http://example.org/mirror/page");
    assert_eq!(agnostic.len(), 1, "{revisits}");
    let memento = |wanted: &str, key: Option<&str>| {
        let (timestamp, url) = wanted.split_once('=').unwrap();
        explorer.get(&format!("/memento/{timestamp}/{url}"), key)
    };
    let page = "20310101000000=http://example.org/page";
    assert!(wanted.iter().any(|w| w == page), "{wanted:?}");
    let (theirs, ours) = (memento(page, None), memento(&agnostic[0], None));
    assert_eq!(ours.status, 200, "{}", ours.body);
    assert_eq!(ours.bytes, theirs.bytes);

    // A key that cannot see the collection of the original gets no bytes from it.
    let scoped = super::add_key(&explorer.keys, "later-only", &["--allow", "archive:later"]);
    let refused = memento(page, Some(&scoped));
    assert_ne!(refused.status, 200, "{}", refused.body);
}

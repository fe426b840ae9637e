//! Searching, facets, scopes and mementos over a synthetic archive, in this process.

use std::path::PathBuf;
use std::time::Duration;

use modoai_explorer::search::{mementos, Library, Scope, SearchError, SearchParams};
use modoai_explorer::synthetic::HOT_URL;

use super::{index, synthetic};

fn library() -> (tempfile::TempDir, Library) {
    let dir = tempfile::tempdir().unwrap();
    synthetic(dir.path(), 0, 300, 30);
    index(dir.path());
    let lib = Library::new(&[PathBuf::from(dir.path())], Duration::from_secs(5));
    for a in lib.archives() {
        a.reopen().unwrap();
    }
    (dir, lib)
}

fn params(q: &str) -> SearchParams {
    let pairs: Vec<(String, String)> = q
        .split('&')
        .filter(|s| !s.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.to_owned(), v.to_owned())
        })
        .collect();
    SearchParams::parse(&pairs).unwrap()
}

#[test]
fn facets_of_the_mixed_types_add_up_and_a_scope_hides_the_rest() {
    let (_dir, lib) = library();
    let page = lib
        .search(&params("facets=mime,puid,jhove"), &Scope::all())
        .unwrap();
    assert_eq!(page.total, 300);
    let count = |facet: &str, value: &str| {
        page.facets[facet]
            .iter()
            .find(|v| v.value == value)
            .map_or(0, |v| v.count)
    };
    assert_eq!(count("mime", "text/html"), 120, "8 in 20");
    assert_eq!(count("mime", "image/jpeg"), 60);
    assert_eq!(count("puid", "fmt/43"), 60, "from the CRATE records");
    assert_eq!(count("jhove", "valid"), 60);
    let images = Scope(vec!["mime:image/*".parse().unwrap()]);
    let seen = lib.search(&params("facets=mime"), &images).unwrap();
    assert_eq!(seen.total, 60);
    assert_eq!(seen.facets["mime"].len(), 1);
    assert_eq!(lib.count(&images).unwrap(), 60);
    let hot = lib.captures(HOT_URL, &Scope::all(), 1000).unwrap();
    assert_eq!(hot.len(), 30);
    assert!(
        hot.windows(2).all(|w| w[0].time < w[1].time),
        "oldest first"
    );
}

#[test]
fn the_mementos_of_a_url_come_from_the_cdxj_index_or_within_a_scope_from_the_search_index() {
    let (_dir, lib) = library();
    let all = mementos(&lib, HOT_URL, &Scope::all()).unwrap();
    assert_eq!(all.len(), 30);
    let scoped = mementos(
        &lib,
        HOT_URL,
        &Scope(vec!["host:h0.example.org".parse().unwrap()]),
    )
    .unwrap();
    assert_eq!(scoped, all, "both ways agree");
    let none = mementos(
        &lib,
        HOT_URL,
        &Scope(vec!["host:elsewhere.org".parse().unwrap()]),
    )
    .unwrap();
    assert!(none.is_empty());
}

#[test]
fn a_query_that_does_not_parse_is_a_bad_request() {
    let (_dir, lib) = library();
    let err = lib.search(&params("q=title:"), &Scope::all()).unwrap_err();
    assert!(
        matches!(err, SearchError::Query(ref e) if e.to_string().contains("q=")),
        "{err}"
    );
    let empty = Library::new(&[PathBuf::from("/nonexistent")], Duration::from_secs(1));
    assert!(matches!(
        empty.search(&params(""), &Scope::all()),
        Err(SearchError::NotReady(_))
    ));
}

#[test]
fn formats_are_named_and_the_set_facet_leaves_the_mime_sets_to_the_mime_facet() {
    let (_dir, lib) = library();
    let page = lib
        .search(&params("facets=puid,set,mime"), &Scope::all())
        .unwrap();
    let jpeg = page.facets["puid"]
        .iter()
        .find(|v| v.value == "fmt/43")
        .unwrap();
    assert_eq!(
        jpeg.name.as_deref(),
        Some("JPEG File Interchange Format"),
        "the name FIDO's findings give"
    );
    let sets: Vec<&str> = page.facets["set"]
        .iter()
        .map(|v| v.value.as_str())
        .collect();
    assert!(
        sets.iter().all(|s| *s != "mime" && !s.starts_with("mime:")),
        "{sets:?}"
    );
    assert!(!page.facets["mime"].is_empty());
    // A set= filter still takes a MIME set.
    let images = lib
        .search(&params("set=mime:image"), &Scope::all())
        .unwrap();
    assert_eq!(
        images.total,
        page.facets["mime"]
            .iter()
            .filter(|v| v.value.starts_with("image/"))
            .map(|v| v.count)
            .sum::<u64>()
    );
}

#[test]
fn the_word_cloud_describes_every_match_whatever_the_order() {
    let dir = tempfile::tempdir().unwrap();
    synthetic(dir.path(), 0, 2500, 30);
    index(dir.path());
    let lib = Library::new(&[PathBuf::from(dir.path())], Duration::from_secs(5));
    for a in lib.archives() {
        a.reopen().unwrap();
    }
    let cloud = |q: &str| lib.terms(&params(q), &Scope::all(), 40).unwrap();
    let newest = cloud("sort=newest");
    assert_eq!((newest.total, newest.sampled), (2500, 1000));
    for other in ["sort=oldest", "sort=relevance", ""] {
        assert_eq!(cloud(other).terms, newest.terms, "{other}");
    }
}

#[test]
fn pages_count_from_one() {
    let (_dir, lib) = library();
    let first = lib.search(&params("size=10"), &Scope::all()).unwrap();
    let old_first = lib
        .search(&params("size=10&page=0"), &Scope::all())
        .unwrap();
    let second = lib
        .search(&params("size=10&page=2"), &Scope::all())
        .unwrap();
    assert_eq!((first.page, old_first.page, second.page), (1, 1, 2));
    assert_eq!(first.totalpage, 30);
    let urls = |p: &modoai_explorer::search::Page| -> Vec<String> {
        p.data.iter().map(|i| i.url.clone()).collect()
    };
    assert_eq!(urls(&first), urls(&old_first));
    assert!(urls(&second).iter().all(|u| !urls(&first).contains(u)));
    let past = lib
        .search(&params("size=10&page=31"), &Scope::all())
        .unwrap();
    assert_eq!((past.page, past.count, past.total), (31, 0, 300));
}

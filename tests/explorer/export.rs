//! Every result of a search: paging by cursor through the API (`after=`, `next`).

use super::{shared_explorer, Explorer};

/// The ids of every hit of `query`, following each answer's `next`.
fn walk(e: &Explorer, query: &str, key: Option<&str>) -> Vec<String> {
    let mut ids = Vec::new();
    let mut after = String::new();
    loop {
        let r = e.get_ready(&format!("/api/v1/search?{query}&after={after}"), key);
        assert_eq!(r.status, 200, "{}", r.body);
        let page = r.json();
        ids.extend(super::each(&page, "data", "id"));
        match page["next"].as_str() {
            Some(next) => after = next.to_owned(),
            None => return ids,
        }
    }
}

#[test]
fn the_api_pages_through_every_hit_by_cursor() {
    let e = shared_explorer("export-cursor", true);
    for (query, sort) in [
        ("size=2", ""),
        ("size=3&sort=oldest", "&sort=oldest"),
        (
            "size=2&q=report%20OR%20pictures",
            "&q=report%20OR%20pictures",
        ),
    ] {
        let all = e
            .get_ready(&format!("/api/v1/search?size=100&facets={sort}"), None)
            .json();
        assert!(all["next"].is_null(), "one page holds them all: no next");
        let ids = walk(&e, query, None);
        assert_eq!(
            ids,
            super::each(&all, "data", "id"),
            "{query}: every hit, once, in order"
        );
        assert!(ids.len() >= 2, "{query}");
    }
    let first = e.get_ready("/api/v1/search?size=2", None).json();
    let next = first["next"].as_str().unwrap();
    let second = e
        .get_ready(&format!("/api/v1/search?size=2&after={next}"), None)
        .json();
    assert_eq!(second["page"], 2);

    let other = e.get(
        &format!("/api/v1/search?size=2&q=report&after={next}"),
        None,
    );
    assert_eq!(other.status, 409, "{}", other.body);
    assert!(other.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("start again without after="));
    let bad = e.get("/api/v1/search?after=not-a-cursor", None);
    assert_eq!(bad.status, 400, "{}", bad.body);
    let deep = e.get("/api/v1/search?page=101&size=100", None);
    assert_eq!(deep.status, 400);
    assert!(deep.body.contains("after="), "{}", deep.body);
}

//! Paging by cursor: every hit once, in the order of `page=`, across archives whose captures
//! tie; a cursor of another search or of an index that changed is refused.

use std::path::{Path, PathBuf};
use std::time::Duration;

use modoai_explorer::search::{Cursor, CursorError, Library, Scope, SearchError, SearchParams};

use super::{index, synthetic};

/// Two archives of the same captures (every capture time ties across them), indexed.
fn twins() -> (tempfile::TempDir, Vec<PathBuf>) {
    let root = tempfile::tempdir().unwrap();
    let dirs = vec![root.path().join("a"), root.path().join("b")];
    for d in &dirs {
        synthetic(d, 0, 150, 10);
        index(d);
    }
    (root, dirs)
}

fn library(dirs: &[PathBuf]) -> Library {
    let library = Library::new(dirs, Duration::from_secs(30));
    for a in library.archives() {
        a.reopen().unwrap();
    }
    library
}

fn params(query: &str) -> SearchParams {
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    SearchParams::parse(&pairs).unwrap()
}

/// Every hit as (archive, id), page by page with `page=`.
fn by_page(library: &Library, query: &str) -> Vec<(String, String)> {
    let mut all = Vec::new();
    for page in 1.. {
        let p = library
            .search(&params(&format!("{query}&page={page}")), &Scope::all())
            .unwrap();
        if p.data.is_empty() {
            break;
        }
        all.extend(p.data.into_iter().map(|i| (i.archive, i.id)));
    }
    all
}

/// Every hit as (archive, id), following each answer's `next`; the pages' numbers too.
fn by_cursor(library: &Library, query: &str) -> (Vec<(String, String)>, Vec<usize>) {
    let (mut all, mut pages) = (Vec::new(), Vec::new());
    let mut after = String::new();
    loop {
        let p = library
            .search(&params(&format!("{query}&after={after}")), &Scope::all())
            .unwrap();
        assert!(!p.partial);
        pages.push(p.page);
        all.extend(p.data.into_iter().map(|i| (i.archive, i.id)));
        match p.next {
            Some(next) => after = next,
            None => return (all, pages),
        }
    }
}

#[test]
fn a_cursor_walks_every_hit_once_in_the_order_of_pages() {
    let (_root, dirs) = twins();
    let library = library(&dirs);
    let word = library
        .terms(&params(""), &Scope::all(), 1)
        .unwrap()
        .terms
        .remove(0)
        .term;
    for query in [
        "size=7".to_owned(),
        "size=7&sort=oldest".to_owned(),
        format!("size=7&q={word}"),
        "size=100&facets=".to_owned(),
    ] {
        let pages = by_page(&library, &query);
        let (cursor, numbers) = by_cursor(&library, &query);
        assert_eq!(cursor, pages, "{query}");
        let total = library
            .search(&params(&query), &Scope::all())
            .unwrap()
            .total;
        assert_eq!(cursor.len() as u64, total, "{query}: every hit");
        let unique: std::collections::HashSet<_> = cursor.iter().collect();
        assert_eq!(unique.len(), cursor.len(), "{query}: each once");
        assert_eq!(numbers, (1..=numbers.len()).collect::<Vec<_>>(), "{query}");
    }
    assert_eq!(by_cursor(&library, "size=7").0.len(), 300);
}

#[test]
fn the_last_page_has_no_next_and_an_exact_fit_ends_too() {
    let (_root, dirs) = twins();
    let library = library(&dirs);
    let p = library.search(&params("size=100"), &Scope::all()).unwrap();
    let next = p.next.expect("300 hits: a next page");
    let p = library
        .search(&params(&format!("size=100&after={next}")), &Scope::all())
        .unwrap();
    let next = p.next.expect("a third page");
    let p = library
        .search(&params(&format!("size=100&after={next}")), &Scope::all())
        .unwrap();
    assert_eq!((p.count, p.page), (100, 3));
    assert!(p.next.is_none(), "the last 100 of 300: no page after");
}

fn refusal(library: &Library, query: &str, scope: &Scope) -> CursorError {
    match library.search(&params(query), scope) {
        Err(SearchError::Cursor(e)) => e,
        other => panic!("{query}: {other:?}"),
    }
}

#[test]
fn a_cursor_of_another_search_or_of_a_changed_index_is_refused() {
    let (_root, dirs) = twins();
    let library = library(&dirs);
    let next = library
        .search(&params("size=5"), &Scope::all())
        .unwrap()
        .next
        .unwrap();
    let all = Scope::all();
    let key: Scope = Scope(vec!["archive:a".parse().unwrap()]);
    for (query, scope) in [
        (format!("size=5&sort=oldest&after={next}"), &all),
        (format!("size=5&q=x&after={next}"), &all),
        (format!("size=5&mime=text/html&after={next}"), &all),
        (format!("size=5&after={next}"), &key),
    ] {
        assert_eq!(refusal(&library, &query, scope), CursorError::OtherSearch);
    }
    // Another size is the same search: the next page is as long as asked.
    let p = library
        .search(&params(&format!("size=9&after={next}")), &all)
        .unwrap();
    assert_eq!(p.count, 9);

    add_captures(&dirs[1]);
    library.archives()[1].reopen().unwrap();
    let e = refusal(&library, &format!("size=5&after={next}"), &all);
    assert_eq!(e, CursorError::Stale);
    assert!(e.to_string().contains("start again without after="), "{e}");
    let forged = Cursor {
        state: 0,
        ..Cursor::decode(&next).unwrap()
    };
    let e = refusal(&library, &format!("size=5&after={}", forged.encode()), &all);
    assert_eq!(e, CursorError::Stale);
}

/// More captures in `dir`, indexed: the index changes.
fn add_captures(dir: &Path) {
    synthetic(dir, 150, 5, 0);
    index(dir);
}

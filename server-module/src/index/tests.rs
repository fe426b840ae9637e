//! The store as a whole: bulk load, pages and counts, the datestamp rule, deletions, the change
//! log, and a reopened store answering as before.

use std::sync::Arc;

use modoai_protocol::{Datestamp, SetSpec};

use super::bulk::{self, Found};
use super::entry::Stamp;
use super::write::Op;
use super::{catalog, codec};
use super::{ChangeKind, Filter, Index};

fn stamp(n: u64) -> Stamp {
    Stamp {
        size: n,
        mtime_ns: i128::from(n) * 1_000_000_000,
        inode: n,
    }
}

fn found(path: &str, secs: i64, mime: &str) -> Found {
    Found {
        path: Arc::from(path),
        stamp: stamp(secs as u64),
        mtime: Datestamp::from_unix(secs),
        mime: mime.to_owned(),
    }
}

fn filter(set: Option<&str>, from: Option<i64>) -> Filter {
    Filter {
        from: from.map(Datestamp::from_unix),
        until: None,
        set: set.and_then(SetSpec::parse),
    }
}

fn paths(index: &Index, f: &Filter) -> Vec<String> {
    index
        .view()
        .page(f, None, 1000)
        .iter()
        .map(|e| e.path.to_string())
        .collect()
}

#[test]
fn a_stored_index_pages_counts_and_keeps_its_rules_across_a_reopen() {
    let state = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let index = Index::open(Some(state.path()), root.path()).unwrap();
    assert!(!index.catalog().complete);
    let files = [
        found("a.txt", 300, "text/plain"),
        found("b/c.jpg", 100, "image/jpeg"),
        found("b/d.png", 200, "image/png"),
    ];
    bulk::load(&index, files.into_iter()).unwrap();
    assert_eq!(
        paths(&index, &filter(None, None)),
        ["b/c.jpg", "b/d.png", "a.txt"],
        "by datestamp: mtimes of the first index"
    );
    assert_eq!(
        paths(&index, &filter(Some("mime:image"), None)),
        ["b/c.jpg", "b/d.png"]
    );
    assert_eq!(
        paths(&index, &filter(None, Some(150))),
        ["b/d.png", "a.txt"]
    );
    let view = index.view();
    assert_eq!(view.count(&filter(Some("mime:image:png"), None)), 1);
    assert_eq!(view.count(&filter(None, Some(150))), 2);
    drop(view);
    assert_eq!(index.earliest(), Some(Datestamp::from_unix(100)));
    assert!(
        index.changes(None, None, None, 10).is_empty(),
        "the first index is the baseline"
    );

    // After the first index, a file with an old mtime gets the moment it is stored.
    let before = Datestamp::now();
    let put = Op::Put {
        path: Arc::from("old.txt"),
        stamp: stamp(5),
        mtime: Datestamp::from_unix(5),
        mime: "text/plain".into(),
    };
    assert_eq!(
        index
            .apply(
                vec![
                    put.clone(),
                    Op::Delete {
                        path: Arc::from("a.txt")
                    }
                ],
                true
            )
            .unwrap(),
        2
    );
    assert_eq!(
        index.apply(vec![put], true).unwrap(),
        0,
        "an unchanged version is no change"
    );
    let old = index.get("old.txt").unwrap();
    assert!(old.datestamp >= before, "{:?}", old.datestamp);
    for path in ["old.txt", "a.txt", "missing.txt"] {
        let (viewed, latest) = (index.get(path), index.latest(path));
        assert_eq!(
            viewed.map(|e| (e.datestamp, e.mime.clone(), e.deleted)),
            latest.map(|e| (e.datestamp, e.mime.clone(), e.deleted)),
            "{path}: the same record without a view"
        );
    }
    let catalog = index.catalog();
    assert!(catalog.knows_mime(0) && !catalog.knows_mime(u32::MAX));
    let gone = index.get("a.txt").unwrap();
    assert!(gone.deleted && gone.datestamp >= before);
    assert_eq!(index.len(), 3);
    let changes = index.changes(Some(before), None, None, 10);
    let kinds: Vec<(ChangeKind, &str)> =
        changes.iter().map(|c| (c.kind, c.path.as_str())).collect();
    assert_eq!(kinds.len(), 2);
    assert!(
        kinds.contains(&(ChangeKind::Created, "old.txt"))
            && kinds.contains(&(ChangeKind::Deleted, "a.txt"))
    );
    let first = &changes[0];
    assert_eq!(
        index
            .changes(None, None, Some((first.datestamp, first.seq)), 10)
            .len(),
        1,
        "paging after a change"
    );

    let all = paths(&index, &filter(None, None));
    drop(index);
    let again = Index::open(Some(state.path()), root.path()).unwrap();
    assert!(again.catalog().complete);
    assert_eq!(paths(&again, &filter(None, None)), all);
    assert!(
        again.get("a.txt").unwrap().deleted,
        "a deletion survives the reopen"
    );
    assert_eq!(again.changes(None, None, None, 10).len(), 2);
    assert_eq!(
        again.set_specs(),
        [
            "mime",
            "mime:image",
            "mime:image:jpeg",
            "mime:image:png",
            "mime:text",
            "mime:text:plain"
        ]
    );

    // Without deletion records, a deletion forgets the record.
    again
        .apply(
            vec![Op::Delete {
                path: Arc::from("old.txt"),
            }],
            false,
        )
        .unwrap();
    assert!(again.get("old.txt").is_none());
    assert_eq!(again.view().count(&filter(Some("mime:text"), None)), 1);
}

#[test]
fn an_unfinished_first_index_is_started_again() {
    let state = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let index = Index::open(Some(state.path()), root.path()).unwrap();
    index.ks.records.insert("half", "done").unwrap();
    drop(index);
    let again = Index::open(Some(state.path()), root.path()).unwrap();
    assert!(again.ks.records.get("half").unwrap().is_none());
}

#[test]
fn old_changes_are_forgotten_and_the_log_says_where_it_starts() {
    let state = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let index = Index::open(Some(state.path()), root.path()).unwrap();
    assert_eq!(index.changes_from(), None, "no log before the first index");
    let before = Datestamp::now();
    bulk::load(&index, [found("a.txt", 300, "text/plain")].into_iter()).unwrap();
    let from = index.changes_from().unwrap();
    assert!(from >= before && from <= Datestamp::now(), "{from:?}");
    // A store from before the log's start was recorded, holding three changes.
    let mut old = (*index.catalog()).clone();
    old.log_from = None;
    index.ks.meta.insert(catalog::KEY, old.encode()).unwrap();
    index.publish(old);
    for (secs, seq) in [(1000, 7), (2000, 8), (3000, 9)] {
        let key = codec::change_key(Datestamp::from_unix(secs), seq);
        let value = codec::change_value(ChangeKind::Updated, "a.txt");
        index.ks.changes.insert(key.to_vec(), value).unwrap();
    }
    assert_eq!(index.changes_from(), Some(Datestamp::from_unix(1000)));

    let cut = Datestamp::from_unix(2500);
    assert_eq!(index.forget_changes_before(cut).unwrap(), 2);
    assert_eq!(index.forget_changes_before(cut).unwrap(), 0, "nothing left");
    assert_eq!(
        index
            .forget_changes_before(Datestamp::from_unix(2000))
            .unwrap(),
        0,
        "an earlier cut changes nothing"
    );
    let kept = |i: &Index| -> Vec<i64> {
        i.changes(None, None, None, 10)
            .iter()
            .map(|c| c.datestamp.unix())
            .collect()
    };
    assert_eq!(kept(&index), [3000]);
    assert_eq!(index.changes_from(), Some(cut));
    drop(index);
    let again = Index::open(Some(state.path()), root.path()).unwrap();
    assert_eq!(again.changes_from(), Some(cut), "kept across a reopen");
    assert_eq!(kept(&again), [3000]);
}

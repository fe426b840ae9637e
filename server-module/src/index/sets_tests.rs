//! Folder and named sets in the store: one range per set whatever its depth, counts that follow
//! every batch, and a change of definitions moving exactly the records it concerns.

use std::sync::Arc;

use modoai_protocol::{Datestamp, SetSpec};

use super::bulk::{self, Found};
use super::entry::Stamp;
use super::write::Op;
use super::{Filter, Index};
use crate::sets::{Definitions, FolderSets, NamedSet};

fn found(path: &str, secs: i64, mime: &str) -> Found {
    Found {
        path: Arc::from(path),
        stamp: Stamp {
            size: secs as u64,
            mtime_ns: i128::from(secs) * 1_000_000_000,
            inode: secs as u64,
        },
        mtime: Datestamp::from_unix(secs),
        mime: mime.to_owned(),
    }
}

fn in_set(index: &Index, spec: &str) -> Vec<String> {
    let filter = Filter {
        set: Some(SetSpec::parse(spec).unwrap()),
        ..Filter::default()
    };
    let view = index.view();
    let page: Vec<String> = view
        .page(&filter, None, 1000)
        .iter()
        .map(|e| e.path.to_string())
        .collect();
    assert_eq!(view.count(&filter), page.len() as u64, "count of {spec}");
    page
}

fn defs(folders: FolderSets, named: &[(&str, &str)]) -> Arc<Definitions> {
    let named = named
        .iter()
        .map(|(spec, pattern)| NamedSet::new(spec, spec).unwrap().include(pattern).unwrap())
        .collect();
    Arc::new(Definitions::new(folders, named).unwrap())
}

fn site(index: &Index) {
    let files = [
        found("a.txt", 10, "text/plain"),
        found("docs/index.html", 20, "text/html"),
        found("docs/reports/2019.pdf", 30, "application/pdf"),
        found("docs/reports/old/2001.pdf", 40, "application/pdf"),
        found("docs0/x.txt", 50, "text/plain"),
        found("img/a%20b.png", 60, "image/png"),
    ];
    bulk::load(index, files.into_iter()).unwrap();
}

#[test]
fn a_folder_set_holds_its_descendants_and_named_sets_their_members() {
    let root = tempfile::tempdir().unwrap();
    let index = Index::open(None, root.path()).unwrap();
    index.publish_definitions(defs(
        FolderSets::All,
        &[("reports", "**/*.pdf"), ("reports:old", "**/old/**")],
    ));
    site(&index);
    assert_eq!(
        in_set(&index, "path:docs"),
        [
            "docs/index.html",
            "docs/reports/2019.pdf",
            "docs/reports/old/2001.pdf"
        ],
        "its own files and its descendants', not docs0's"
    );
    assert_eq!(
        in_set(&index, "path:docs:reports"),
        ["docs/reports/2019.pdf", "docs/reports/old/2001.pdf"]
    );
    assert_eq!(in_set(&index, "path:img"), ["img/a%20b.png"]);
    assert_eq!(
        in_set(&index, "path").len(),
        6,
        "the root folder is the site"
    );
    assert_eq!(
        in_set(&index, "reports"),
        ["docs/reports/2019.pdf", "docs/reports/old/2001.pdf"]
    );
    assert_eq!(in_set(&index, "reports:old"), ["docs/reports/old/2001.pdf"]);
    assert!(in_set(&index, "path:nothing").is_empty());
    assert!(in_set(&index, "undefined").is_empty());
    let e = index.get("docs/reports/old/2001.pdf").unwrap();
    assert_eq!(
        e.set_specs(),
        [
            "mime",
            "mime:application",
            "mime:application:pdf",
            "path:docs:reports:old",
            "reports",
            "reports:old"
        ]
    );
    assert_eq!(index.get("a.txt").unwrap().set_specs()[3], "path");
    let view = index.view();
    let (folders, total) = view.folder_sets(None, 100);
    let names: Vec<&str> = folders.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(
        names,
        ["docs", "docs/reports", "docs/reports/old", "docs0", "img"]
    );
    assert_eq!(total, 5);
    assert_eq!(folders[0].1, 3);
    let (rest, _) = view.folder_sets(Some("docs/reports"), 100);
    assert_eq!(rest.len(), 3, "paged after a folder");
}

#[test]
fn batches_keep_the_sets_and_their_counts() {
    let root = tempfile::tempdir().unwrap();
    let index = Index::open(None, root.path()).unwrap();
    index.publish_definitions(defs(FolderSets::All, &[]));
    site(&index);
    let put = |path: &str| Op::Put {
        path: Arc::from(path),
        stamp: Stamp {
            size: 1,
            mtime_ns: 1,
            inode: 1,
        },
        mtime: Datestamp::from_unix(1),
        mime: "text/plain".into(),
    };
    index.apply(vec![put("new/deep/x.txt")], true).unwrap();
    assert_eq!(in_set(&index, "path:new"), ["new/deep/x.txt"]);
    assert_eq!(index.view().folder_sets(None, 0).1, 7);
    // A deletion stays in the sets the file was in.
    let gone = Op::Delete {
        path: Arc::from("img/a%20b.png"),
    };
    index.apply(vec![gone], true).unwrap();
    assert_eq!(in_set(&index, "path:img"), ["img/a%20b.png"]);
    assert!(index.get("img/a%20b.png").unwrap().deleted);
    // A record that goes leaves its sets, and an empty folder set goes with it.
    let forget = Op::Forget {
        path: Arc::from("img/a%20b.png"),
    };
    index.apply(vec![forget], true).unwrap();
    assert!(in_set(&index, "path:img").is_empty());
    assert_eq!(index.view().folder_sets(None, 0).1, 6);
}

#[test]
fn a_change_of_definitions_moves_exactly_the_records_it_concerns() {
    let state = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let index = Index::open(Some(state.path()), root.path()).unwrap();
    let first = defs(FolderSets::All, &[("reports", "docs/reports/*")]);
    index.publish_definitions(first.clone());
    site(&index);
    assert!(index.follows(&first));
    assert_eq!(index.regroup(first.clone()).unwrap(), 0, "nothing to move");
    let before = Datestamp::now();
    let second = defs(
        FolderSets::Depth(1.try_into().unwrap()),
        &[("reports", "**/*.pdf")],
    );
    // 2001.pdf joins `reports`; it and 2019.pdf leave docs:reports* (depth 1); the rest stay.
    assert_eq!(index.regroup(second.clone()).unwrap(), 2);
    assert!(index.follows(&second) && !index.follows(&first));
    assert_eq!(
        in_set(&index, "reports"),
        ["docs/reports/2019.pdf", "docs/reports/old/2001.pdf"]
    );
    assert!(in_set(&index, "path:docs:reports").is_empty());
    assert_eq!(in_set(&index, "path:docs").len(), 3);
    for path in ["docs/reports/2019.pdf", "docs/reports/old/2001.pdf"] {
        let e = index.get(path).unwrap();
        assert!(e.datestamp >= before, "{path} moved: {:?}", e.datestamp);
        assert_eq!(e.set_specs()[3], "path:docs");
    }
    assert_eq!(
        index.get("a.txt").unwrap().datestamp,
        Datestamp::from_unix(10)
    );
    assert_eq!(
        index.changes(None, None, None, 10).len(),
        0,
        "the files did not change"
    );
    let folders: Vec<String> = index
        .view()
        .folder_sets(None, 100)
        .0
        .into_iter()
        .map(|(f, _)| f)
        .collect();
    assert_eq!(folders, ["docs", "docs0", "img"]);
    drop(index);
    let again = Index::open(Some(state.path()), root.path()).unwrap();
    assert!(again.follows(&second), "kept across a reopen");
    assert!(!again.follows(&first));
}

//! Incremental indexing: only what the ledger added since the checkpoint.

use modoai_explorer::index::ArchiveIndex;

use super::{index, synthetic};

#[test]
fn only_captures_added_since_the_last_run_are_indexed() {
    let dir = tempfile::tempdir().unwrap();
    synthetic(dir.path(), 0, 400, 20);
    let first = index(dir.path());
    assert_eq!((first.added, first.total, first.rebuilt), (400, 400, false));
    let again = index(dir.path());
    assert_eq!((again.added, again.total), (0, 400), "nothing new");
    synthetic(dir.path(), 400, 25, 0);
    let more = index(dir.path());
    assert_eq!((more.added, more.total), (25, 425));
    let idx = ArchiveIndex::open(dir.path()).unwrap().unwrap();
    let cp = idx.checkpoint().unwrap();
    assert_eq!(cp.captures, 425);
    assert_eq!(
        cp.ledger,
        std::fs::metadata(dir.path().join("ledger.jsonl"))
            .unwrap()
            .len()
    );
}

#[test]
fn an_index_of_another_schema_or_unreadable_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    synthetic(dir.path(), 0, 50, 0);
    index(dir.path());
    std::fs::write(ArchiveIndex::path_of(dir.path()).join("meta.json"), "{}").unwrap();
    let report = index(dir.path());
    assert_eq!((report.added, report.total, report.rebuilt), (50, 50, true));
}

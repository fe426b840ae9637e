//! Deletions kept beside the index: added incrementally, cut back to the last commit after a
//! killed run, added to an index built before they were kept; a URL gone until its file is back.

use std::path::{Path, PathBuf};
use std::time::Duration;

use modoai_explorer::index::{ArchiveIndex, DELETIONS_FILE};
use modoai_explorer::search::{gone_since, Library, Scope};
use modoai_explorer::synthetic::{delete, restore, HOT_URL};
use time::macros::datetime;

use super::{index, synthetic};

/// The captures and deletions of [`HOT_URL`], and the datestamp it is gone since.
fn hot(dir: &Path) -> (usize, Vec<String>, Option<String>) {
    let lib = Library::new(&[PathBuf::from(dir)], Duration::from_secs(5));
    lib.archives()[0].reopen().unwrap();
    let captures = lib.captures(HOT_URL, &Scope::all(), 100).unwrap();
    let deletions = lib.deletions(HOT_URL, &Scope::all()).unwrap();
    let gone = gone_since(&captures, &deletions).map(|g| g.datestamp.clone());
    let dates = deletions.into_iter().map(|g| g.datestamp).collect();
    (captures.len(), dates, gone)
}

#[test]
fn a_deleted_url_is_gone_until_its_file_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    synthetic(dir.path(), 0, 40, 5);
    assert_eq!(index(dir.path()).deletions, 0);
    delete(dir.path(), HOT_URL, datetime!(2015-02-01 0:00 UTC)).unwrap();
    let report = index(dir.path());
    assert_eq!((report.added, report.deletions), (0, 1), "incremental");
    let feb = "2015-02-01T00:00:00Z".to_owned();
    assert_eq!(hot(dir.path()), (5, vec![feb.clone()], Some(feb.clone())));
    // Harvested again (a full re-harvest lists it again): the same deletion.
    delete(dir.path(), HOT_URL, datetime!(2015-02-01 0:00 UTC)).unwrap();
    assert_eq!(index(dir.path()).deletions, 0);
    restore(
        dir.path(),
        HOT_URL,
        datetime!(2015-03-01 0:00 UTC),
        "<p>back</p>",
    )
    .unwrap();
    assert_eq!(index(dir.path()).added, 1);
    assert_eq!(hot(dir.path()), (6, vec![feb], None), "back: not gone");
}

#[test]
fn a_killed_run_leaves_no_deletion_twice_and_an_older_index_gets_them() {
    let dir = tempfile::tempdir().unwrap();
    synthetic(dir.path(), 0, 20, 3);
    delete(dir.path(), HOT_URL, datetime!(2015-02-01 0:00 UTC)).unwrap();
    assert_eq!(index(dir.path()).deletions, 1);
    let file = ArchiveIndex::path_of(dir.path()).join(DELETIONS_FILE);
    let covered = std::fs::read(&file).unwrap();
    // A killed run appended past its last commit: readers skip it, the next run cuts it.
    let mut torn = covered.clone();
    torn.extend_from_slice(b"{\"url\":\"http://torn");
    std::fs::write(&file, &torn).unwrap();
    assert_eq!(hot(dir.path()).1.len(), 1);
    synthetic(dir.path(), 20, 2, 0);
    assert_eq!(index(dir.path()).deletions, 0);
    assert_eq!(std::fs::read(&file).unwrap(), covered);
    // An index from before deletions were kept: its checkpoint without them, no file.
    forget_deletions(dir.path());
    std::fs::remove_file(&file).unwrap();
    assert_eq!(hot(dir.path()).1.len(), 0);
    let report = index(dir.path());
    assert_eq!(
        (report.added, report.deletions, report.rebuilt),
        (0, 1, false)
    );
    assert_eq!(hot(dir.path()).2.as_deref(), Some("2015-02-01T00:00:00Z"));
}

/// Takes the deletions out of the index's last checkpoint, as an older version wrote it.
fn forget_deletions(archive: &Path) {
    let meta = ArchiveIndex::path_of(archive).join("meta.json");
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&meta).unwrap()).unwrap();
    let mut payload: serde_json::Value =
        serde_json::from_str(m["payload"].as_str().unwrap()).unwrap();
    payload
        .as_object_mut()
        .unwrap()
        .remove("deletions")
        .unwrap();
    m["payload"] = payload.to_string().into();
    std::fs::write(&meta, m.to_string()).unwrap();
}

//! The datestamp rule under a wall clock stepped back: new versions, deletions, records moved
//! into other sets and response dates never get a moment before the highest one given, not
//! even after a restart.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use modoai_protocol::Datestamp;

use super::bulk::{self, Found};
use super::clock::Clock;
use super::entry::Stamp;
use super::write::Op;
use super::Index;
use crate::sets::{Definitions, FolderSets, NamedSet};

fn stamp(n: u64) -> Stamp {
    Stamp {
        size: n,
        mtime_ns: i128::from(n) * 1_000_000_000,
        inode: n,
    }
}

fn put(path: &str, secs: i64) -> Op {
    Op::Put {
        path: Arc::from(path),
        stamp: stamp(secs as u64),
        mtime: Datestamp::from_unix(secs),
        mime: "text/plain".into(),
    }
}

/// A wall clock the test sets, and an index of `state` reading it.
fn open(state: &std::path::Path, root: &std::path::Path, wall: &Arc<AtomicI64>) -> Index {
    let w = wall.clone();
    let clock = Clock::new(move || Datestamp::from_unix(w.load(Ordering::SeqCst)));
    Index::open_with_clock(Some(state), root, clock).unwrap()
}

fn datestamp(index: &Index, path: &str) -> i64 {
    index.get(path).unwrap().datestamp.unix()
}

#[test]
fn datestamps_never_go_backwards_when_the_clock_is_stepped_back() {
    const HIGH: i64 = 1_800_000_000;
    let (state, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let wall = Arc::new(AtomicI64::new(HIGH));
    let index = open(state.path(), root.path(), &wall);
    let found = Found {
        path: Arc::from("a.txt"),
        stamp: stamp(100),
        mtime: Datestamp::from_unix(100),
        mime: "text/plain".into(),
    };
    bulk::load(&index, [found].into_iter()).unwrap();
    index.apply(vec![put("b.txt", 200)], true).unwrap();
    assert_eq!(datestamp(&index, "b.txt"), HIGH);
    assert_eq!(index.view().date.unix(), HIGH);

    // The clock steps back an hour: nothing is dated before what was given.
    wall.store(HIGH - 3_600, Ordering::SeqCst);
    assert_eq!(index.view().date.unix(), HIGH, "a response date");
    let ops = vec![
        put("c.txt", 300),
        Op::Delete {
            path: "a.txt".into(),
        },
    ];
    index.apply(ops, true).unwrap();
    assert_eq!(datestamp(&index, "c.txt"), HIGH, "a new version");
    assert_eq!(datestamp(&index, "a.txt"), HIGH, "a deletion");
    let named = NamedSet::new("notes", "Notes")
        .unwrap()
        .include("*.txt")
        .unwrap();
    let defs = Definitions::new(FolderSets::All, vec![named]).unwrap();
    assert!(index.regroup(Arc::new(defs)).unwrap() > 0);
    assert_eq!(
        datestamp(&index, "b.txt"),
        HIGH,
        "a record moved into a set"
    );

    // The wall clock passes the highest moment: it is the clock again.
    wall.store(HIGH + 10, Ordering::SeqCst);
    index.apply(vec![put("d.txt", 400)], true).unwrap();
    assert_eq!(datestamp(&index, "d.txt"), HIGH + 10);
    assert_eq!(index.view().date.unix(), HIGH + 10);

    // Restarted with the clock a day back: the highest moment is stored with the index.
    drop(index);
    wall.store(HIGH - 86_400, Ordering::SeqCst);
    let again = open(state.path(), root.path(), &wall);
    assert_eq!(again.view().date.unix(), HIGH + 10, "a response date");
    again.apply(vec![put("e.txt", 500)], true).unwrap();
    assert_eq!(datestamp(&again, "e.txt"), HIGH + 10, "a new version");
    let changes = again.changes(None, None, None, 100);
    let dates: Vec<i64> = changes.iter().map(|c| c.datestamp.unix()).collect();
    assert!(
        dates.is_sorted(),
        "the change log never goes back: {dates:?}"
    );
}

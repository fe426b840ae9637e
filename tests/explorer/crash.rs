//! `kill -9` while indexing: the next run completes the index, with every capture once.

use std::process::Stdio;
use std::time::{Duration, Instant};

use integration_tests::http::MARGIN;
use integration_tests::process::{modoai_explorer, signal, Running};
use integration_tests::TestSite;
use rustix::process::Signal;

use super::{enc, explorer, harvest_didl, work_dir, Explorer};

/// Files of the site.
const FILES: usize = 300;

/// A site of `FILES` small distinct text files harvested in oai_didl (no plugins): the archive
/// and the site's base URL.
pub(crate) fn many_files(work: &std::path::Path) -> (std::path::PathBuf, String) {
    let site = TestSite::empty();
    for i in 0..FILES {
        site.write(
            &format!("notes/n{i:04}.txt"),
            format!("note number {i} about harbour {}", i * 7).as_bytes(),
            Some(1_700_000_000 + i as u64),
        );
    }
    let archive = work.join("archive");
    let port = harvest_didl(site.path(), work, &archive);
    (archive, format!("http://127.0.0.1:{port}/"))
}

/// Captures the index of `archive` (inside it) has committed.
pub(crate) fn committed(archive: &std::path::Path) -> u64 {
    index_committed(&archive.join("explorer-index"))
}

/// Captures the index in the folder `index` covers with its last commit (its checkpoint payload
/// in meta.json; a foreign collection's has the same `captures` field).
pub(crate) fn index_committed(index: &std::path::Path) -> u64 {
    let Ok(text) = std::fs::read_to_string(index.join("meta.json")) else {
        return 0;
    };
    let Ok(meta) = serde_json::from_str::<serde_json::Value>(&text) else {
        return 0;
    };
    meta["payload"]
        .as_str()
        .and_then(|p| serde_json::from_str::<serde_json::Value>(p).ok())
        .and_then(|p| p["captures"].as_u64())
        .unwrap_or(0)
}

#[test]
fn a_killed_indexing_is_completed_by_the_next_run_with_every_capture_once() {
    let work = work_dir("crash");
    let (archive, base) = many_files(&work);
    let child = modoai_explorer()
        .args(["index", "--quiet", "--commit-every", "1", "--archive"])
        .arg(&archive)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut child = Running(child);
    let started = Instant::now();
    while committed(&archive) < 20 {
        assert!(started.elapsed() < MARGIN, "no commit seen");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        child.0.try_wait().unwrap().is_none(),
        "still indexing when killed"
    );
    signal(child.0.id(), Signal::KILL);
    let status = child.0.wait().unwrap();
    assert_eq!(status.code(), None, "killed by the signal");
    let before = committed(&archive);
    assert!(before > 0 && before < FILES as u64, "{before}");
    let out = explorer(&["index", "--archive", archive.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stderr);
    let total = FILES as u64; // the site has no root page to capture
    assert!(
        said.contains(&format!(
            "{} captures added, {total} in the index",
            total - before
        )),
        "{said}"
    );
    let e = Explorer::start(&[&archive], &work, "[access]\nanonymous-api = true\n");
    assert_eq!(e.get_ready("/api/v1/search", None).json()["total"], total);
    for i in 0..FILES {
        let url = format!("{base}notes/n{i:04}.txt");
        let list = e
            .get(&format!("/api/v1/captures?url={}", enc(&url)), None)
            .json();
        assert_eq!(list["count"], 1, "{url}: once, not lost and not twice");
    }
}

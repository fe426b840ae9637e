//! An archive not indexed yet answers 503 with Retry-After until its index is built (and a key's
//! quota does not pay for those answers); a damaged or missing index is rebuilt from the archive.

use super::crash::many_files;
use super::{add_key, copy_dir, explorer, harvested, work_dir, Explorer};

#[test]
fn an_archive_being_indexed_answers_503_with_retry_after_then_its_results() {
    let work = work_dir("repair-503");
    let (archive, _) = many_files(&work);
    let key = add_key(&work.join("keys.toml"), "patient", &["--quota", "50/hour"]);
    // A commit every five captures: the first build takes a while, and searches wait for it.
    let e = Explorer::start(
        &[&archive],
        &work,
        "[access]\nanonymous-api = true\n[index]\ncommit-every = 5\n",
    );
    let r = e.get("/api/v1/search", None);
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
    assert!(r.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("being built"));
    let waited = e.get("/api/v1/search", Some(&key));
    assert_eq!(waited.status, 503, "{}", waited.body);
    let done = e.get_ready("/api/v1/search", Some(&key));
    assert_eq!(done.json()["total"], 300);
    assert_eq!(
        done.header("ratelimit").and_then(|f| f.split(';').nth(1)),
        Some("r=49"),
        "the 503 answers before it are not counted against the quota"
    );
}

#[test]
fn a_damaged_or_missing_index_is_rebuilt_from_the_archive() {
    let work = work_dir("repair-damaged");
    let archive = work.join("archive");
    copy_dir(&harvested().archive, &archive);
    let expected = {
        let e = Explorer::start(&[&archive], &work, "[access]\nanonymous-api = true\n");
        e.get_ready("/api/v1/search", None).json()["total"]
            .as_u64()
            .unwrap()
    };
    // Garbage in the middle of every segment file.
    for f in std::fs::read_dir(archive.join("explorer-index")).unwrap() {
        let path = f.unwrap().path();
        if path.extension().is_some_and(|e| e != "json" && e != "lock") {
            let mut bytes = std::fs::read(&path).unwrap();
            let mid = bytes.len() / 2;
            for b in bytes.iter_mut().skip(mid).take(16) {
                *b ^= 0x5a;
            }
            std::fs::write(&path, bytes).unwrap();
        }
    }
    let e = Explorer::start(&[&archive], &work, "[access]\nanonymous-api = true\n");
    assert_eq!(
        e.get_ready("/api/v1/search", None).json()["total"],
        expected,
        "rebuilt, never a 500"
    );
    drop(e);
    // A meta.json that is not one, then no index at all: `index` rebuilds.
    std::fs::write(archive.join("explorer-index/meta.json"), "not json").unwrap();
    let out = explorer(&["index", "--archive", archive.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success()
            && said.contains("rebuilt")
            && said.contains(&format!("{expected} in the index")),
        "{said}"
    );
    std::fs::remove_dir_all(archive.join("explorer-index")).unwrap();
    let out = explorer(&["index", "--archive", archive.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("{expected} captures added")));
}

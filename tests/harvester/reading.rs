//! Reading an archive needs read access only: `inspect archive`, `profile`, `pwid resolve` and
//! `corpus` work while the archive's lock is held (a harvest runs) and change no byte of it; they
//! work during a harvest and after one was killed (kill -9: an `.open` WARC file, no index yet),
//! and `repair` makes such an archive whole without harvesting.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use integration_tests::process::{program, Running};
use integration_tests::{Server, TestSite};
use sha1::{Digest, Sha1};

use super::our_server::site_files;
use super::{archive_check, blocking, ledger, run};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every file of the archive: (length, modification time, SHA-1 of its bytes).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, SystemTime, Vec<u8>)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let meta = e.metadata().unwrap();
            let bytes = std::fs::read(e.path()).unwrap();
            let value = (
                meta.len(),
                meta.modified().unwrap(),
                Sha1::digest(&bytes).to_vec(),
            );
            (e.path().to_owned(), value)
        })
        .collect()
}

/// `inspect archive --parts --json`: one object per part.
fn parts(archive: &Path) -> Vec<serde_json::Value> {
    let (out, _) = run(&["inspect", "archive", s(archive), "--parts", "--json"], 0);
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every part resolves (`--json`) to its record, whose extracted bytes are the site file's.
fn every_part_resolves(archive: &Path, files: &[(String, PathBuf)], work: &Path) -> usize {
    let listed = parts(archive);
    let out = work.join("extracted");
    for part in &listed {
        let url = part["url"].as_str().unwrap();
        let (_, file) = files.iter().find(|(u, _)| u == url).unwrap();
        let pwid = part["pwid"].as_str().unwrap();
        let args = ["pwid", "resolve", pwid, "--archive", s(archive)];
        let (json, _) = run(&[&args[..], &["--json", "--extract", s(&out)]].concat(), 0);
        let found: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        assert_eq!(found["offset"], part["offset"], "{json}");
        assert_eq!(
            found["extracted_bytes"],
            std::fs::metadata(file).unwrap().len()
        );
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(file).unwrap(),
            "{url}"
        );
    }
    listed.len()
}

/// The `warcFile`s a corpus definition cites, each checked to exist.
fn corpus_files_exist(archive: &Path, corpus: &Path) -> usize {
    let xml = std::fs::read(corpus).unwrap();
    let files = integration_tests::attrs(&xml, "part", "warcFile");
    for f in &files {
        assert!(
            archive.join("warcs").join(f).is_file(),
            "{f} does not exist"
        );
    }
    files.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_takes_no_lock_and_changes_no_byte_of_the_archive() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c.page_size(5)).await;
    let files = site_files(site.path(), &server.base);
    let work = tempfile::tempdir().unwrap();
    let (archive, oai) = (work.path().join("archive"), server.oai.clone());
    let work = work.path().to_owned();
    blocking(move || {
        let harvest = ["harvest", &oai, "--archive", s(&archive), "--quiet"];
        run(
            &[&harvest[..], &["--metadata-prefix", "oai_didl"]].concat(),
            0,
        );
        let before = snapshot(&archive);
        // Held as a harvester holds it: a harvest is refused, reading is not.
        let lock = std::fs::File::open(archive.join("lock")).unwrap();
        lock.try_lock().expect("the archive is not in use");
        let (_, err) = run(&harvest, 1);
        assert!(err.contains("in use"), "{err}");
        let (text, _) = run(&["inspect", "archive", s(&archive)], 0);
        assert!(text.contains("(oai_didl)"), "{text}");
        let (json, _) = run(&["inspect", "archive", s(&archive), "--json"], 0);
        let report: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(report["lists"][0]["items"], files.len(), "{json}");
        assert_eq!(report["open_warc_files"], 0, "{json}");
        assert_eq!(every_part_resolves(&archive, &files, &work), files.len());
        let profile = work.join("profile.ukvs");
        let args = ["profile", "--archive", s(&archive), "--out", s(&profile)];
        let (json, _) = run(&[&args[..], &["--json"]].concat(), 0);
        let stats: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        assert!(stats["out_lines"].as_u64().unwrap() > 4, "{json}");
        let (json, _) = run(
            &["profile", "lookup", s(&profile), &files[0].0, "--json"],
            0,
        );
        let hit: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        assert_eq!(
            (hit["frequency"].as_str(), hit["distance"].as_u64()),
            (Some("1/1"), Some(0))
        );
        let corpus = work.join("corpus.xml");
        run(
            &["corpus", "--archive", s(&archive), "--out", s(&corpus)],
            0,
        );
        assert_eq!(corpus_files_exist(&archive, &corpus), files.len());
        drop(lock);
        assert!(before == snapshot(&archive), "reading changed the archive");
    })
    .await;
    server.stop().await;
}

/// Waits until the ledger lists `n` items (whole lines: one may be being written), or panics
/// after a minute.
fn wait_for_items(archive: &Path, n: usize, child: &mut Running) {
    let start = Instant::now();
    let lines = || {
        let ledger = std::fs::read(archive.join("ledger.jsonl")).unwrap_or_default();
        ledger.iter().filter(|&&b| b == b'\n').count()
    };
    while lines() < n {
        assert!(
            child.0.try_wait().unwrap().is_none(),
            "the harvest ended early"
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no {n} items after a minute"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archive_is_read_during_a_harvest_and_after_kill_9_then_repaired() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c.page_size(1)).await;
    let files = site_files(site.path(), &server.base);
    let work = tempfile::tempdir().unwrap();
    let (archive, oai) = (work.path().join("archive"), server.oai.clone());
    let work = work.path().to_owned();
    blocking(move || {
        let harvest = ["harvest", &oai, "--archive", s(&archive), "--quiet"];
        let harvest = [&harvest[..], &["--metadata-prefix", "oai_didl"]].concat();
        // One record a page and a second between requests: reading happens mid-harvest.
        let mut child = Running(
            Command::new(program("modoai-harvester"))
                .args(&harvest)
                .args(["--delay", "1"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        wait_for_items(&archive, 3, &mut child);
        let (json, _) = run(&["inspect", "archive", s(&archive), "--json"], 0);
        let report: serde_json::Value = serde_json::from_str(&json).unwrap();
        let items = report["lists"][0]["items"].as_u64().unwrap();
        assert!((3..files.len() as u64).contains(&items), "{json}");
        assert_eq!(report["open_warc_files"], 1, "{json}");
        assert!(every_part_resolves(&archive, &files, &work) >= 3);
        child.0.kill().unwrap(); // SIGKILL: the lock is released, the WARC file stays `.open`
        child.0.wait().unwrap();
        let warcs: Vec<String> = std::fs::read_dir(archive.join("warcs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(warcs.iter().any(|w| w.ends_with(".open")), "{warcs:?}");
        assert!(
            !archive.join("index.cdxj").exists(),
            "indexed before the end"
        );

        // A killed harvest's archive: every service works on its complete items.
        let profile = work.join("profile.ukvs");
        run(
            &["profile", "--archive", s(&archive), "--out", s(&profile)],
            0,
        );
        let listed = every_part_resolves(&archive, &files, &work);
        assert!(listed >= 3);
        let part = parts(&archive)[0]["url"].as_str().unwrap().to_owned();
        run(&["profile", "lookup", s(&profile), &part], 0);
        let corpus = work.join("corpus.xml");
        let (_, err) = run(
            &["corpus", "--archive", s(&archive), "--out", s(&corpus)],
            3,
        );
        let repair = format!("modoai-harvester repair --archive {}", archive.display());
        assert!(err.contains(&repair), "{err}");
        corpus_files_exist(&archive, &corpus);
        let (_, err) = run(&["inspect", "archive", s(&archive)], 0);
        assert!(err.contains(&repair), "{err}");

        // `repair` closes the file and writes the index; nothing is harvested.
        let (out, _) = run(&["repair", "--archive", s(&archive)], 0);
        assert!(out.contains("1 WARC files closed"), "{out}");
        assert!(archive.join("index.cdxj").exists());
        let (out, _) = run(&["repair", "--archive", s(&archive)], 0);
        assert!(out.contains("nothing to repair"), "{out}");
        assert_eq!(ledger(&archive).len(), listed);
        run(
            &["corpus", "--archive", s(&archive), "--out", s(&corpus)],
            0,
        );
        assert_eq!(corpus_files_exist(&archive, &corpus), listed);
        run(&harvest, 0);
        assert_eq!(every_part_resolves(&archive, &files, &work), files.len());
        archive_check(&archive);
    })
    .await;
    server.stop().await;
}

#[test]
fn repair_of_a_folder_that_is_no_archive_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let (_, err) = run(&["repair", "--archive", s(dir.path())], 2);
    assert!(err.contains("is not an archive"), "{err}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing created"
    );
}

/// A ledger line with every field written out, as earlier versions wrote them.
fn every_field(e: &modoai_archive::archive::Entry) -> String {
    serde_json::json!({
        "endpoint": e.endpoint, "prefix": e.prefix, "identifier": e.identifier,
        "datestamp": e.datestamp, "deleted": e.deleted, "sets": e.sets,
        "harvested": e.harvested, "bytes": e.bytes, "records": e.records, "kind": e.kind,
    })
    .to_string()
}

/// An archive whose ledger lines carry every field (as earlier versions wrote them) reads the
/// same: `inspect` lists the same parts, and a full re-harvest finds every item already held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ledger_with_every_field_written_out_still_reads() {
    let site = TestSite::empty();
    site.write("a.txt", b"alpha\n", Some(1_700_000_000));
    site.write("dir/b.html", b"<p>b</p>\n", Some(1_700_000_100));
    let server = Server::start(site.path(), |c| c.page_size(5)).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let a = s(&archive).to_owned();
    let oai = server.oai.clone();
    let harvest = move || {
        let args = [
            "harvest",
            &oai,
            "--archive",
            &a,
            "--metadata-prefix",
            "oai_didl",
            "--full",
        ];
        run(&args, 0).0
    };
    let first = blocking(harvest.clone()).await;
    assert!(first.contains("2 archived"), "{first}");
    let a = s(&archive).to_owned();
    let parts = move || run(&["inspect", "archive", &a, "--parts", "--json"], 0).0;
    let before = blocking(parts.clone()).await;

    let path = archive.join("ledger.jsonl");
    let compact = std::fs::read_to_string(&path).unwrap();
    let entries: Vec<modoai_archive::archive::Entry> = compact
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let full: String = entries.iter().map(|e| every_field(e) + "\n").collect();
    assert!(
        full.len() > compact.len() * 5 / 4,
        "the lines written now are shorter: {} vs {} bytes",
        compact.len(),
        full.len()
    );
    std::fs::write(&path, &full).unwrap();
    // The state counts the ledger's bytes already in the CDXJ index: all of them, as before.
    let state_path = archive.join("state.json");
    let mut state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&state_path).unwrap()).unwrap();
    state["indexed"] = full.len().into();
    std::fs::write(&state_path, state.to_string()).unwrap();

    assert_eq!(blocking(parts).await, before, "the same parts");
    let again = blocking(harvest).await;
    assert!(again.contains("0 archived"), "{again}");
    assert_eq!(ledger(&archive).len(), 2, "no item twice");
    archive_check(&archive);
    server.stop().await;
}

//! The index kept in the state folder, with the real `modoai` binary: a restart answers at once
//! as before (deletions included, `deletedRecord` = `persistent`); a file copied in with an old
//! mtime is in the next incremental harvest, also when it came while the server was down; and a
//! `kill -9` during the first index or during a burst of file changes leaves an index that the
//! next start makes consistent with the disk.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use integration_tests::http::{get, MARGIN};
use integration_tests::process::{free_port, signal, spawn_modoai, start_modoai, Running};
use integration_tests::site::TestSite;
use integration_tests::xml::{element_attrs, texts};
use rustix::process::Signal;

/// The public URL of the test sites, so identifiers do not depend on the port.
const BASE: &str = "http://site.example/";
const ARGS: [&str; 2] = ["--base-url", BASE];

/// One header of a list: identifier, datestamp, deleted.
type Header = (String, String, bool);

/// The body of a GET (after the response head).
fn body(port: u16, target: &str) -> Vec<u8> {
    let out = get(port, target);
    let at = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(0, |p| p + 4);
    out[at..].to_vec()
}

/// Every header of a whole ListIdentifiers in oai_dc after `query` (`&from=…`), with the
/// response date of its first page and its completeListSize (0 for noRecordsMatch).
fn list(port: u16, query: &str) -> (Vec<Header>, String, u64) {
    let mut target = format!("/modoai?verb=ListIdentifiers&metadataPrefix=oai_dc{query}");
    let (mut headers, mut date, mut size) = (Vec::new(), String::new(), None);
    loop {
        let page = body(port, &target);
        if date.is_empty() {
            date = texts(&page, "responseDate").remove(0);
        }
        let ids = texts(&page, "identifier");
        let stamps = texts(&page, "datestamp");
        let status = element_attrs(&page, "header");
        for ((id, stamp), attrs) in ids.into_iter().zip(stamps).zip(status) {
            headers.push((
                id,
                stamp,
                attrs.get("status").is_some_and(|s| s == "deleted"),
            ));
        }
        let token = element_attrs(&page, "resumptionToken");
        if size.is_none() {
            size = Some(
                token
                    .first()
                    .and_then(|t| t.get("completeListSize"))
                    .map_or(headers.len() as u64, |s| s.parse().unwrap()),
            );
        }
        match texts(&page, "resumptionToken").first() {
            Some(t) if !t.is_empty() => {
                target = format!("/modoai?verb=ListIdentifiers&resumptionToken={t}")
            }
            _ => return (headers, date, size.unwrap_or(0)),
        }
    }
}

/// The live identifiers of a list.
fn live(headers: &[Header]) -> BTreeSet<String> {
    headers
        .iter()
        .filter(|h| !h.2)
        .map(|h| h.0.clone())
        .collect()
}

/// The identifiers of the files on disk (names the tests make need no encoding).
fn on_disk(root: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for d in std::fs::read_dir(root).unwrap().flatten() {
        for f in std::fs::read_dir(d.path()).unwrap().flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            out.insert(format!("{BASE}{}/{name}", d.file_name().to_string_lossy()));
        }
    }
    out
}

fn get_record(port: u16, id: &str) -> Vec<u8> {
    body(
        port,
        &format!("/modoai?verb=GetRecord&metadataPrefix=oai_dc&identifier={id}"),
    )
}

/// Waits until `check` holds, polling.
fn until(what: &str, mut check: impl FnMut() -> bool) {
    let t = Instant::now();
    while !check() {
        assert!(t.elapsed() < MARGIN, "{what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// SIGTERM, then waits for the exit.
fn stop(mut server: Running) {
    signal(server.0.id(), Signal::TERM);
    server.0.wait().unwrap();
}

/// Makes `folders` folders of `files` small files each: `dNN/fNNNN.txt`.
fn many_files(root: &Path, folders: usize, files: usize) {
    for d in 0..folders {
        let dir = root.join(format!("d{d:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..files {
            std::fs::write(dir.join(format!("f{f:04}.txt")), format!("{d} {f}\n")).unwrap();
        }
    }
}

#[test]
fn a_restart_answers_as_before_with_its_deletions() {
    let site = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let (server, port) = start_modoai(site.path(), work.path(), "[oai]\npage-size = 4\n", &ARGS);
    let identify = body(port, "/modoai?verb=Identify");
    assert_eq!(texts(&identify, "deletedRecord"), ["persistent"]);
    std::fs::remove_file(site.path().join("docs/readme.txt")).unwrap();
    let gone = format!("{BASE}docs/readme.txt");
    until("the deletion was never seen", || {
        element_attrs(&get_record(port, &gone), "header")[0].contains_key("status")
    });
    let (before, _, size) = list(port, "");
    assert_eq!(size as usize, before.len());
    let deleted_record = get_record(port, &gone);
    stop(server);
    assert!(
        work.path().join("modoai-state").is_dir(),
        "the state folder beside the configuration"
    );

    let (server, port) = start_modoai(site.path(), work.path(), "[oai]\npage-size = 4\n", &ARGS);
    let (after, _, size) = list(port, "");
    assert_eq!(
        after, before,
        "the same records, datestamps and deletions after the restart"
    );
    assert_eq!(size as usize, after.len());
    let strip = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .split("</responseDate>")
            .nth(1)
            .unwrap()
            .to_owned()
    };
    assert_eq!(strip(&get_record(port, &gone)), strip(&deleted_record));
    stop(server);

    // Without deletion records, the stored deletion is forgotten, and Identify says so.
    let (_server, port) = start_modoai(
        site.path(),
        work.path(),
        "[oai]\ndeleted-records = false\n",
        &ARGS,
    );
    assert_eq!(
        texts(&body(port, "/modoai?verb=Identify"), "deletedRecord"),
        ["no"]
    );
    let error = get_record(port, &gone);
    assert_eq!(element_attrs(&error, "error")[0]["code"], "idDoesNotExist");
}

#[test]
fn a_file_copied_in_with_an_old_mtime_is_in_the_next_incremental_harvest() {
    let site = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let (server, port) = start_modoai(site.path(), work.path(), "", &ARGS);
    let (_, harvested, _) = list(port, "");
    // 2001-01-01: long before the harvest, as `cp -p`, `rsync -t` or `tar x` leave it.
    site.write("old/copied.txt", b"copied\n", Some(978_307_200));
    let id = format!("{BASE}old/copied.txt");
    until("the copied file never became a record", || {
        !texts(&get_record(port, &id), "identifier").is_empty()
    });
    let (next, _, _) = list(port, &format!("&from={harvested}"));
    let found = next
        .iter()
        .find(|h| h.0 == id)
        .expect("the next incremental harvest has the file");
    assert!(
        found.1 >= harvested,
        "its datestamp {} is not before the harvest {harvested}",
        found.1
    );
    let head = String::from_utf8_lossy(&get(port, "/old/copied.txt")).into_owned();
    assert!(
        head.to_ascii_lowercase()
            .contains("last-modified: mon, 01 jan 2001 00:00:00 gmt"),
        "Last-Modified stays the mtime: {head}"
    );
    let (_, harvested, _) = list(port, "");
    stop(server);

    // Copied in while the server was down: found by the reconciling scan after the restart.
    site.write("old/while-down.txt", b"copied\n", Some(978_307_200));
    let (_server, port) = start_modoai(site.path(), work.path(), "", &ARGS);
    let id = format!("{BASE}old/while-down.txt");
    until("the file copied while down never became a record", || {
        !texts(&get_record(port, &id), "identifier").is_empty()
    });
    let (next, _, _) = list(port, &format!("&from={harvested}"));
    assert!(next.iter().any(|h| h.0 == id), "{next:?}");
}

#[test]
fn killed_during_the_first_index_the_next_start_indexes_every_file() {
    let site = TestSite::empty();
    many_files(site.path(), 30, 500);
    let work = tempfile::tempdir().unwrap();
    for delay_ms in [20, 150, 400, 900] {
        let mut server = spawn_modoai(site.path(), work.path(), "", &ARGS, free_port());
        std::thread::sleep(Duration::from_millis(delay_ms));
        signal(server.0.id(), Signal::KILL);
        server.0.wait().unwrap();
    }
    let (_server, port) = start_modoai(site.path(), work.path(), "", &ARGS);
    let (headers, _, size) = list(port, "");
    assert_eq!(live(&headers), on_disk(site.path()));
    assert_eq!(
        (headers.len(), size as usize),
        (15_000, 15_000),
        "every file once, counted right"
    );
}

#[test]
fn killed_during_a_burst_of_changes_the_next_start_matches_the_disk() {
    let site = TestSite::empty();
    many_files(site.path(), 10, 200);
    let work = tempfile::tempdir().unwrap();
    let (mut server, _) = start_modoai(site.path(), work.path(), "", &ARGS);
    let root = site.path().to_path_buf();
    let burst = std::thread::spawn(move || {
        for i in 0..3000_usize {
            let d = root.join(format!("d{:02}", i % 10));
            std::fs::write(d.join(format!("new{i:05}.txt")), "new\n").unwrap();
            std::fs::write(
                d.join(format!("f{:04}.txt", (i * 7) % 200)),
                format!("changed {i}\n"),
            )
            .unwrap();
            let _ = std::fs::remove_file(d.join(format!("f{:04}.txt", (i * 13) % 200)));
        }
    });
    std::thread::sleep(Duration::from_millis(300));
    signal(server.0.id(), Signal::KILL);
    server.0.wait().unwrap();
    burst.join().unwrap();

    let (_server, port) = start_modoai(site.path(), work.path(), "", &ARGS);
    until("the index never matched the disk after the restart", || {
        live(&list(port, "").0) == on_disk(site.path())
    });
    let (headers, _, size) = list(port, "");
    assert_eq!(size as usize, headers.len(), "the counts match the records");
    let ids: BTreeSet<&String> = headers.iter().map(|h| &h.0).collect();
    assert_eq!(ids.len(), headers.len(), "each path once");
    for (id, stamp, deleted) in headers.iter().step_by(97) {
        let record = get_record(port, id);
        assert_eq!(
            texts(&record, "datestamp"),
            std::slice::from_ref(stamp),
            "{id}"
        );
        assert_eq!(
            element_attrs(&record, "header")[0].contains_key("status"),
            *deleted,
            "{id}"
        );
    }
}

//! Ctrl-C (SIGINT) and SIGTERM during a harvest: the harvester stops at a safe point, leaves a
//! closed, indexed archive, says how to continue and exits 130; a second signal aborts at once.
//! Either way, the same command again completes the list with every record exactly once.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use integration_tests::fault::{FaultServer, Reply, RequestInfo};
use integration_tests::process::{program, signal, Running};
use rustix::process::Signal;

use super::scripted::{page, IDENTIFY};
use super::{archive_check, harvest_ok, ledger};

/// Pages in the slow list, three records each.
const PAGES: usize = 20;

/// Identify, then [`PAGES`] pages of three records, each page's head 150 ms late.
fn slow_pages(req: &RequestInfo) -> Reply {
    if req.params("verb") == ["Identify"] {
        return Reply::ok(IDENTIFY);
    }
    let n: usize = match req.params("resumptionToken").pop() {
        Some(t) => t.trim_start_matches('p').parse().unwrap(),
        None => 0,
    };
    let token = (n + 1 < PAGES).then(|| format!("p{}", n + 1));
    Reply::ok(page(n * 3, 3, token.as_deref())).delay_head(Duration::from_millis(150))
}

fn args(url: &str, archive: &Path) -> Vec<String> {
    [
        "harvest",
        url,
        "--archive",
        archive.to_str().unwrap(),
        "--metadata-prefix",
        "oai_dc",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn spawn(args: &[String]) -> Running {
    let child = Command::new(program("modoai-harvester"))
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run modoai-harvester");
    Running(child)
}

/// Waits (at most a minute: a bound against hangs) until the ledger has `n` items.
fn wait_for_items(archive: &Path, n: usize) {
    let start = Instant::now();
    while ledger(archive).len() < n {
        assert!(start.elapsed() < Duration::from_secs(60), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits (at most `bound`) for the child to exit; its code, stdout and stderr.
fn finish(child: &mut Child, bound: Duration) -> (Option<i32>, String, String) {
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < bound, "the harvester did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out.0)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut out.1)
        .unwrap();
    (status.code(), out.0, out.1)
}

fn assert_closed_and_indexed(archive: &Path) {
    for e in std::fs::read_dir(archive.join("warcs")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".open"), "{name} left open");
    }
    let index = std::fs::read_to_string(archive.join("index.cdxj")).expect("index.cdxj");
    assert_eq!(
        index.lines().filter(|l| l.contains("GetRecord")).count(),
        ledger(archive).len(),
        "one indexed metadata record per ledgered item"
    );
    archive_check(archive);
}

/// The archive services read the interrupted archive: a profile from its index, and a corpus
/// whose WARC files all exist.
fn assert_readable(archive: &Path) {
    let a = archive.to_str().unwrap();
    let profile = archive.with_extension("ukvs");
    harvest_ok(
        &[
            "profile",
            "--archive",
            a,
            "--out",
            profile.to_str().unwrap(),
        ],
        0,
    );
    let corpus = harvest_ok(&["corpus", "--archive", a, "--out", "-"], 0);
    let warcs: Vec<&str> = corpus
        .split(|c: char| c.is_whitespace() || "<>\"'/".contains(c))
        .filter(|w| w.ends_with(".warc.gz"))
        .collect();
    assert!(!warcs.is_empty(), "{corpus}");
    for w in warcs {
        assert!(archive.join("warcs").join(w).exists(), "{w} cited, absent");
    }
}

/// The same command again: completes, continuing, with every record exactly once.
fn assert_resumes_to_the_end(args: &[String], archive: &Path) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let stdout = harvest_ok(&args, 0);
    assert!(
        stdout.contains("continued an interrupted harvest"),
        "{stdout}"
    );
    let mut ids: Vec<String> = ledger(archive).into_iter().map(|e| e.identifier).collect();
    ids.sort();
    let mut all: Vec<String> = (0..PAGES * 3)
        .map(|i| format!("oai:scripted:{i}"))
        .collect();
    all.sort();
    assert_eq!(ids, all, "every record exactly once");
    assert_closed_and_indexed(archive);
}

#[test]
fn sigint_stops_at_a_safe_point_closes_the_archive_and_exits_130() {
    let server = FaultServer::start(slow_pages);
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let args = args(&server.url("/oai"), &archive);
    let mut child = spawn(&args);
    wait_for_items(&archive, 6);
    signal(child.0.id(), Signal::INT);
    let (code, stdout, stderr) = finish(&mut child.0, Duration::from_secs(30));
    assert_eq!(code, Some(130), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(
        stderr.contains("interrupted; run the same command again to continue"),
        "{stderr}"
    );
    assert!(stdout.contains("INTERRUPTED"), "the summary: {stdout}");
    let items = ledger(&archive).len();
    assert!((6..PAGES * 3).contains(&items), "{items} items");
    assert_closed_and_indexed(&archive);
    assert_readable(&archive);
    assert_resumes_to_the_end(&args, &archive);
}

#[test]
fn sigterm_stops_every_endpoint_of_a_harvest_list_at_a_safe_point() {
    // Two endpoints (one server under two host names) into two archives, harvested at once.
    let one = FaultServer::start(slow_pages);
    let two = FaultServer::start_as("localhost", slow_pages);
    let work = tempfile::tempdir().unwrap();
    let list = work.path().join("list.toml");
    let mut toml = String::new();
    for (server, archive) in [(&one, "one"), (&two, "two")] {
        toml.push_str(&format!(
            "[[endpoint]]\nurl = \"{}\"\narchive = \"{archive}\"\nmetadata-prefix = \"oai_dc\"\n",
            server.url("/oai")
        ));
    }
    std::fs::write(&list, toml).unwrap();
    let archives = ["one", "two"].map(|a| work.path().join(a));
    let harvest_list = ["harvest-list".to_owned(), list.to_str().unwrap().to_owned()];
    let mut child = spawn(&harvest_list);
    for archive in &archives {
        wait_for_items(archive, 3);
    }
    signal(child.0.id(), Signal::TERM);
    let (code, stdout, stderr) = finish(&mut child.0, Duration::from_secs(30));
    assert_eq!(code, Some(130), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert_eq!(
        stderr
            .matches("interrupted; run the same command again to continue")
            .count(),
        1,
        "{stderr}"
    );
    assert_eq!(stdout.matches("INTERRUPTED").count(), 2, "{stdout}");
    for archive in &archives {
        assert!(ledger(archive).len() < PAGES * 3);
        assert_closed_and_indexed(archive);
    }
    let args: Vec<&str> = harvest_list.iter().map(String::as_str).collect();
    let stdout = harvest_ok(&args, 0);
    assert_eq!(
        stdout.matches("continued an interrupted harvest").count(),
        2,
        "{stdout}"
    );
    for archive in &archives {
        assert_eq!(
            ledger(archive).len(),
            PAGES * 3,
            "every record exactly once"
        );
        assert_closed_and_indexed(archive);
    }
}

#[test]
fn a_second_sigint_aborts_at_once_and_the_next_run_recovers() {
    // Page 3 stalls for a minute inside its first record, once: the first SIGINT waits for the
    // record being received, the second does not.
    let stalled = Arc::new(AtomicBool::new(false));
    let s = stalled.clone();
    let server = FaultServer::start(move |req| {
        if req.params("resumptionToken") == ["p2"] && !s.swap(true, Ordering::SeqCst) {
            return Reply::stall(page(6, 3, Some("p3")), 400, Duration::from_secs(60));
        }
        slow_pages(req)
    });
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let args = args(&server.url("/oai"), &archive);
    let mut child = spawn(&args);
    wait_for_items(&archive, 6);
    while !stalled.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    signal(child.0.id(), Signal::INT);
    std::thread::sleep(Duration::from_millis(300));
    assert!(child.0.try_wait().unwrap().is_none(), "waits for the item");
    signal(child.0.id(), Signal::INT);
    let (code, stdout, stderr) = finish(&mut child.0, Duration::from_secs(20));
    assert_eq!(code, Some(130), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stderr.contains("aborted"), "{stderr}");
    assert_resumes_to_the_end(&args, &archive);
}

//! End-to-end tests of `modoai-harvester`: its binary and library against our server, a pyoai
//! server and a fault-injecting one; archives checked with warcio, cdxj-indexer and pywb.

mod cli;
mod crash;
mod deletions;
mod disk_full;
mod faults;
mod interrupt;
mod manual;
mod memory;
mod mistakes;
mod our_server;
mod prefix;
mod pyoai;
mod reading;
mod scripted;
mod services;
mod sets;
mod terminal;
mod wacz;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use integration_tests::process::program;
use integration_tests::python::python;
use modoai_archive::archive::Entry;

/// The harvester binary with `args`, its environment quiet and its output captured.
pub(crate) fn harvester(args: &[&str]) -> Output {
    Command::new(program("modoai-harvester"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run modoai-harvester")
}

/// Like [`harvester`], asserting the exit code; returns stdout.
pub(crate) fn harvest_ok(args: &[&str], code: i32) -> String {
    let out = harvester(args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "modoai-harvester {args:?}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    stdout
}

/// Runs the harvester, asserting its exit code; returns stdout and stderr.
pub(crate) fn run(args: &[&str], code: i32) -> (String, String) {
    let out = harvester(args);
    let (stdout, stderr) = expect(&out, code);
    (stdout, format!("{stderr}\n(modoai-harvester {args:?})"))
}

/// Stdout and stderr of `out`, asserting its exit code.
pub(crate) fn expect(out: &Output, code: i32) -> (String, String) {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    (stdout, stderr)
}

/// Runs `f` on tokio's blocking pool (the harvester process, while the test's server runs).
pub(crate) async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

/// The ledger's items (the site pages a harvest captures besides them left out).
pub(crate) fn ledger(archive: &Path) -> Vec<Entry> {
    std::fs::read_to_string(archive.join("ledger.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Entry>(l).expect("ledger line"))
        .filter(|e| e.kind.is_item())
        .collect()
}

/// Every file of the site is in the archive exactly once, with all its bytes, and no WARC file is
/// left `.open`.
pub(crate) fn assert_each_file_once(archive: &Path, files: &[(String, PathBuf)]) {
    let entries = ledger(archive);
    let mut per_id: std::collections::HashMap<&str, usize> = Default::default();
    for e in &entries {
        *per_id.entry(&e.identifier).or_default() += 1;
    }
    assert_eq!(per_id.len(), files.len(), "every file harvested");
    assert!(per_id.values().all(|&n| n == 1), "exactly once: {per_id:?}");
    for (url, path) in files {
        let e = entries.iter().find(|e| &e.identifier == url).unwrap();
        assert_eq!(e.bytes, std::fs::metadata(path).unwrap().len(), "{url}");
    }
    for e in std::fs::read_dir(archive.join("warcs")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".open"), "{name} left open");
    }
}

/// `warcio check` on every WARC, and our CDXJ against cdxj-indexer's and warcio's indexes.
pub(crate) fn archive_check(archive: &Path) -> String {
    python("archive_check.py", &[archive.to_str().unwrap()])
}

/// pywb replays each URL with exactly the bytes of its file.
pub(crate) fn pywb_replay(archive: &Path, expect: &[(String, PathBuf)], revisits: &[String]) {
    let args = pywb_replay_args(archive, expect, revisits, None);
    python(
        "pywb_replay.py",
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
}

/// The arguments of `pywb_replay.py`; with `wacz`, pywb replays that package of the archive.
pub(crate) fn pywb_replay_args(
    archive: &Path,
    expect: &[(String, PathBuf)],
    revisits: &[String],
    wacz: Option<&Path>,
) -> Vec<String> {
    let mut args = vec![archive.to_str().unwrap().to_owned()];
    if let Some(w) = wacz {
        args.extend(["--wacz".to_owned(), w.to_str().unwrap().to_owned()]);
    }
    for (url, file) in expect {
        args.push("--expect".into());
        args.push(format!("{url}={}", file.display()));
    }
    for url in revisits {
        args.push("--revisit".into());
        args.push(url.clone());
    }
    args
}

/// The archive scripts' own self-test (archives written by warcio, negative cases included), so
/// a checker that stopped failing would be noticed.
#[test]
fn archive_checkers_catch_what_they_should() {
    python("test_archive_tools.py", &[]);
}

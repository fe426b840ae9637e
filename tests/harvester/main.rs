//! End-to-end tests of `modoai-harvester`: its binary and library against our server, a pyoai
//! server and a fault-injecting one; archives checked with warcio, cdxj-indexer and pywb.

mod cli;
mod crash;
mod faults;
mod interrupt;
mod manual;
mod memory;
mod mistakes;
mod our_server;
mod pyoai;
mod reading;
mod scripted;
mod services;
mod shards;
mod terminal;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use integration_tests::process::program;
use integration_tests::python::python;
use modoai_harvester::archive::Entry;

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

/// The ledger's items (the site pages a harvest captures besides them left out).
pub(crate) fn ledger(archive: &Path) -> Vec<Entry> {
    std::fs::read_to_string(archive.join("ledger.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Entry>(l).expect("ledger line"))
        .filter(|e| e.kind.is_item())
        .collect()
}

/// `warcio check` on every WARC, and our CDXJ against cdxj-indexer's and warcio's indexes.
pub(crate) fn archive_check(archive: &Path) -> String {
    python("archive_check.py", &[archive.to_str().unwrap()])
}

/// pywb replays each URL with exactly the bytes of its file.
pub(crate) fn pywb_replay(archive: &Path, expect: &[(String, PathBuf)], revisits: &[String]) {
    let mut args = vec![archive.to_str().unwrap().to_owned()];
    for (url, file) in expect {
        args.push("--expect".into());
        args.push(format!("{url}={}", file.display()));
    }
    for url in revisits {
        args.push("--revisit".into());
        args.push(url.clone());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    python("pywb_replay.py", &args);
}

/// The archive scripts' own self-test (archives written by warcio, negative cases included), so
/// a checker that stopped failing would be noticed.
#[test]
fn archive_checkers_catch_what_they_should() {
    python("test_archive_tools.py", &[]);
}

//! What `modoai-explorer` tells its user about itself: the exit codes README.md and
//! docs/explorer.md list against `--help` and against what commands really exit with, shell
//! completions and manual pages.

use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use integration_tests::http::MARGIN;
use integration_tests::manual::{
    assert_bash_completes, assert_completions_know, assert_man_pages, doc_exit_codes,
    help_exit_codes,
};
use integration_tests::process::{modoai_explorer, program, signal};
use integration_tests::repo_root;
use nix::sys::signal::Signal;

use super::crash::{committed, many_files};
use super::{explorer, work_dir};

fn help_codes() -> Vec<i32> {
    help_exit_codes(&String::from_utf8_lossy(&explorer(&["--help"]).stdout))
}

#[test]
fn the_exit_codes_of_the_docs_are_those_of_help() {
    let help = help_codes();
    let guide = std::fs::read_to_string(repo_root().join("docs/explorer.md")).unwrap();
    let guide = doc_exit_codes(&guide, "Exit codes of `modoai-explorer`", "code");
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let readme = doc_exit_codes(&readme, "Exit codes", "`modoai-explorer`");
    assert_eq!(readme, help, "README.md against --help");
    assert_eq!(guide, help, "docs/explorer.md against --help");
}

#[test]
fn a_command_exits_with_each_listed_code() {
    let work = work_dir("exit-codes");
    let keys = work.join("keys.toml");
    // An empty key file: listing a missing one fails (keys::listing_a_missing_key_file_fails…).
    std::fs::write(&keys, "").unwrap();
    let keys = keys.to_str().unwrap();
    for code in help_codes() {
        let out = match code {
            0 => explorer(&["keys", "list", "--keys", keys]),
            1 => explorer(&["keys", "revoke", "nobody", "--keys", keys]),
            2 => explorer(&["index", "--archive", work.to_str().unwrap()]),
            130 => interrupted(&work),
            other => panic!("--help lists exit code {other}, and no command here produces it"),
        };
        assert_eq!(
            out.status.code(),
            Some(code),
            "stdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// An `index` sent SIGINT after its first commits (one capture per commit, so it is still
/// indexing then).
fn interrupted(work: &std::path::Path) -> Output {
    let (archive, _) = many_files(work);
    let child = modoai_explorer()
        .args(["index", "--quiet", "--commit-every", "1", "--archive"])
        .arg(&archive)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while committed(&archive) < 5 {
        assert!(started.elapsed() < MARGIN, "no commit seen");
        std::thread::sleep(Duration::from_millis(5));
    }
    signal(child.id(), Signal::SIGINT);
    child.wait_with_output().unwrap()
}

#[test]
fn completions_load_in_bash_and_exist_for_every_shell() {
    let name = "modoai-explorer";
    assert_bash_completes(&program(name), name, "ind", "index");
    assert_completions_know(&program(name), "commit-every");
}

#[test]
fn every_command_has_a_manual_page_that_renders() {
    assert_man_pages(&program("modoai-explorer"), "modoai-explorer", 9, &[]);
    assert_eq!(explorer(&["man", "no-such-command"]).status.code(), Some(2));
}

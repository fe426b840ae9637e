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
use integration_tests::{repo_root, TestSite};
use rustix::process::Signal;

use super::crash::{committed, many_files};
use super::{explorer, harvest_didl, work_dir};

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
            3 => corpus_with_a_missing_part(&work),
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

/// `corpus verify` of a corpus whose one part is in an archive not given.
fn corpus_with_a_missing_part(work: &std::path::Path) -> Output {
    let corpus = work.join("missing.corpus.xml");
    std::fs::write(
        &corpus,
        "<corpus xmlns=\"urn:modoai:corpus:2026\"><part \
         pwid=\"urn:pwid:nowhere.example:2024-01-01T00:00:00Z:part:http://a.example/\" \
         digest=\"sha1:AAAA\"/></corpus>",
    )
    .unwrap();
    let archive = super::harvested().archive.to_str().unwrap().to_owned();
    explorer(&[
        "corpus",
        "verify",
        corpus.to_str().unwrap(),
        "--archive",
        &archive,
    ])
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
    signal(child.id(), Signal::INT);
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

/// On a terminal, `index` draws its progress bar (the archive's name, a percentage, the captures
/// added), and what the HTML parser says about the pages it repairs (html5ever's "foster
/// parenting" and the like) stays out of it: parser noise is logged at debug level only.
#[test]
fn index_draws_its_progress_bar_on_a_terminal_without_parser_noise() {
    let work = work_dir("progress");
    let site = TestSite::empty();
    for i in 0..40 {
        // A block and text directly in a table (html5ever warns "foster parenting not
        // implemented"), a stray end tag, an unclosed element: pages browsers repair.
        let page = format!(
            "<html><head><title>Page {i}</title></head><body><table><div>block {i}</div>stray \
             text<tr><td>cell</td></tr></table></span><p>harbour notes <b>{i}</body></html>"
        );
        site.write(&format!("pages/p{i:02}.html"), page.as_bytes(), None);
    }
    let archive = work.join("archive");
    harvest_didl(site.path(), &work, &archive);
    // `script` gives the command a terminal and copies what it writes there.
    let command = format!(
        "{} index --commit-every 1 --archive {}",
        program("modoai-explorer").display(),
        archive.display()
    );
    let out = std::process::Command::new("script")
        .args(["--quiet", "--return", "--command", &command, "/dev/null"])
        .env("XDG_STATE_HOME", work.join("state"))
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("script (util-linux) runs");
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}");
    assert!(
        shown.contains("indexing archive") && shown.contains('%') && shown.contains("captures"),
        "the progress bar is drawn: {shown}"
    );
    assert!(
        !shown.contains("html5ever") && !shown.contains("foster"),
        "no parser noise: {shown}"
    );
    assert!(shown.contains("40 captures added"), "{shown}");
}

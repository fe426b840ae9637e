//! What `modoai-harvester` tells its user about itself: the exit codes README.md and
//! docs/archivists.md list against `--help` and against what commands really exit with, shell
//! completions and manual pages.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use integration_tests::fault::{FaultServer, Reply};
use integration_tests::http::MARGIN;
use integration_tests::manual::{
    assert_bash_completes, assert_completions_know, assert_man_pages, doc_exit_codes,
    help_exit_codes, run,
};
use integration_tests::process::{program, signal};
use integration_tests::repo_root;
use rustix::process::Signal;

use super::scripted::{crate_page, page, IDENTIFY};

fn harvester(args: &[&str]) -> Output {
    run(&program("modoai-harvester"), args)
}

fn help_codes() -> Vec<i32> {
    help_exit_codes(&String::from_utf8_lossy(&harvester(&["--help"]).stdout))
}

#[test]
fn the_exit_codes_of_the_docs_are_those_of_help() {
    let help = help_codes();
    let guide = std::fs::read_to_string(repo_root().join("docs/archivists.md")).unwrap();
    let guide = doc_exit_codes(&guide, "Exit codes of `modoai-harvester`", "code");
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let readme = doc_exit_codes(&readme, "Exit codes", "`modoai-harvester`");
    assert_eq!(readme, help, "README.md against --help");
    assert_eq!(guide, help, "docs/archivists.md against --help");
}

#[test]
fn a_command_exits_with_each_listed_code() {
    let work = tempfile::tempdir().unwrap();
    let archive = |name: &str| work.path().join(name).to_str().unwrap().to_owned();
    for code in help_codes() {
        let out = match code {
            0 => {
                let server = FaultServer::start(|req| match req.params("verb").pop().as_deref() {
                    Some("Identify") => Reply::ok(IDENTIFY),
                    _ => Reply::ok(page(0, 3, None)),
                });
                let url = server.url("/oai");
                harvester(&["harvest", &url, "--archive", &archive("ok"), "-q"])
            }
            1 => {
                let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                let url = format!("http://{}/oai", listener.local_addr().unwrap());
                drop(listener);
                let args = [
                    "harvest",
                    &url,
                    "--archive",
                    &archive("refused"),
                    "--retries",
                    "0",
                ];
                harvester(&args)
            }
            2 => {
                let url = "http://127.0.0.1:1/oai";
                let dir = archive("bad-date");
                harvester(&["harvest", url, "--archive", &dir, "--from", "2026-13-01"])
            }
            3 => {
                let didl = crate_page(b"the file's bytes", "00000000000000000000000000000000");
                let server =
                    FaultServer::start(move |req| match req.params("verb").pop().as_deref() {
                        Some("Identify") => Reply::ok(IDENTIFY),
                        _ => Reply::ok(didl.clone()),
                    });
                let url = server.url("/oai");
                let dir = archive("fixity");
                harvester(&[
                    "harvest",
                    &url,
                    "--archive",
                    &dir,
                    "--metadata-prefix",
                    "oai_crate",
                ])
            }
            130 => interrupted(&archive("interrupted")),
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

/// A harvest sent SIGINT while a page stalls half-way (for two seconds, so the run ends soon
/// whether it stops at once or after the page).
fn interrupted(archive: &str) -> Output {
    let body = page(0, 3, Some("p2"));
    let half = (body.len() / 2) as u64;
    let server = FaultServer::start(move |req| match req.params("verb").pop().as_deref() {
        Some("Identify") => Reply::ok(IDENTIFY),
        _ => Reply::stall(body.clone(), half, Duration::from_secs(2)),
    });
    let child = Command::new(program("modoai-harvester"))
        .args([
            "harvest",
            &server.url("/oai"),
            "--archive",
            archive,
            "--retries",
            "0",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !server
        .requests()
        .iter()
        .any(|r| r.params("verb") == ["ListRecords"])
    {
        assert!(
            started.elapsed() < MARGIN,
            "the harvest never asked for a page"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    signal(child.id(), Signal::INT);
    child.wait_with_output().unwrap()
}

#[test]
fn completions_load_in_bash_and_exist_for_every_shell() {
    let name = "modoai-harvester";
    assert_bash_completes(&program(name), name, "ins", "inspect");
    assert_completions_know(&program(name), "metadata-prefix");
}

#[test]
fn every_command_has_a_manual_page_that_renders() {
    let name = "modoai-harvester";
    let dir = assert_man_pages(&program(name), name, 9, &["harvest-list", "fetch-archive"]);
    let folder = dir.path().join("man1");
    let fetch = harvester(&["man", "fetch-archive"]);
    assert_eq!(
        fetch.stdout,
        std::fs::read(folder.join("modoai-harvester-fetch-archive.1")).unwrap()
    );
    assert_eq!(
        harvester(&["man", "no-such-command"]).status.code(),
        Some(2)
    );
}

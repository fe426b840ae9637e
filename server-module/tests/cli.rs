//! The `modoai` command line: start-up output, configuration errors, help.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn modoai() -> Command {
    Command::new(env!("CARGO_BIN_EXE_modoai"))
}

#[test]
fn serve_prints_the_urls_to_open_and_stops_on_sigterm() {
    let site = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/site");
    let mut child = modoai()
        .args(["serve", "--root", site, "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let second = lines.next().unwrap().unwrap();
    assert!(
        first.starts_with("modoai is serving") && first.contains("http://127.0.0.1:"),
        "{first}"
    );
    assert!(
        second.starts_with("OAI-PMH base URL: http://127.0.0.1:")
            && second.contains("/modoai?verb=Identify"),
        "{second}"
    );
    assert!(Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let status = child.wait().unwrap();
    assert!(status.success(), "SIGTERM is a clean shutdown: {status}");
}

#[test]
fn configuration_errors_name_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("modoai.toml");
    std::fs::write(&file, "[oai]\npage-size = 10\npage-sise = 3\n").unwrap();
    let out = modoai()
        .args([
            "serve",
            "--root",
            ".",
            "--listen",
            "127.0.0.1:0",
            "--config",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("modoai.toml") && err.contains("line 3") && err.contains("page-sise"),
        "{err}"
    );

    let out = modoai()
        .args([
            "serve",
            "--root",
            ".",
            "--listen",
            "127.0.0.1:0",
            "--admin-email",
            "root@localhost",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("admin e-mail"));

    let out = modoai()
        .args(["serve", "--root", "/no/such/dir"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/dir"));
}

#[test]
fn help_lists_the_flags() {
    let out = modoai().args(["serve", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--root",
        "--listen",
        "--base-url",
        "--config",
        "--page-size",
        "--page-bytes",
        "--inline-max",
        "--route",
        "--token-secret",
        "--no-watch",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
}

//! On a terminal: the progress bar is drawn, and log lines print on lines of their own around
//! it, never glued to the end of the bar. The terminal is a pseudo-terminal made by `script`
//! (util-linux), so the harvester's stderr is a TTY as on a user's screen.

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use integration_tests::fault::{FaultServer, Reply};
use integration_tests::process::{program, require_tool};

use super::scripted::{page, IDENTIFY};

/// The text of a terminal line as the user sees it: what follows the last carriage return or
/// "erase line" sequence, without colour sequences.
fn visible(line: &str) -> String {
    // The terminal ends lines with "\r\n".
    let line = line.trim_end_matches('\r');
    let last = line
        .rfind('\r')
        .into_iter()
        .chain(line.rfind("\x1b[2K").map(|i| i + 3))
        .max()
        .map_or(0, |i| i + 1);
    let mut out = String::new();
    let mut chars = line[last..].chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters final-byte.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn warnings_print_on_their_own_lines_around_the_progress_bar() {
    require_tool("script", "apt-get install bsdutils");
    // Page 2 answers 503 once: the client logs a retry while the bar shows page 1's records.
    let refused = Arc::new(AtomicBool::new(false));
    let r = refused.clone();
    let server = FaultServer::start(move |req| {
        if req.params("verb") == ["Identify"] {
            return Reply::ok(IDENTIFY);
        }
        match req.params("resumptionToken").pop().as_deref() {
            None => Reply::ok(page(0, 3, Some("p2"))),
            Some(_) if !r.swap(true, Ordering::SeqCst) => {
                Reply::status(503).header("Retry-After", "1")
            }
            Some(_) => Reply::ok(page(3, 3, None)).delay_head(Duration::from_millis(300)),
        }
    });
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let command = format!(
        "{} harvest {} --archive {} --metadata-prefix oai_dc",
        program("modoai-harvester").display(),
        server.url("/oai"),
        archive.display()
    );
    let out = Command::new("script")
        .args(["--quiet", "--return", "--command", &command, "/dev/null"])
        .env("RUST_LOG", "warn")
        .env("TERM", "xterm")
        .output()
        .expect("run script");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{screen}");
    assert!(refused.load(Ordering::SeqCst));
    assert!(
        screen.contains("records"),
        "no progress bar drawn: {screen:?}"
    );
    let warnings: Vec<String> = screen
        .lines()
        .filter(|l| l.contains("retrying"))
        .map(visible)
        .collect();
    assert!(!warnings.is_empty(), "{screen:?}");
    for w in warnings {
        assert!(
            w.trim_start().starts_with("20") && w.contains("WARN"),
            "a log line glued to the bar: {w:?}\n{screen:?}"
        );
    }
}

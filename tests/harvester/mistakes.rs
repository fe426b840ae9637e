//! A new user's mistakes: a wrong port or URL, a mistyped set, a format the endpoint does not
//! have, a malformed URL. Each fails at once with its cause and what to do, and none of them
//! fixes anything in the archive (its id, a "complete" harvest to continue incrementally from).

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use integration_tests::fault::{FaultServer, Reply, RequestInfo};
use integration_tests::process::program;

use super::scripted::{page, IDENTIFY};
use super::{expect, harvester, ledger};

/// The harvester with `args`, killed after a minute (a bound against hangs, not a speed check).
fn bounded(args: &[&str]) -> Output {
    let mut child = Command::new(program("modoai-harvester"))
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run modoai-harvester");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("the harvester still runs after a minute: {args:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A port on 127.0.0.1 where nothing listens.
fn dead_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn a_refused_port_fails_at_once_with_the_cause() {
    let port = dead_port();
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let url = format!("http://127.0.0.1:{port}/oai");
    // Default retries: the first request of a harvest is not retried when nothing listens.
    let (_, stderr) = expect(&bounded(&["harvest", &url, "--archive", path(&archive)]), 1);
    assert!(
        stderr.contains(&format!(
            "cannot connect to 127.0.0.1:{port}: connection refused; is the URL right?"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("retrying"), "{stderr}");
    assert!(!stderr.contains("run the same command again"), "{stderr}");
}

#[test]
fn an_html_page_or_a_404_on_the_first_request_is_asked_once() {
    for reply in [
        Reply::ok("<html><body>Welcome to our library</body></html>"),
        Reply::status(404),
    ] {
        let server = FaultServer::start(move |_| reply.clone());
        let url = server.url("/oai");
        let work = tempfile::tempdir().unwrap();
        let archive = work.path().join("archive");
        let (_, stderr) = expect(&bounded(&["harvest", &url, "--archive", path(&archive)]), 1);
        assert!(stderr.contains(&url), "{stderr}");
        assert_eq!(server.requests().len(), 1, "{stderr}");
    }
}

#[test]
fn a_failed_first_harvest_does_not_fix_the_archive_id() {
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let typo = format!("http://127.0.0.1:{}/oai", dead_port());
    expect(
        &bounded(&["harvest", &typo, "--archive", path(&archive)]),
        1,
    );
    let server = FaultServer::start(one_page);
    let url = server.url("/oai");
    let harvest = |id: &str| {
        bounded(&[
            "harvest",
            &url,
            "--archive",
            path(&archive),
            "--metadata-prefix",
            "oai_dc",
            "--archive-id",
            id,
        ])
    };
    expect(&harvest("archive.example.org"), 0);
    let state = std::fs::read_to_string(archive.join("state.json")).unwrap();
    let state: serde_json::Value = serde_json::from_str(&state).unwrap();
    assert_eq!(state["archive_id"], "archive.example.org");
    // Now it is fixed: another id is refused, saying why and what to do instead.
    let (_, stderr) = expect(&harvest("other.example.org"), 2);
    assert!(stderr.contains("\"archive.example.org\""), "{stderr}");
    assert!(
        stderr.contains("fixed by its first harvest on 20"),
        "{stderr}"
    );
    assert!(
        stderr.contains("drop --archive-id or use another --archive folder"),
        "{stderr}"
    );
}

/// Identify, ListSets (`mime:image`, `mime:text`), and three records in set `mime:image`;
/// `noRecordsMatch` for any other set or any `from`; `cannotDisseminateFormat` for other formats.
fn one_page(req: &RequestInfo) -> Reply {
    let param = |k: &str| req.params(k).pop();
    let body = match param("verb").as_deref() {
        Some("Identify") => IDENTIFY.to_owned(),
        Some("ListSets") => SETS.to_owned(),
        _ if param("metadataPrefix").as_deref() != Some("oai_dc") => oai_error(
            "cannotDisseminateFormat",
            "oai_crate is not supported by this repository",
        ),
        _ if param("from").is_some() => oai_error("noRecordsMatch", "nothing changed"),
        _ if param("set").is_none_or(|s| s == "mime:image") => page(0, 3, None),
        _ => oai_error("noRecordsMatch", "no record is in that set"),
    };
    Reply::ok(body)
}

const SETS: &str = r#"<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-01T00:00:00Z</responseDate><request verb="ListSets">http://127.0.0.1/oai</request><ListSets><set><setSpec>mime:image</setSpec><setName>Images</setName></set><set><setSpec>mime:text</setSpec><setName>Text</setName></set></ListSets></OAI-PMH>"#;

fn oai_error(code: &str, message: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-02T00:00:00Z</responseDate><request>http://127.0.0.1/oai</request><error code="{code}">{message}</error></OAI-PMH>"#
    )
}

/// The runs recorded in the archive's state for the lists whose key (endpoint, prefix, set)
/// has `field` = `value`.
fn runs(archive: &Path, field: &str, value: &str) -> Vec<serde_json::Value> {
    let Ok(text) = std::fs::read_to_string(archive.join("state.json")) else {
        return Vec::new();
    };
    let state: serde_json::Value = serde_json::from_str(&text).unwrap();
    let lists = state["lists"].as_object().cloned().unwrap_or_default();
    lists
        .values()
        .filter(|l| l["key"][field] == value)
        .flat_map(|l| l["runs"].as_array().cloned().unwrap_or_default())
        .collect()
}

#[test]
fn a_mistyped_set_is_an_error_and_no_harvest() {
    let server = FaultServer::start(one_page);
    let url = server.url("/oai");
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let harvest = |set: &str| {
        bounded(&[
            "harvest",
            &url,
            "--archive",
            path(&archive),
            "--metadata-prefix",
            "oai_dc",
            "--set",
            set,
        ])
    };
    let (stdout, stderr) = expect(&harvest("mime:imag"), 2);
    assert!(stderr.contains("\"mime:imag\""), "{stderr}");
    assert!(stderr.contains("no record is in that set"), "{stderr}");
    assert!(
        stderr.contains("mime:image"),
        "names the sets it has: {stderr}"
    );
    assert!(!stdout.contains("complete"), "{stdout}");
    assert!(
        runs(&archive, "set", "mime:imag").is_empty(),
        "not recorded"
    );
    // The right set; then an incremental harvest with nothing new is a genuine, empty success.
    let (stdout, _) = expect(&harvest("mime:image"), 0);
    assert!(stdout.contains("3 archived"), "{stdout}");
    let (stdout, _) = expect(&harvest("mime:image"), 0);
    assert!(stdout.contains(": complete"), "{stdout}");
    assert!(stdout.contains("0 items"), "{stdout}");
    assert_eq!(runs(&archive, "set", "mime:image").len(), 2);
    assert_eq!(ledger(&archive).len(), 3);
}

#[test]
fn a_format_the_endpoint_refuses_is_an_error_with_its_message_and_no_harvest() {
    let server = FaultServer::start(one_page);
    let url = server.url("/oai");
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let out = bounded(&[
        "harvest",
        &url,
        "--archive",
        path(&archive),
        "--metadata-prefix",
        "oai_crate",
    ]);
    let (_, stderr) = expect(&out, 2);
    assert!(stderr.contains("cannotDisseminateFormat"), "{stderr}");
    assert!(
        stderr.contains("oai_crate is not supported by this repository"),
        "{stderr}"
    );
    assert!(!stderr.contains("run the same command again"), "{stderr}");
    assert!(runs(&archive, "prefix", "oai_crate").is_empty());
    assert_eq!(server.requests().len(), 2, "Identify and one ListRecords");
}

#[test]
fn malformed_urls_are_argument_errors_and_create_nothing() {
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    for url in [
        "htp:/x",
        "example.org/modoai",
        "http://exa mple.org/modoai",
        "http://example.org/mod oai",
        "",
    ] {
        let (stdout, stderr) = expect(
            &harvester(&["harvest", url, "--archive", path(&archive)]),
            2,
        );
        assert!(
            stderr.contains("http://example.org/modoai"),
            "{url}: {stderr}"
        );
        assert!(!stdout.contains("STOPPED EARLY"), "{url}: {stdout}");
        assert!(!archive.exists(), "{url}");
    }
    let list = work.path().join("list.toml");
    std::fs::write(
        &list,
        "[[endpoint]]\nurl = \"example.org/oai\"\narchive = \"a\"\n",
    )
    .unwrap();
    let (_, stderr) = expect(&harvester(&["harvest-list", path(&list)]), 2);
    assert!(stderr.contains("example.org/oai"), "{stderr}");
    assert!(!work.path().join("a").exists());
}

#[test]
fn a_harvest_that_reaches_nothing_leaves_no_archive_folder() {
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let a = path(&archive);
    // A closed port, a URL that answers 404, a format the endpoint refuses.
    let closed = format!("http://127.0.0.1:{}/oai", dead_port());
    let (_, stderr) = expect(&bounded(&["harvest", &closed, "--archive", a]), 1);
    assert!(stderr.contains("nothing was harvested"), "{stderr}");
    assert!(!archive.exists(), "{stderr}");
    let missing = FaultServer::start(|_| Reply::status(404));
    let wrong = missing.url("/no-oai-here");
    let (_, stderr) = expect(&bounded(&["harvest", &wrong, "--archive", a]), 1);
    assert!(!archive.exists(), "{stderr}");
    let server = FaultServer::start(one_page);
    let url = server.url("/oai");
    let refused = [
        "harvest",
        &url,
        "--archive",
        a,
        "--metadata-prefix",
        "oai_crate",
    ];
    let (_, stderr) = expect(&bounded(&refused), 2);
    assert!(!archive.exists(), "{stderr}");
    // A folder that was there before stays, with what it held.
    std::fs::create_dir(&archive).unwrap();
    std::fs::write(archive.join("README"), "mine").unwrap();
    expect(&bounded(&["harvest", &closed, "--archive", a]), 1);
    assert_eq!(
        std::fs::read_to_string(archive.join("README")).unwrap(),
        "mine"
    );
}

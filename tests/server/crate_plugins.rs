//! `oai_crate` with plugins that misbehave on purpose: timeouts, error exits, missing programs,
//! hostile output; and the persistent cache, counted with a plugin that logs its invocations.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use integration_tests::{element_attrs, texts, Server, TestSite};
use modoai::Plugins;

/// Writes `plugins.toml` (cache inside `dir`) and loads it.
async fn plugins(dir: &Path, body: &str) -> Plugins {
    let path = dir.join("plugins.toml");
    std::fs::write(
        &path,
        format!("[settings]\ncache-dir = \"cache\"\nmax-processes = 2\n\n{body}"),
    )
    .unwrap();
    Plugins::load(&path).await.expect("plugins.toml loads")
}

/// A shell script plugin that appends a line to `log` each time it runs.
fn logging_tool(dir: &Path, log: &Path) -> PathBuf {
    let tool = dir.join("counting-tool");
    std::fs::write(&tool, format!("#!/bin/sh\necho \"$@\" >> '{}'\nif [ \"$1\" = --version ]; then echo 'counting-tool 1.0'; exit 0; fi\nwc -c < \"$1\"\n", log.display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    tool
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

fn plugin_attrs(xml: &[u8], label: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    element_attrs(xml, "plugin")
        .into_iter()
        .filter(|a| a["label"] == label)
        .collect()
}

#[tokio::test]
async fn failures_are_data_and_the_crate_is_still_served() {
    let site = TestSite::empty();
    site.write("a.txt", b"hello", None);
    let work = tempfile::tempdir().unwrap();
    // A sleep this test alone starts (the fraction is this process's id), so that counting the
    // survivors sees no other test's or other run's processes.
    let sleep = format!("sleep 60.{}", std::process::id());
    let p = plugins(
        work.path(),
        &r#"
[[plugin]]
label = "md5"
builtin = "md5"
mime = "*/*"

[[plugin]]
label = "slow"
mime = "*/*"
command = ["sh", "-c", "SLEEP & SLEEP", "sh", "{path}"]
version-command = ["sh", "-c", "echo slow 1"]
timeout-secs = 1

[[plugin]]
label = "failing"
mime = "text/*"
command = ["sh", "-c", "echo partial; echo 'bad things' >&2; exit 3", "sh", "{path}"]
version-command = ["sh", "-c", "echo failing 1"]

[[plugin]]
label = "absent"
mime = "*/*"
command = ["modoai-no-such-tool", "{path}"]
version-command = ["modoai-no-such-tool", "--version"]

[[plugin]]
label = "misconfigured"
mime = "*/*"
command = ["sh", "-c", "echo 'SEVERE: configuration file not found' >&2; exit 255", "sh", "{path}"]
version-command = ["sh", "-c", "echo misconfigured 1"]

[[plugin]]
label = "hostile"
mime = "*/*"
command = ["sh", "-c", "printf '\\001]]> <b>&amp; \\377\\376 caf\\351'", "sh", "{path}"]
version-command = ["sh", "-c", "echo hostile 1"]
output = "xml"

[[plugin]]
label = "hostile-text"
mime = "*/*"
command = ["sh", "-c", "printf 'ctl \\001\\007\\033 ]]> <tag> & end'", "sh", "{path}"]
version-command = ["sh", "-c", "echo hostile-text 1"]

[[plugin]]
label = "xml"
mime = "*/*"
command = ["sh", "-c", "printf '<?xml version=\"1.0\"?>\\n<report xmlns=\"urn:t\"><size>5</size></report>\\n'", "sh", "{path}"]
version-command = ["sh", "-c", "echo xml 1"]
output = "xml"

[[plugin]]
label = "big"
mime = "*/*"
max-input-bytes = 2
command = ["cat", "{path}"]
version-command = ["sh", "-c", "echo big 1"]
"#.replace("SLEEP", &sleep),
    )
    .await;
    assert!(!p.all_healthy(), "the absent tool is reported");
    let server = Server::start(site.path(), |c| c.plugins(p)).await;
    let t = Instant::now();
    let r = server
        .oai(&format!(
            "verb=GetRecord&metadataPrefix=oai_crate&identifier={}",
            server.id("a.txt")
        ))
        .await;
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "the timeout bounds the response"
    );
    r.assert_valid();
    let status = |label: &str| plugin_attrs(&r.body, label)[0]["status"].clone();
    assert_eq!(status("md5"), "ok");
    assert_eq!(status("slow"), "timeout");
    assert_eq!(status("failing"), "error");
    assert_eq!(plugin_attrs(&r.body, "failing")[0]["exitCode"], "3");
    assert_eq!(status("absent"), "missing");
    assert_eq!(status("misconfigured"), "config-error");
    assert_eq!(status("hostile"), "ok");
    assert_eq!(status("big"), "skipped");
    let outputs = element_attrs(&r.body, "output");
    assert!(
        outputs.iter().any(|o| o["encoding"] == "base64"),
        "bytes that are not UTF-8 travel as Base64"
    );
    assert!(
        texts(&r.body, "output")
            .iter()
            .any(|t| t.contains("]]> <tag> & end")),
        "text escaped, not CDATA"
    );
    assert!(
        texts(&r.body, "stderr")
            .iter()
            .any(|t| t.contains("bad things")),
        "stderr is kept"
    );
    assert!(
        r.text()
            .contains("<report xmlns=\"urn:t\"><size>5</size></report>"),
        "well-formed XML embedded as a subtree"
    );
    assert_eq!(
        texts(&r.body, "output")[0],
        "5d41402abc4b2a76b9719d911017c592",
        "md5 of hello"
    );
    assert!(
        !r.text().contains(site.path().to_str().unwrap()),
        "no server path reaches the tools' output"
    );
    let crate_el = element_attrs(&r.body, "crate");
    assert!(crate_el[0]["uid"].starts_with(&server.id("a.txt")));
    // No process of the timed-out plugin survives. A process sent SIGKILL still shows its
    // command line until the kernel has run its exit, which a busy machine can delay: the
    // count must reach 0 within 10 s, while a survivor would sleep on for a minute.
    let count = || {
        let ps = std::process::Command::new("sh")
            .args(["-c", &format!("ps -eo args | grep -cx '{sleep}' || true")])
            .output()
            .unwrap();
        String::from_utf8_lossy(&ps.stdout).trim().to_owned()
    };
    let killed = Instant::now();
    let mut left = count();
    while left != "0" && killed.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = count();
    }
    assert_eq!(left, "0", "the whole process group was killed");
}

/// Harvests every page of oai_crate ListRecords, validating each; returns the record count.
async fn harvest_all(server: &Server) -> usize {
    let mut page = server
        .oai("verb=ListRecords&metadataPrefix=oai_crate")
        .await;
    let mut records = 0;
    loop {
        page.assert_valid();
        records += page.texts("record").len();
        let Some((token, _)) = page.token().filter(|(t, _)| !t.is_empty()) else {
            return records;
        };
        page = server
            .oai(&format!("verb=ListRecords&resumptionToken={token}"))
            .await;
    }
}

#[tokio::test]
async fn a_second_harvest_starts_no_tool_process_even_after_a_restart() {
    let site = TestSite::empty();
    for i in 0..7 {
        site.write(&format!("f{i}.txt"), format!("file {i}").as_bytes(), None);
    }
    let work = tempfile::tempdir().unwrap();
    let log = work.path().join("calls.log");
    let tool = logging_tool(work.path(), &log);
    let body = format!(
        "[[plugin]]\nlabel = \"count\"\nmime = \"*/*\"\ncommand = [\"{t}\", \"{{path}}\"]\nversion-command = [\"{t}\", \"--version\"]\n\n[[plugin]]\nlabel = \"md5\"\nbuiltin = \"md5\"\nmime = \"*/*\"\n",
        t = tool.display()
    );
    let p = plugins(work.path(), &body).await;
    assert_eq!(lines(&log), 1, "the version command ran once");
    let server = Server::start(site.path(), |c| c.page_size(3).plugins(p.clone())).await;
    assert_eq!(harvest_all(&server).await, 7);
    assert_eq!(lines(&log), 8, "one run per file");
    assert_eq!(p.processes_started(), 7);
    assert_eq!(harvest_all(&server).await, 7);
    assert_eq!(
        lines(&log),
        8,
        "the second harvest is served from the cache"
    );
    server.stop().await;
    let p = plugins(work.path(), &body).await;
    let server = Server::start(site.path(), |c| c.page_size(3).plugins(p.clone())).await;
    assert_eq!(harvest_all(&server).await, 7);
    assert_eq!(
        lines(&log),
        8,
        "after a restart: no version run, no tool run"
    );
    assert_eq!(p.processes_started(), 0);
    let r = server
        .oai(&format!(
            "verb=GetRecord&metadataPrefix=oai_crate&identifier={}",
            server.id("f1.txt")
        ))
        .await;
    assert_eq!(plugin_attrs(&r.body, "count")[0]["cached"], "true");
    site.write("f1.txt", b"changed", Some(2_000_000_000));
    for _ in 0..200 {
        let r = server
            .oai(&format!(
                "verb=GetRecord&metadataPrefix=oai_crate&identifier={}",
                server.id("f1.txt")
            ))
            .await;
        if texts(&r.body, "datestamp") == ["2033-05-18T03:33:20Z"] {
            assert_eq!(
                plugin_attrs(&r.body, "count")[0]["cached"],
                "false",
                "a changed file is analysed again"
            );
            assert_eq!(texts(&r.body, "output")[0].trim(), "7");
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the change was never seen");
}

#[tokio::test]
async fn oai_crate_is_offered_only_with_plugins() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let r = server
        .oai("verb=ListRecords&metadataPrefix=oai_crate")
        .await;
    assert_eq!(r.error_codes(), ["cannotDisseminateFormat"]);
    let work = tempfile::tempdir().unwrap();
    let p = plugins(
        work.path(),
        "[[plugin]]\nlabel = \"md5\"\nbuiltin = \"md5\"\nmime = \"*/*\"\n",
    )
    .await;
    let server = Server::start(site.path(), |c| c.plugins(p)).await;
    let formats = server.oai("verb=ListMetadataFormats").await;
    assert_eq!(
        formats.texts("metadataPrefix"),
        ["oai_dc", "oai_didl", "oai_crate"]
    );
}

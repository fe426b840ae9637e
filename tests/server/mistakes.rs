//! The mistakes a webmaster makes in the first week, run as the `modoai` binary: the docs'
//! `--listen :0`, relative paths in a configuration file, a missing file, a restart-only key
//! edited in a live configuration, and `modoai records`, the dry run before publishing.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use integration_tests::http::{get, get_when_ready, MARGIN};
use integration_tests::process::{modoai, signal, Running};
use integration_tests::TestSite;
use rustix::process::Signal;

/// Starts `modoai serve ARGS` in `cwd` and returns it with the banner's three lines and the
/// port the first one names.
fn serve(cwd: &Path, args: &[&str]) -> (Running, [String; 3], u16) {
    let mut child: Child = modoai()
        .current_dir(cwd)
        .arg("serve")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = || lines.next().expect("a banner line").unwrap();
    let banner = [next(), next(), next()];
    let port = banner[0]
        .rsplit("http://127.0.0.1:")
        .next()
        .and_then(|rest| rest.trim_end_matches('/').parse().ok())
        .unwrap_or_else(|| panic!("no port in {:?}", banner[0]));
    (Running(child), banner, port)
}

#[test]
fn listen_with_a_port_alone_is_loopback_as_the_docs_say() {
    let site = TestSite::example();
    let (_server, banner, port) = serve(site.path(), &["--root", ".", "--listen", ":0"]);
    assert!(banner[0].contains("at http://127.0.0.1:"), "{banner:?}");
    assert!(get_when_ready(port, "/modoai?verb=Identify").contains("<Identify>"));
    // Without plugins the banner says what oai_crate needs.
    assert_eq!(
        banner[2],
        "Formats: oai_dc, oai_didl (oai_crate needs --plugins FILE)"
    );
}

#[test]
fn banner_says_which_formats_are_offered_and_how_healthy_the_plugins_are() {
    let site = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let plugins = work.path().join("plugins.toml");
    std::fs::write(
        &plugins,
        "[[plugin]]\nlabel = \"md5\"\nbuiltin = \"md5\"\nmime = \"*/*\"\n\n\
         [[plugin]]\nlabel = \"absent\"\nmime = \"*/*\"\n\
         command = [\"no-such-tool-modoai\", \"{path}\"]\n\
         version-command = [\"no-such-tool-modoai\", \"--version\"]\n",
    )
    .unwrap();
    let plugins = plugins.to_str().unwrap();
    let (_server, banner, _) = serve(
        site.path(),
        &["--root", ".", "--listen", ":0", "--plugins", plugins],
    );
    assert!(
        banner[2].starts_with(
            "Formats: oai_dc, oai_didl, oai_crate (2 plugins: 1 healthy, 1 missing (absent);"
        ) && banner[2].contains("modoai plugins check --plugins"),
        "{banner:?}"
    );
}

#[test]
fn relative_paths_in_the_configuration_file_are_taken_from_its_folder() {
    let work = tempfile::tempdir().unwrap();
    let etc = work.path().join("etc");
    std::fs::create_dir_all(etc.join("site")).unwrap();
    std::fs::write(etc.join("site/a.txt"), "hello").unwrap();
    std::fs::write(
        etc.join("plugins.toml"),
        "[[plugin]]\nlabel = \"md5\"\nbuiltin = \"md5\"\nmime = \"*/*\"\n",
    )
    .unwrap();
    std::fs::write(
        etc.join("modoai.toml"),
        "[server]\nroot = \"site\"\nplugins = \"plugins.toml\"\nlisten = \":0\"\n",
    )
    .unwrap();
    // Started from another folder, as systemd does (WorkingDirectory unset: /).
    let (_server, banner, port) = serve(
        Path::new("/"),
        &["--config", etc.join("modoai.toml").to_str().unwrap()],
    );
    assert!(banner[2].contains("oai_crate"), "{banner:?}");
    let ids = get_when_ready(
        port,
        "/modoai?verb=ListIdentifiers&metadataPrefix=oai_crate",
    );
    assert!(ids.contains("/a.txt</identifier>"), "{ids}");
}

#[test]
fn a_missing_file_is_reported_with_its_cause_once() {
    for flag in ["--config", "--plugins"] {
        let out = modoai()
            .args([
                "serve",
                "--root",
                ".",
                "--listen",
                ":0",
                flag,
                "/no/such/modoai.toml",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("cannot read /no/such/modoai.toml"),
            "{flag}: {err}"
        );
        assert_eq!(
            err.matches("No such file or directory").count(),
            1,
            "{flag}: {err}"
        );
    }
}

#[test]
fn a_restart_only_key_changed_in_a_live_configuration_is_named_not_applied() {
    let site = TestSite::empty();
    for i in 0..3 {
        site.write(&format!("f{i}.txt"), b"x", None);
    }
    let work = tempfile::tempdir().unwrap();
    let conf = work.path().join("modoai.toml");
    std::fs::write(&conf, "[oai]\npage-size = 2\n").unwrap();
    let stderr = work.path().join("stderr");
    let port = integration_tests::process::free_port();
    let server = Running(
        modoai()
            .args([
                "serve",
                "--no-watch",
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--root",
            ])
            .arg(site.path())
            .arg("--config")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap(),
    );
    let page = |port| get_when_ready(port, "/modoai?verb=ListIdentifiers&metadataPrefix=oai_dc");
    let started = Instant::now();
    while !get(port, "/modoai?verb=Identify").starts_with(b"HTTP/1.0 200") {
        assert!(started.elapsed() < MARGIN, "the server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(page(port).matches("<header>").count(), 2);
    std::fs::write(&conf, "[oai]\npage-size = 1\nrepository-name = \"X\"\n").unwrap();
    signal(server.0.id(), Signal::HUP);
    let log = until_logged(&stderr, "restart");
    assert!(
        log.contains("[oai] page-size, [oai] repository-name"),
        "the log names the keys: {log}"
    );
    // The old value stays in force, as the log says.
    assert_eq!(page(port).matches("<header>").count(), 2);
    assert!(get(port, "/modoai?verb=Identify")
        .windows(4)
        .all(|w| w != b">X</"));
}

/// The text of `path` once it contains `what`.
fn until_logged(path: &Path, what: &str) -> String {
    let started = Instant::now();
    loop {
        let mut text = String::new();
        std::fs::File::open(path)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        if text.contains(what) {
            return text;
        }
        assert!(started.elapsed() < MARGIN, "never logged {what:?}: {text}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn records_lists_what_is_published_and_why_the_rest_is_not() {
    let site = TestSite::example();
    let root = site.path();
    std::fs::write(
        root.join("plugins.toml"),
        "[settings]\ncache-dir = \"modoai-cache\"\n\n\
         [[plugin]]\nlabel = \"md5\"\nbuiltin = \"md5\"\nmime = \"*/*\"\n",
    )
    .unwrap();
    // A cache an earlier run filled.
    std::fs::create_dir_all(root.join("modoai-cache/ab")).unwrap();
    std::fs::write(root.join("modoai-cache/ab/cdef"), "cached").unwrap();
    std::os::unix::fs::symlink("/etc/hostname", root.join("escape")).unwrap();
    rustix::fs::mkfifoat(rustix::fs::CWD, root.join("pipe"), rustix::fs::Mode::RWXU).unwrap();
    let out = modoai()
        .args(["records", "--json", "--root"])
        .arg(root)
        .arg("--plugins")
        .arg(root.join("plugins.toml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let records: Vec<&str> = lines
        .iter()
        .filter(|l| l["record"] == true)
        .map(|l| l["path"].as_str().unwrap())
        .collect();
    assert_eq!(records.len(), crate::EXAMPLE_FILES.len(), "{records:?}");
    let skipped = |path: &str| {
        let line = lines.iter().find(|l| l["path"] == path);
        line.unwrap_or_else(|| panic!("{path} not listed"))["reason"].clone()
    };
    assert_eq!(skipped(".private/"), "hidden");
    assert_eq!(skipped("plugins.toml"), "own");
    assert_eq!(skipped("modoai-cache/"), "own");
    assert_eq!(skipped("escape"), "link-outside");
    assert_eq!(skipped("pipe"), "not-regular");
    let png = lines
        .iter()
        .find(|l| l["path"] == "images/logo.png")
        .unwrap();
    assert_eq!(png["mime"], "image/png");
    assert_eq!(
        png["sets"],
        serde_json::json!(["mime", "mime:image", "mime:image:png"])
    );
    assert_eq!(png["plugins"], serde_json::json!(["md5"]));
    let summary = String::from_utf8(out.stderr).unwrap();
    assert!(summary.contains("14 records, "), "{summary}");
    // The same root as the server sees it: the records are exactly its identifiers.
    let (_server, _, port) = serve(
        root,
        &["--root", ".", "--listen", ":0", "--plugins", "plugins.toml"],
    );
    let ids = get_when_ready(port, "/modoai?verb=ListIdentifiers&metadataPrefix=oai_dc");
    assert_eq!(ids.matches("<identifier>").count(), records.len(), "{ids}");
}

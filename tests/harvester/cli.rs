//! The command line as a user meets it: `harvest` with sets and date windows, `harvest-list`,
//! `inspect`, exit codes and their messages, the archive lock, the User-Agent and `--delay`.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use integration_tests::process::program;
use integration_tests::{Server, TestSite};

use super::scripted::{self, page, IDENTIFY};
use super::{archive_check, expect, harvester, ledger};
use integration_tests::fault::{FaultServer, Reply, RequestInfo};

/// Identify, then three pages of three oai_dc records (tokens `p2`, `p3`, then none).
fn three_pages(req: &RequestInfo) -> Reply {
    if req.params("verb") == ["Identify"] {
        return Reply::ok(IDENTIFY);
    }
    Reply::ok(match req.params("resumptionToken").pop().as_deref() {
        None => page(0, 3, Some("p2")),
        Some("p2") => page(3, 3, Some("p3")),
        _ => page(6, 3, None),
    })
}

/// Runs the harvester off the async workers (our server shares the test's runtime).
async fn run(args: &[&str]) -> Output {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        harvester(&args)
    })
    .await
    .unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The sorted identifiers in an archive's ledger.
fn identifiers(archive: &Path) -> Vec<String> {
    let mut ids: Vec<String> = ledger(archive).into_iter().map(|e| e.identifier).collect();
    ids.sort();
    ids
}

/// `base` + each name, sorted.
fn urls(base: &str, names: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = names.iter().map(|n| format!("{base}{n}")).collect();
    out.sort();
    out
}

/// The summaries in a harvester's stdout, each an unindented line and its indented ones.
fn summaries(stdout: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // The table of every endpoint that follows the summaries is not one.
    for line in stdout.lines().take_while(|l| !l.starts_with("outcome ")) {
        match out.last_mut() {
            Some(summary) if line.starts_with(' ') => {
                summary.push('\n');
                summary.push_str(line);
            }
            _ => out.push(line.to_owned()),
        }
    }
    out
}

/// A site with two text files and a PNG.
fn mixed_site() -> TestSite {
    let site = TestSite::empty();
    site.write("notes.txt", b"some notes\n", Some(1_700_000_000));
    site.write("docs/readme.txt", b"read me\n", Some(1_700_000_001));
    site.write(
        "logo.png",
        b"\x89PNG\r\n\x1a\nnot really",
        Some(1_700_000_002),
    );
    site
}

/// A URL on which nothing listens.
fn dead_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}/modoai")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn harvest_list_harvests_each_archive_with_its_lists() {
    let (site_a, site_b) = (mixed_site(), TestSite::empty());
    site_b.write("page.html", b"<p>b</p>\n", Some(1_700_000_000));
    site_b.write("data.csv", b"x,y\n1,2\n", Some(1_700_000_001));
    let a = Server::start(site_a.path(), |c| c.page_size(2)).await;
    let b = Server::start(site_b.path(), |c| c.page_size(2)).await;
    let work = tempfile::tempdir().unwrap();
    let list = work.path().join("list.toml");
    std::fs::write(
        &list,
        format!(
            "[defaults]\narchive = \"archive-a\"\n\n\
             [[endpoint]]\nurl = \"{}\"\n\n\
             [[endpoint]]\nurl = \"{}\"\narchive = \"archive-b\"\n\n\
             [[endpoint]]\nurl = \"{}\"\nset = \"mime:text\"\n",
            a.oai, b.oai, a.oai
        ),
    )
    .unwrap();
    let out = run(&["harvest-list", path(&list), "--jobs", "2"]).await;
    let (stdout, _) = expect(&out, 0);
    // Relative archives sit beside the list.
    let (archive_a, archive_b) = (work.path().join("archive-a"), work.path().join("archive-b"));
    assert_eq!(
        identifiers(&archive_a),
        urls(&a.base, &["docs/readme.txt", "logo.png", "notes.txt"])
    );
    assert_eq!(
        identifiers(&archive_b),
        urls(&b.base, &["data.csv", "page.html"])
    );
    // One summary per list; the set list came after the full one and found its items there.
    let summaries = summaries(&stdout);
    assert_eq!(summaries.len(), 3, "{stdout}");
    let summary = |head: String| {
        summaries
            .iter()
            .find(|s| s.starts_with(&head))
            .unwrap_or_else(|| panic!("no summary {head:?} in:\n{stdout}"))
    };
    let full_a = summary(format!("{} (oai_dc): complete\n", a.oai));
    assert!(
        full_a.contains("3 items in 2 pages: 3 archived"),
        "{full_a}"
    );
    let set_a = summary(format!("{} (oai_dc, set mime:text): complete\n", a.oai));
    assert!(set_a.contains("2 items in 1 pages: 0 archived"), "{set_a}");
    assert!(set_a.contains("2 already in the archive"), "{set_a}");
    let full_b = summary(format!("{} (oai_dc): complete\n", b.oai));
    assert!(
        full_b.contains("2 items in 1 pages: 2 archived"),
        "{full_b}"
    );
    archive_check(&archive_a);
    archive_check(&archive_b);
    a.stop().await;
    b.stop().await;
}

#[test]
fn harvest_list_rejects_unknown_keys_entries_without_url_and_bad_dates() {
    let work = tempfile::tempdir().unwrap();
    let cases = [
        (
            "typo.toml",
            "[[endpoint]]\nurl = \"http://a.example/oai\"\narchive = \"a\"\n\n\
             [[endpoint]]\nurl = \"http://b.example/oai\"\narchive = \"b\"\nsett = \"mime:text\"\n",
            "sett",
        ),
        (
            "no-url.toml",
            "[[endpoint]]\nurl = \"http://a.example/oai\"\narchive = \"a\"\n\n\
             [[endpoint]]\narchive = \"b\"\nset = \"mime:text\"\n",
            "no url",
        ),
        (
            "bad-date.toml",
            "[[endpoint]]\nurl = \"http://a.example/oai\"\narchive = \"a\"\n\n\
             [[endpoint]]\nurl = \"http://b.example/oai\"\narchive = \"b\"\nfrom = \"yesterday\"\n",
            "\"yesterday\"",
        ),
    ];
    for (name, text, problem) in cases {
        let list = work.path().join(name);
        std::fs::write(&list, text).unwrap();
        let (_, stderr) = expect(&harvester(&["harvest-list", path(&list)]), 2);
        assert!(stderr.contains(name), "{stderr}");
        assert!(stderr.contains("endpoint 2"), "{stderr}");
        assert!(stderr.contains(problem), "{stderr}");
        // Nothing was harvested: the list is checked before any archive is opened.
        assert!(!work.path().join("a").exists(), "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_endpoint_fails_the_list_but_not_the_others() {
    let site = mixed_site();
    let server = Server::start(site.path(), |c| c.page_size(2)).await;
    let dead = dead_url();
    let work = tempfile::tempdir().unwrap();
    let list = work.path().join("list.toml");
    std::fs::write(
        &list,
        format!(
            "[defaults]\narchive = \"shared\"\n\n\
             [[endpoint]]\nurl = \"{dead}\"\n\n\
             [[endpoint]]\nurl = \"{}\"\n\n\
             [[endpoint]]\nurl = \"{dead}\"\narchive = \"dead\"\n",
            server.oai
        ),
    )
    .unwrap();
    let out = run(&["harvest-list", path(&list), "--retries", "0"]).await;
    let (stdout, stderr) = expect(&out, 1);
    assert!(stderr.contains(&dead), "{stderr}");
    assert_eq!(stdout.matches("STOPPED EARLY").count(), 2, "{stdout}");
    // The live list shares its archive with a dead one before it, and still ran.
    assert!(
        stdout.contains(&format!("{} (oai_dc): complete", server.oai)),
        "{stdout}"
    );
    let shared = work.path().join("shared");
    assert_eq!(
        identifiers(&shared),
        urls(&server.base, &["docs/readme.txt", "logo.png", "notes.txt"])
    );
    archive_check(&shared);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn harvest_set_archives_only_that_set() {
    let site = mixed_site();
    let server = Server::start(site.path(), |c| c.page_size(2)).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let out = run(&[
        "harvest",
        &server.oai,
        "--archive",
        path(&archive),
        "--set",
        "mime:text",
    ])
    .await;
    let (stdout, _) = expect(&out, 0);
    assert!(stdout.contains("set mime:text"), "{stdout}");
    assert_eq!(
        identifiers(&archive),
        urls(&server.base, &["docs/readme.txt", "notes.txt"])
    );
    for e in ledger(&archive) {
        assert!(e.sets.iter().any(|s| s == "mime:text"), "{e:?}");
    }
    archive_check(&archive);
    server.stop().await;
}

#[test]
fn bad_dates_are_rejected_naming_the_value() {
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    for (flag, value) in [("--from", "2024-13-01"), ("--until", "yesterday")] {
        let out = harvester(&[
            "harvest",
            &dead_url(),
            "--archive",
            path(&archive),
            "--retries",
            "0",
            flag,
            value,
        ]);
        let (_, stderr) = expect(&out, 2);
        assert!(stderr.contains(&format!("\"{value}\"")), "{stderr}");
        assert!(stderr.contains(flag), "{stderr}");
        // An argument error is no interrupted harvest: nothing to continue, no archive made.
        assert!(!stderr.contains("run the same command again"), "{stderr}");
        assert!(!archive.exists());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_date_window_archives_only_the_files_changed_in_it() {
    let site = TestSite::empty();
    // 2023-11-14T22:13:20Z, 2023-11-15T12:06:40Z, 2023-11-16T02:00:00Z.
    site.write("before.txt", b"before", Some(1_700_000_000));
    site.write("inside.txt", b"inside", Some(1_700_050_000));
    site.write("after.txt", b"after", Some(1_700_100_000));
    let server = Server::start(site.path(), |c| c.page_size(2)).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let out = run(&[
        "harvest",
        &server.oai,
        "--archive",
        path(&archive),
        "--from",
        "2023-11-15T00:00:00Z",
        "--until",
        "2023-11-16T00:00:00Z",
    ])
    .await;
    let (stdout, _) = expect(&out, 0);
    assert!(stdout.contains("from 2023-11-15T00:00:00Z"), "{stdout}");
    assert_eq!(identifiers(&archive), urls(&server.base, &["inside.txt"]));
    // Day granularity works too: the whole of 2023-11-16.
    let day = work.path().join("day");
    let out = run(&[
        "harvest",
        &server.oai,
        "--archive",
        path(&day),
        "--from",
        "2023-11-16",
        "--until",
        "2023-11-16",
    ])
    .await;
    expect(&out, 0);
    assert_eq!(identifiers(&day), urls(&server.base, &["after.txt"]));
    archive_check(&archive);
    server.stop().await;
}

#[test]
fn bad_arguments_exit_2() {
    let (_, stderr) = expect(&harvester(&["harvest", "http://127.0.0.1:1/oai"]), 2);
    assert!(stderr.contains("--archive"), "{stderr}");
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let out = harvester(&[
        "harvest",
        "http://127.0.0.1:1/oai",
        "--archive",
        path(&archive),
        "--no-such-flag",
    ]);
    let (_, stderr) = expect(&out, 2);
    assert!(stderr.contains("--no-such-flag"), "{stderr}");
    assert!(!archive.exists());
}

#[test]
fn an_endpoint_answering_html_exits_1_naming_the_url() {
    let server =
        FaultServer::start(|_| Reply::ok("<html><body>Welcome to our library</body></html>"));
    let url = server.url("/oai");
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let out = harvester(&[
        "harvest",
        &url,
        "--archive",
        path(&archive),
        "--retries",
        "0",
    ]);
    let (stdout, stderr) = expect(&out, 1);
    assert!(stderr.contains(&url), "{stderr}");
    assert!(stderr.contains("not an OAI-PMH document"), "{stderr}");
    assert!(stdout.contains("STOPPED EARLY"), "{stdout}");
}

#[test]
fn a_fixity_mismatch_exits_3_and_the_summary_says_so() {
    let didl = scripted::crate_page(b"the file's bytes", "00000000000000000000000000000000");
    let server = FaultServer::start(move |req| match req.params("verb").pop().as_deref() {
        Some("Identify") => Reply::ok(IDENTIFY),
        _ => Reply::ok(didl.clone()),
    });
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let out = harvester(&[
        "harvest",
        &server.url("/oai"),
        "--archive",
        path(&archive),
        "--metadata-prefix",
        "oai_crate",
    ]);
    let (stdout, _) = expect(&out, 3);
    assert!(stdout.contains("1 FIXITY MISMATCHES"), "{stdout}");
    assert_eq!(ledger(&archive)[0].fixity_errors.len(), 1);
    let (inspect, _) = expect(&harvester(&["inspect", "archive", path(&archive)]), 0);
    assert!(inspect.contains("1 FIXITY MISMATCHES"), "{inspect}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspect_endpoint_shows_identify_formats_and_sets() {
    let site = mixed_site();
    let server = Server::start(site.path(), |c| {
        c.page_size(2).repository_name("The CLI test repository")
    })
    .await;
    let (stdout, _) = expect(&run(&["inspect", "endpoint", &server.oai]).await, 0);
    assert!(stdout.contains("The CLI test repository"), "{stdout}");
    assert!(stdout.contains("YYYY-MM-DDThh:mm:ssZ"), "{stdout}");
    for prefix in ["oai_dc", "oai_didl"] {
        assert!(stdout.contains(&format!("  {prefix} ")), "{stdout}");
    }
    assert!(
        !stdout.contains("mime:"),
        "sets only with --sets:\n{stdout}"
    );
    let (stdout, _) = expect(
        &run(&["inspect", "endpoint", &server.oai, "--sets"]).await,
        0,
    );
    for set in ["mime:text", "mime:image"] {
        assert!(stdout.contains(&format!("  {set} ")), "{stdout}");
    }
    assert!(!stdout.contains("mime:audio"), "{stdout}");
    let args = ["inspect", "endpoint", &server.oai, "--sets", "--json"];
    let (json, _) = expect(&run(&args).await, 0);
    let report: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(report["repository_name"], "The CLI test repository");
    assert_eq!(report["granularity"], "YYYY-MM-DDThh:mm:ssZ");
    let prefixes: Vec<&str> = report["formats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["prefix"].as_str().unwrap())
        .collect();
    assert!(
        prefixes.contains(&"oai_dc") && prefixes.contains(&"oai_didl"),
        "{json}"
    );
    let sets: Vec<&str> = report["sets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["spec"].as_str().unwrap())
        .collect();
    assert!(
        sets.contains(&"mime:text") && sets.contains(&"mime:image"),
        "{json}"
    );
    server.stop().await;
}

/// The harvester with `args` and stdout a pipe whose reader is gone, as after `… | head`.
fn into_closed_pipe(args: &[&str]) -> Output {
    let mut child = Command::new(program("modoai-harvester"))
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn printing_into_a_closed_pipe_ends_quietly() {
    let site = mixed_site();
    let server = Server::start(site.path(), |c| c.page_size(2)).await;
    let (oai, work) = (server.oai.clone(), tempfile::tempdir().unwrap());
    tokio::task::spawn_blocking(move || {
        let archive = work.path().join("archive");
        let a = path(&archive);
        expect(&harvester(&["harvest", &oai, "--archive", a, "--quiet"]), 0);
        let list = work.path().join("list.toml");
        std::fs::write(
            &list,
            format!("[[endpoint]]\nurl = \"{oai}\"\narchive = \"archive\"\n"),
        )
        .unwrap();
        for args in [
            &["inspect", "endpoint", &oai, "--sets"][..],
            &["inspect", "endpoint", &oai, "--json"],
            &["inspect", "archive", a],
            &["inspect", "archive", a, "--parts"],
            &["harvest-list", path(&list), "--dry-run"],
            &["harvest", &oai, "--archive", a],
        ] {
            let out = into_closed_pipe(args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
            assert!(stderr.is_empty(), "{args:?}: {stderr}");
        }
    })
    .await
    .unwrap();
    server.stop().await;
}

#[test]
fn every_command_s_help_has_examples_defaults_and_exit_codes() {
    let (top, _) = expect(&harvester(&["--help"]), 0);
    assert!(top.contains("Examples:\n  modoai-harvester "), "{top}");
    for code in [
        "\n  0  done",
        "\n  1  ",
        "\n  2  bad usage",
        "\n  3  done, but",
    ] {
        assert!(top.contains(code), "{code:?} in\n{top}");
    }
    let commands: [&[&str]; 12] = [
        &["harvest"],
        &["harvest-list"],
        &["inspect"],
        &["inspect", "endpoint"],
        &["inspect", "archive"],
        &["profile"],
        &["profile", "compact"],
        &["profile", "lookup"],
        &["pwid"],
        &["pwid", "resolve"],
        &["corpus"],
        &["repair"],
    ];
    for command in commands {
        for flag in ["-h", "--help"] {
            let (help, _) = expect(&harvester(&[command, &[flag]].concat()), 0);
            let example = format!("Examples:\n  modoai-harvester {} ", command.join(" "));
            assert!(help.contains(&example), "{command:?} {flag}:\n{help}");
            assert!(
                help.contains("Exit codes: see modoai-harvester --help"),
                "{help}"
            );
        }
    }
    let (help, _) = expect(&harvester(&["harvest", "--help"]), 0);
    for default in [
        "[default: 1000000000]",
        "[default: 8]",
        "[default: modoai]",
        "[default: 0]",
    ] {
        assert!(help.contains(default), "{default} in\n{help}");
    }
}

#[test]
fn the_harvest_list_format_in_help_is_the_one_harvest_list_reads() {
    let (help, _) = expect(&harvester(&["harvest-list", "--help"]), 0);
    let sample = help
        .split_once("Sample:\n\n")
        .and_then(|(_, rest)| rest.split_once("\nExamples:"))
        .map(|(sample, _)| sample)
        .unwrap_or_else(|| panic!("no sample in\n{help}"));
    let docs = integration_tests::repo_root().join("docs/archivists.md");
    let docs = std::fs::read_to_string(docs).unwrap();
    assert!(
        docs.contains(&format!("```toml\n{sample}```")),
        "docs/archivists.md shows the sample"
    );
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("harvests.toml");
    std::fs::write(&list, sample).unwrap();
    let (out, _) = expect(&harvester(&["harvest-list", path(&list), "--dry-run"]), 0);
    let default = dir.path().join("archives/default");
    let net = dir.path().join("archives/example-net");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            format!("https://example.org/modoai -> {}: prefix oai_dc, name my-harvests", default.display()),
            format!(
                "https://example.net/oai -> {}: prefix oai_crate set mime:image from 2026-01-01 until 2026-12-31, name my-harvests",
                net.display()
            ),
        ]
    );
    assert!(
        !default.exists() && !net.exists(),
        "a dry run creates no archive"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspect_archive_after_a_harvest_in_text_and_json() {
    let site = mixed_site();
    let server = Server::start(site.path(), |c| c.page_size(2)).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let args = [
        "harvest",
        &server.oai,
        "--archive",
        path(&archive),
        "--metadata-prefix",
        "oai_didl",
    ];
    expect(&run(&args).await, 0);
    let (text, _) = expect(&run(&["inspect", "archive", path(&archive)]).await, 0);
    assert!(
        text.contains(&format!("{} (oai_didl): 3 items", server.oai)),
        "{text}"
    );
    assert!(
        text.contains("3 archived, 0 skipped, 2 pages: complete"),
        "{text}"
    );
    let (json, _) = expect(
        &run(&["inspect", "archive", path(&archive), "--json"]).await,
        0,
    );
    let report: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let lists = report["lists"].as_array().unwrap();
    assert_eq!(lists.len(), 1, "{json}");
    let payload: u64 = ["notes.txt", "docs/readme.txt", "logo.png"]
        .iter()
        .map(|f| std::fs::metadata(site.path().join(f)).unwrap().len())
        .sum();
    assert_eq!(lists[0]["endpoint"], server.oai.as_str());
    assert_eq!(lists[0]["prefix"], "oai_didl");
    assert_eq!(lists[0]["items"], 3);
    assert_eq!(lists[0]["bytes"], payload);
    assert_eq!(report["harvests"][0]["outcome"], "complete");
    assert_eq!(report["warc_files"], 1);
    server.stop().await;
}

#[test]
fn inspect_archive_shows_an_interrupted_harvest() {
    // Page 2 always carries a character XML forbids.
    let server = FaultServer::start(|req| match req.params("resumptionToken").pop().as_deref() {
        Some("p2") => Reply::ok(page(3, 3, Some("p3")).replace("record 4", "record \u{1} 4")),
        _ => three_pages(req),
    });
    let url = server.url("/oai");
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let harvest = [
        "harvest",
        &url,
        "--archive",
        path(&archive),
        "--metadata-prefix",
        "oai_dc",
        "--retries",
        "0",
    ];
    let (stdout, stderr) = expect(&harvester(&harvest), 1);
    assert!(stdout.contains("STOPPED EARLY"), "{stdout}");
    assert!(stderr.contains("resumptionToken=p2"), "{stderr}");
    assert!(stderr.contains("run the same command again"), "{stderr}");
    let (text, _) = expect(&harvester(&["inspect", "archive", path(&archive)]), 0);
    assert!(text.contains("interrupted after 1 pages"), "{text}");
    // Page 1, and record 3 of page 2 (before the broken one) were kept.
    assert!(text.contains(&format!("{url} (oai_dc): 4 items")), "{text}");
    let (json, _) = expect(
        &harvester(&["inspect", "archive", path(&archive), "--json"]),
        0,
    );
    let report: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(report["lists"][0]["items"], 4, "{json}");
    let outcomes: Vec<&str> = report["harvests"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["outcome"].as_str())
        .collect();
    assert!(
        outcomes
            .iter()
            .any(|o| o.starts_with("interrupted after 1 pages")),
        "{json}"
    );
}

#[test]
fn inspect_archive_of_a_folder_that_is_no_archive_exits_2() {
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("notes.txt"), "not an archive").unwrap();
    let (stdout, stderr) = expect(&harvester(&["inspect", "archive", path(work.path())]), 2);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains(&format!("{} is not an archive", work.path().display())),
        "{stderr}"
    );
    // Inspecting looks, it does not make an archive of the folder.
    assert!(!work.path().join("ledger.jsonl").exists());
    assert!(!work.path().join("lock").exists());
}

#[test]
fn a_second_harvester_on_a_busy_archive_fails_at_once() {
    // The first Identify stalls, so the first harvester holds the archive for a long while.
    let stalled = AtomicBool::new(false);
    let server = FaultServer::start(move |req| {
        if req.params("verb") == ["Identify"] && !stalled.swap(true, Ordering::SeqCst) {
            return Reply::ok(IDENTIFY).delay_head(Duration::from_secs(300));
        }
        three_pages(req)
    });
    let url = server.url("/oai");
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let args = [
        "harvest",
        &url,
        "--archive",
        path(&archive),
        "--metadata-prefix",
        "oai_dc",
    ];
    let mut first = Command::new(program("modoai-harvester"))
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The archive is opened before the first request.
    while server.requests().is_empty() {
        assert!(first.try_wait().unwrap().is_none(), "the first one ended");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (_, stderr) = expect(&harvester(&args), 1);
    assert!(stderr.contains("in use"), "{stderr}");
    assert!(
        first.try_wait().unwrap().is_none(),
        "the second one waited for the first"
    );
    assert_eq!(server.requests().len(), 1, "the second one asked nothing");
    first.kill().unwrap();
    first.wait().unwrap();
    // The lock went with the process: the archive can be harvested now.
    let (stdout, _) = expect(&harvester(&args), 0);
    assert!(stdout.contains("9 items in 3 pages"), "{stdout}");
    assert_eq!(identifiers(&archive).len(), 9);
}

#[test]
fn the_user_agent_names_the_harvester_and_delay_spaces_requests() {
    let server = FaultServer::start(three_pages);
    let url = server.url("/oai");
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let out = harvester(&[
        "harvest",
        &url,
        "--archive",
        path(&archive),
        "--metadata-prefix",
        "oai_dc",
        "--delay",
        "0.3",
    ]);
    expect(&out, 0);
    let requests = server.requests();
    assert_eq!(requests.len(), 4, "Identify and three pages");
    for r in &requests {
        let agent = r.header("user-agent").unwrap_or_default();
        assert!(agent.starts_with("modoai-harvester/"), "{agent}");
    }
    for pair in requests.windows(2) {
        let gap = pair[1].arrived - pair[0].arrived;
        assert!(gap >= Duration::from_millis(300), "{gap:?}");
    }
    // --user-agent replaces it.
    let out = harvester(&[
        "harvest",
        &url,
        "--archive",
        path(&work.path().join("other")),
        "--metadata-prefix",
        "oai_dc",
        "--user-agent",
        "cli-test/1.0 (mailto:a@example.org)",
    ]);
    expect(&out, 0);
    let last = server.requests().pop().unwrap();
    assert_eq!(
        last.header("user-agent"),
        Some("cli-test/1.0 (mailto:a@example.org)")
    );
}

#[test]
fn log_lines_have_no_colours_when_stderr_is_not_a_terminal() {
    use std::io::{BufRead, BufReader};
    let archive = tempfile::tempdir().unwrap();
    // A 503 to the first request: the harvester warns that it retries once, through its log.
    let server = FaultServer::start(|_| Reply::status(503).header("Retry-After", "1"));
    let mut child = Command::new(program("modoai-harvester"))
        .args(["harvest", &server.url("/modoai"), "--archive"])
        .arg(archive.path().join("a"))
        .env_remove("NO_COLOR")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.contains("WARN"), "{line}");
    assert!(!line.contains('\x1b'), "ANSI escapes in a pipe: {line:?}");
}

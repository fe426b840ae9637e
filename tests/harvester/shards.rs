//! A harvest list at scale and on several machines: `harvest-list` going on past failing
//! endpoints (refused connection, HTTP 500, bad XML, a `modoai serve` killed mid-list) with its
//! table and `--report`, and continuing them on the next run; `--shard I/N` and a Kubernetes
//! Indexed Job's variables splitting a list by host; `merge` joining the shards into one archive
//! that pywb replays, with every shard's PWIDs resolving.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use integration_tests::fault::{FaultServer, Reply};
use integration_tests::http::get;
use integration_tests::process::{program, spawn_modoai, start_modoai, Running};
use integration_tests::python::python;
use integration_tests::{venv_python, TestSite};
use modoai_harvester::shard::Shard;

use super::our_server::site_files;
use super::{archive_check, expect, harvester, ledger};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A site of `n` small text files.
fn site(n: usize, tag: &str) -> TestSite {
    let site = TestSite::empty();
    for i in 0..n {
        let body = format!("{tag} file {i}\n");
        site.write(
            &format!("f{i:02}.txt"),
            body.as_bytes(),
            Some(1_700_000_000 + i as u64),
        );
    }
    site
}

/// The sorted identifiers of an archive's items, each once.
fn identifiers(archive: &Path) -> Vec<String> {
    let mut ids: Vec<String> = ledger(archive).into_iter().map(|e| e.identifier).collect();
    ids.sort();
    ids
}

/// The report's row of `endpoint`.
fn row<'a>(report: &'a serde_json::Value, endpoint: &str) -> &'a serde_json::Value {
    report["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["endpoint"] == endpoint)
        .unwrap_or_else(|| panic!("no row for {endpoint} in {report:#}"))
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Waits until `archive`'s ledger holds at least `lines` lines.
fn wait_for_ledger(archive: &Path, lines: usize) {
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(archive.join("ledger.jsonl")).unwrap_or_default();
        if text.lines().count() >= lines {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the harvest of {archive:?} did not begin"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_list_goes_on_past_failing_endpoints_reports_each_and_continues_them_next_time() {
    let work = tempfile::tempdir().unwrap();
    let (site_a, site_b) = (site(3, "a"), site(8, "b"));
    let (work_a, work_b) = (work.path().join("a"), work.path().join("b"));
    std::fs::create_dir_all(&work_a).unwrap();
    std::fs::create_dir_all(&work_b).unwrap();
    let (_server_a, port_a) = start_modoai(site_a.path(), &work_a, "", &[]);
    let (server_b, port_b) = start_modoai(site_b.path(), &work_b, "", &["--page-size", "1"]);
    let http500 = FaultServer::start(|_| Reply::status(500).body("broken"));
    let bad_xml = FaultServer::start(|_| Reply::ok("<OAI-PMH><responseDate>never closed"));
    let refused = {
        let port = integration_tests::process::free_port();
        format!("http://127.0.0.1:{port}/modoai")
    };
    let (a, b) = (
        format!("http://127.0.0.1:{port_a}/modoai"),
        format!("http://127.0.0.1:{port_b}/modoai"),
    );
    let (e500, exml) = (http500.url("/oai"), bad_xml.url("/oai"));
    let endpoints = [&refused, &a, &e500, &b, &exml];
    // oai_didl: files inline, so an item is archived whole or not at all when B goes away.
    let mut list = String::from("[defaults]\nmetadata-prefix = \"oai_didl\"\n");
    for (i, url) in endpoints.iter().enumerate() {
        list.push_str(&format!(
            "\n[[endpoint]]\nurl = \"{url}\"\narchive = \"archive-{i}\"\n"
        ));
    }
    let file = work.path().join("list.toml");
    std::fs::write(&file, list).unwrap();
    let report = work.path().join("reports/run.json");
    std::fs::create_dir_all(report.parent().unwrap()).unwrap();
    let args = [
        "harvest-list",
        s(&file),
        "--jobs",
        "5",
        "--retries",
        "0",
        "--delay",
        "0.3",
        "--report",
        s(&report),
    ];
    // The first run: B's server is killed once B has archived an item.
    let child = Command::new(program("modoai-harvester"))
        .args(args)
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let archive_b = work.path().join("archive-3");
    wait_for_ledger(&archive_b, 2);
    drop(server_b);
    let (stdout, stderr) = expect(&child.wait_with_output().unwrap(), 1);
    assert!(stderr.contains("run the same command again"), "{stderr}");
    let first = read_json(&report);
    assert_eq!(first["endpoints"].as_array().unwrap().len(), 5, "{first:#}");
    // Rows in list order, each with its outcome; the table says the same.
    let order: Vec<&str> = first["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["endpoint"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        endpoints.iter().map(|u| u.as_str()).collect::<Vec<_>>()
    );
    for url in [&refused, &e500, &exml] {
        let r = row(&first, url);
        assert_eq!(r["outcome"], "failed", "{r:#}");
        assert!(r["error"].as_str().is_some_and(|e| !e.is_empty()), "{r:#}");
        assert_eq!(r["records"], 0, "{r:#}");
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with("failed") && l.ends_with(url.as_str())),
            "{stdout}"
        );
    }
    let row_a = row(&first, &a);
    assert_eq!(
        (
            row_a["outcome"].as_str(),
            row_a["records"].as_u64(),
            row_a["errors"].as_u64()
        ),
        (Some("complete"), Some(3), Some(0))
    );
    assert!(row_a["bytes"].as_u64().unwrap() > 0 && row_a["seconds"].as_f64().unwrap() > 0.0);
    let row_b = row(&first, &b);
    let got = row_b["archived"].as_u64().unwrap();
    assert_eq!(row_b["outcome"], "failed", "{row_b:#}");
    assert!((1..8).contains(&got), "B stopped mid-list: {row_b:#}");
    assert_eq!(
        first["outcomes"],
        serde_json::json!({"complete": 1, "failed": 4})
    );
    assert!(
        stdout.contains("5 endpoints: 1 complete, 4 failed"),
        "{stdout}"
    );
    // The next run, B's server back on its port: B continues where it stopped.
    let _server_b = restart(site_b.path(), &work_b, port_b);
    let (stdout, _) = expect(&harvester(&args), 1);
    let second = read_json(&report);
    let row_b = row(&second, &b);
    assert_eq!(
        (row_b["outcome"].as_str(), row_b["resumed"].as_bool()),
        (Some("complete"), Some(true)),
        "{stdout}"
    );
    assert_eq!(row_b["archived"].as_u64().unwrap() + got, 8, "{row_b:#}");
    let mut want: Vec<String> = (0..8)
        .map(|i| format!("http://127.0.0.1:{port_b}/f{i:02}.txt"))
        .collect();
    want.sort();
    assert_eq!(identifiers(&archive_b), want);
    assert_eq!(row(&second, &a)["archived"], 0, "A was complete");
    archive_check(&archive_b);
    // No temporary file of the report is left beside it.
    assert_eq!(
        std::fs::read_dir(report.parent().unwrap()).unwrap().count(),
        1
    );
}

/// `modoai serve` again on `port`, waiting until it answers.
fn restart(root: &Path, work: &Path, port: u16) -> Running {
    let server = spawn_modoai(root, work, "", &["--page-size", "1"], port);
    let started = Instant::now();
    while !get(port, "/modoai?verb=Identify").starts_with(b"HTTP/1.0 200") {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the server did not restart"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

/// The endpoints `harvest-list --dry-run` prints, with `env` set.
fn dry_run(list: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(program("modoai-harvester"));
    cmd.args(["harvest-list", s(list), "--dry-run"]).args(extra);
    cmd.env_remove("JOB_COMPLETION_INDEX")
        .env_remove("JOB_COMPLETIONS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn endpoints_of(stdout: &str) -> BTreeSet<String> {
    stdout
        .lines()
        .map(|l| l.split(" -> ").next().unwrap().to_owned())
        .collect()
}

#[test]
fn shards_split_a_list_by_host_disjointly_and_completely() {
    let work = tempfile::tempdir().unwrap();
    let list = work.path().join("list.toml");
    let mut text = String::from("[defaults]\narchive = \"archive\"\n");
    let mut all = BTreeSet::new();
    // 30 hosts, two endpoints each, listed in an order that mixes them.
    for i in 0..60 {
        let url = format!("http://h{}.example:80{}/oai/{i}", i % 30, i % 3);
        text.push_str(&format!("\n[[endpoint]]\nurl = \"{url}\"\n"));
        all.insert(url);
    }
    std::fs::write(&list, &text).unwrap();
    let mut union = BTreeSet::new();
    let mut host_shard: BTreeMap<String, u32> = BTreeMap::new();
    for i in 0..4u32 {
        let flag = format!("{i}/4");
        let (stdout, _) = expect(&dry_run(&list, &["--shard", &flag], &[]), 0);
        let part = endpoints_of(&stdout);
        assert!(
            !part.is_empty() && part.len() < 60,
            "shard {flag}: {part:?}"
        );
        // The Job's variables choose the same shard; --shard wins over them.
        let index = i.to_string();
        let env = [
            ("JOB_COMPLETION_INDEX", index.as_str()),
            ("JOB_COMPLETIONS", "4"),
        ];
        let (by_env, _) = expect(&dry_run(&list, &[], &env), 0);
        assert_eq!(by_env, stdout);
        let other = [("JOB_COMPLETION_INDEX", "0"), ("JOB_COMPLETIONS", "1")];
        assert_eq!(
            expect(&dry_run(&list, &["--shard", &flag], &other), 0).0,
            stdout
        );
        for url in &part {
            assert!(union.insert(url.clone()), "{url} is in two shards");
            let host = modoai_harvester::shard::host_key(url).unwrap();
            assert_eq!(
                *host_shard.entry(host).or_insert(i),
                i,
                "{url}: one host, one shard"
            );
            assert!(Shard::new(i, 4).unwrap().takes(url).unwrap());
        }
    }
    assert_eq!(union, all);
    // The order of the list does not matter: reversed, shard 1 has the same endpoints.
    let mut blocks: Vec<&str> = text.split("\n[[endpoint]]").collect();
    let head = blocks.remove(0);
    blocks.reverse();
    let reversed = work.path().join("reversed.toml");
    std::fs::write(
        &reversed,
        format!("{head}\n[[endpoint]]{}", blocks.join("\n[[endpoint]]")),
    )
    .unwrap();
    let shard1 = |l: &Path| endpoints_of(&expect(&dry_run(l, &["--shard", "1/4"], &[]), 0).0);
    assert_eq!(shard1(&reversed), shard1(&list));
    // One variable alone is no Job: the whole list.
    let (whole, _) = expect(&dry_run(&list, &[], &[("JOB_COMPLETION_INDEX", "2")]), 0);
    assert_eq!(endpoints_of(&whole), all);
    // Bad values are usage errors that say what is wrong.
    for (flag, message) in [
        ("4/4", "does not exist"),
        ("1/0", "does not exist"),
        ("one/4", "is not a shard"),
    ] {
        let (_, stderr) = expect(&dry_run(&list, &["--shard", flag], &[]), 2);
        assert!(stderr.contains(message), "{flag}: {stderr}");
    }
    let env = [("JOB_COMPLETION_INDEX", "5"), ("JOB_COMPLETIONS", "4")];
    let (_, stderr) = expect(&dry_run(&list, &[], &env), 2);
    assert!(
        stderr.contains("JOB_COMPLETION_INDEX=5 and JOB_COMPLETIONS=4"),
        "{stderr}"
    );
}

#[test]
fn the_kubernetes_job_manifest_is_an_indexed_job_whose_shards_the_harvester_reads() {
    let manifest =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/deploy/harvest-list-job.yaml");
    let script =
        "import json, sys, yaml\nprint(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))";
    let out = Command::new(venv_python())
        .args(["-c", script, s(&manifest)])
        .output()
        .unwrap();
    let (stdout, _) = expect(&out, 0);
    let docs: Vec<serde_json::Value> = serde_json::from_str(&stdout).unwrap();
    let job = docs.iter().find(|d| d["kind"] == "Job").expect("a Job");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    let container = &spec["template"]["spec"]["containers"][0];
    let env = container["env"].as_array().unwrap();
    let completions = env.iter().find(|e| e["name"] == "JOB_COMPLETIONS").unwrap();
    assert_eq!(
        completions["value"].as_str().unwrap(),
        spec["completions"].to_string()
    );
    let args: Vec<&str> = container["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(args[0], "harvest-list");
    assert!(
        args.contains(&"--archive-id"),
        "shards share one archive id for merge: {args:?}"
    );
    // The list the ConfigMap holds is a harvest list the harvester accepts.
    let config = docs.iter().find(|d| d["kind"] == "ConfigMap").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("harvests.toml");
    std::fs::write(&list, config["data"]["harvests.toml"].as_str().unwrap()).unwrap();
    let env = [("JOB_COMPLETION_INDEX", "3"), ("JOB_COMPLETIONS", "4")];
    expect(&dry_run(&list, &[], &env), 0);
}

/// `inspect archive --json`.
fn inspect(archive: &Path) -> serde_json::Value {
    let (stdout, _) = expect(&harvester(&["inspect", "archive", s(archive), "--json"]), 0);
    serde_json::from_str(&stdout).unwrap()
}

/// `inspect archive --parts --json`: one JSON object per part.
fn parts(archive: &Path) -> Vec<serde_json::Value> {
    let (out, _) = expect(
        &harvester(&["inspect", "archive", s(archive), "--parts", "--json"]),
        0,
    );
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The shard of `url` among 2.
fn shard_of(url: &str) -> u32 {
    u32::from(!Shard::new(0, 2).unwrap().takes(url).unwrap())
}

#[test]
fn merged_shards_hold_every_item_replay_in_pywb_and_resolve_every_pwid() {
    let work = tempfile::tempdir().unwrap();
    // Servers until both of two shards have one (a host's shard is its port's luck).
    let mut servers: Vec<(Running, TestSite, String)> = Vec::new();
    while (0..2).any(|i| !servers.iter().any(|(_, _, url)| shard_of(url) == i)) {
        assert!(servers.len() < 12, "twelve ports in one shard");
        let n = servers.len();
        let dir = work.path().join(format!("server-{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        let site = site(3 + n, &format!("s{n}"));
        let (server, port) = start_modoai(site.path(), &dir, "", &["--page-size", "2"]);
        servers.push((server, site, format!("http://127.0.0.1:{port}/modoai")));
    }
    // oai_didl: the files inline, as resource records at their URLs for pywb to replay.
    let mut list =
        String::from("[defaults]\narchive = \"archive\"\nmetadata-prefix = \"oai_didl\"\n");
    for (_, _, url) in &servers {
        list.push_str(&format!("\n[[endpoint]]\nurl = \"{url}\"\n"));
    }
    // Each "machine" has the list in its own folder; one more harvests the whole list.
    let machine = |name: &str| -> PathBuf {
        let dir = work.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("list.toml"), &list).unwrap();
        dir
    };
    let id = ["--archive-id", "shards.example.org", "-q"];
    let mut shards = Vec::new();
    for i in 0..2 {
        let dir = machine(&format!("machine-{i}"));
        let (list, shard) = (dir.join("list.toml"), format!("{i}/2"));
        let mut args = vec!["harvest-list", s(&list), "--shard", &shard];
        args.extend(id);
        expect(&harvester(&args), 0);
        shards.push(dir.join("archive"));
    }
    let whole = machine("whole");
    let whole_list = whole.join("list.toml");
    let mut args = vec!["harvest-list", s(&whole_list)];
    args.extend(id);
    expect(&harvester(&args), 0);
    let merged = work.path().join("merged");
    let (a0, a1) = (s(&shards[0]), s(&shards[1]));
    let (stdout, _) = expect(&merge(&[a0, a1], &merged, &[]), 0);
    assert!(stdout.contains("copied and verified"), "{stdout}");
    // The same items, bytes and index lines as the shards together, and as one unsharded run.
    let (m, one) = (inspect(&merged), inspect(&whole.join("archive")));
    let (i0, i1) = (inspect(&shards[0]), inspect(&shards[1]));
    let counts = |v: &serde_json::Value| -> BTreeMap<String, (u64, u64, u64)> {
        v["lists"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let key = format!(
                    "{} {}",
                    l["endpoint"].as_str().unwrap(),
                    l["prefix"].as_str().unwrap()
                );
                (
                    key,
                    (
                        l["items"].as_u64().unwrap(),
                        l["bytes"].as_u64().unwrap(),
                        l["site_pages"].as_u64().unwrap_or(0),
                    ),
                )
            })
            .collect()
    };
    let mut together = counts(&i0);
    together.extend(counts(&i1));
    assert_eq!(counts(&m), together);
    assert_eq!(counts(&m), counts(&one));
    let total = |k: &str| i0[k].as_u64().unwrap() + i1[k].as_u64().unwrap();
    for k in ["warc_files", "warc_bytes", "index_lines"] {
        assert_eq!(m[k].as_u64().unwrap(), total(k), "{k}");
    }
    assert_eq!(m["index_lines"], one["index_lines"]);
    assert_eq!(m["archive_id"], "shards.example.org");
    let mut ids: Vec<String> = shards.iter().flat_map(|a| identifiers(a)).collect();
    ids.sort();
    assert_eq!(identifiers(&merged), ids);
    assert_eq!(identifiers(&merged), identifiers(&whole.join("archive")));
    // The merged index is sorted (pywb reads it as is); every PWID of a shard resolves in the
    // merged archive to the same bytes.
    let index = std::fs::read_to_string(merged.join("index.cdxj")).unwrap();
    let lines: Vec<&str> = index.lines().collect();
    assert!(
        lines.windows(2).all(|w| w[0] <= w[1]),
        "index.cdxj is not sorted"
    );
    let out = work.path().join("extracted");
    for shard in &shards {
        for part in parts(shard) {
            let pwid = part["pwid"].as_str().unwrap();
            let resolve = [
                "pwid",
                "resolve",
                pwid,
                "--archive",
                s(&merged),
                "--extract",
                s(&out),
            ];
            let (stdout, _) = expect(&harvester(&resolve), 0);
            assert_eq!(
                stdout.trim(),
                format!("{} {}", part["file"].as_str().unwrap(), part["offset"])
            );
            let original = out.with_extension("shard");
            let from_shard = [
                "pwid",
                "resolve",
                pwid,
                "--archive",
                s(shard),
                "--extract",
                s(&original),
            ];
            expect(&harvester(&from_shard), 0);
            assert_eq!(
                std::fs::read(&out).unwrap(),
                std::fs::read(&original).unwrap()
            );
        }
    }
    archive_check(&merged);
    // pywb replays every file from the merged archive, through its own index and through ours.
    let mut replay = vec![s(&merged).to_owned()];
    for (_, site, url) in &servers {
        let base = url.trim_end_matches("modoai");
        for (u, f) in site_files(site.path(), base) {
            replay.extend(["--expect".to_owned(), format!("{u}={}", f.display())]);
        }
    }
    let replay: Vec<&str> = replay.iter().map(String::as_str).collect();
    python("pywb_replay.py", &replay);
    let mut own = replay.clone();
    own.push("--own-index");
    python("pywb_replay.py", &own);
    refusals(work.path(), &shards, &whole.join("archive"), &merged);
}

/// `merge --archive A … --out OUT EXTRA…`.
fn merge(archives: &[&str], out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["merge"];
    for a in archives {
        args.extend(["--archive", a]);
    }
    args.extend(["--out", s(out)]);
    args.extend(extra);
    harvester(&args)
}

/// What merge refuses, each with a clear message, leaving no output folder.
fn refusals(work: &Path, shards: &[PathBuf], whole: &Path, merged: &Path) {
    let (a0, a1, w) = (s(&shards[0]), s(&shards[1]), s(whole));
    let out = work.join("refused");
    let no_archive = work.join("machine-0");
    let cases: [(Vec<&str>, &Path, &str); 4] = [
        (vec![a0, a1], merged, "exists"),
        (vec![a0, a0], &out, "given twice"),
        (vec![a0, w], &out, "overlap: both hold the list"),
        (vec![a0, s(&no_archive)], &out, "not an archive"),
    ];
    for (inputs, to, message) in cases {
        let (_, stderr) = expect(&merge(&inputs, to, &[]), 2);
        assert!(stderr.contains(message), "{inputs:?}: {stderr}");
        assert!(!out.exists() && !work.join(".refused.merging").exists());
    }
    // Another archive id: its PWIDs would stop resolving.
    let other = work.join("other");
    let site = site(1, "o");
    let (_server, port) = start_modoai(site.path(), &work.join("machine-1"), "", &[]);
    let url = format!("http://127.0.0.1:{port}/modoai");
    expect(
        &harvester(&[
            "harvest",
            &url,
            "--archive",
            s(&other),
            "--archive-id",
            "other.example",
            "-q",
        ]),
        0,
    );
    let (_, stderr) = expect(&merge(&[a0, s(&other)], &out, &[]), 2);
    assert!(
        stderr.contains("different archive ids") && stderr.contains("--archive-id"),
        "{stderr}"
    );
    // What an interrupted merge left is removed; --link shares the WARC files.
    std::fs::create_dir_all(work.join(".refused.merging/warcs")).unwrap();
    std::fs::write(work.join(".refused.merging/ledger.jsonl"), "half").unwrap();
    expect(&merge(&[a0, a1], &out, &["--link", "-q"]), 0);
    assert!(!work.join(".refused.merging").exists());
    assert_eq!(identifiers(&out), identifiers(merged));
}

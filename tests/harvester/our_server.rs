//! Harvests of our own server: oai_crate and oai_didl, incremental re-harvests with revisits,
//! files beyond `inline-max` fetched by reference.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use integration_tests::{Server, TestSite};
use modoai::Plugins;

use super::{archive_check, harvest_ok, ledger, pywb_replay};

/// Light plugins (builtin md5 and `file`), so the CRATE carries a digest to check.
pub(crate) async fn light_plugins(dir: &Path) -> Plugins {
    let path = dir.join("plugins.toml");
    std::fs::write(
        &path,
        "[settings]\ncache-dir = \"cache\"\n\n[[plugin]]\nlabel = \"md5\"\nbuiltin = \"md5\"\nmime = \"*/*\"\n\n\
         [[plugin]]\nlabel = \"file\"\nmime = \"*/*\"\ncommand = [\"file\", \"-b\", \"{path}\"]\nversion-command = [\"file\", \"--version\"]\n",
    )
    .unwrap();
    Plugins::load(&path).await.expect("plugins load")
}

/// Every visible file of a site: (URL, path).
pub(crate) fn site_files(root: &Path, base: &str) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(root).sort_by_file_name() {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(root).unwrap();
        if !e.file_type().is_file()
            || rel
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        {
            continue;
        }
        let url = format!(
            "{base}{}",
            rel.components()
                .map(|c| modoai_protocol::form::encode(&c.as_os_str().to_string_lossy()))
                .collect::<Vec<_>>()
                .join("/")
        );
        out.push((url, e.path().to_owned()));
    }
    out
}

async fn run(args: Vec<String>, code: i32) -> String {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        harvest_ok(&args, code)
    })
    .await
    .unwrap()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oai_crate_harvest_is_complete_exact_verifiable_and_replays() {
    let site = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let plugins = light_plugins(work.path()).await;
    let server = Server::start(site.path(), |c| c.page_size(4).plugins(plugins)).await;
    let archive = work.path().join("archive");
    let a = archive.to_str().unwrap().to_owned();
    // The default format is oai_crate, since the server offers it.
    let out = run(strings(&["harvest", &server.oai, "--archive", &a]), 0).await;
    assert!(out.contains("(oai_crate"), "{out}");
    let files = site_files(site.path(), &server.base);
    let entries = ledger(&archive);
    assert_eq!(entries.len(), files.len(), "one item per file");
    for (url, path) in &files {
        let e = entries
            .iter()
            .find(|e| &e.identifier == url)
            .unwrap_or_else(|| panic!("{url} not harvested"));
        // data/logo-copy has the bytes of images/logo.png: a revisit of it.
        let resource = &e.records[0];
        assert!(
            ["resource", "revisit"].contains(&resource.kind.as_str()),
            "{resource:?}"
        );
        assert_eq!(&resource.uri, url);
        assert_eq!(e.bytes, std::fs::metadata(path).unwrap().len(), "{url}");
        assert!(e.fixity_errors.is_empty(), "{url}: {:?}", e.fixity_errors);
        let kinds: Vec<&str> = e.records.iter().map(|r| r.kind.as_str()).collect();
        assert_eq!(kinds[1..], ["metadata", "metadata"], "{url}");
        // The XML metadata record sits at the GetRecord URL, never at the file's URL.
        assert!(
            e.records[1].uri.contains("verb=GetRecord"),
            "{:?}",
            e.records[1]
        );
        assert_eq!(e.records[1].mime, "application/xml");
    }
    let report = archive_check(&archive);
    assert!(report.contains("ok") || !report.is_empty(), "{report}");
    pywb_replay(&archive, &files, &[]);
    // The metadata keeps what the CRATE said: plugins, headers, fixity.
    let warcs: Vec<_> = std::fs::read_dir(archive.join("warcs"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(warcs.len(), 1);
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(warcs[0].path()).unwrap()),
        &mut bytes,
    )
    .unwrap();
    let text = String::from_utf8_lossy(&bytes);
    for needle in [
        "crate-plugin: label=md5",
        "crate-plugin: label=file",
        "fixity: md5 ok ",
        "http-header-etag: ",
        "oai-setSpec: mime:image",
        "isPartOf: modoai-harvest",
    ] {
        assert!(text.contains(needle), "{needle} missing from the WARC");
    }
    let inspect = run(strings(&["inspect", "archive", &a]), 0).await;
    assert!(
        inspect.contains(&format!("{} items", files.len())),
        "{inspect}"
    );
    assert!(inspect.contains("complete"), "{inspect}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oai_didl_pages_then_incremental_reharvest_with_revisits() {
    let site = TestSite::empty();
    site.write("a.txt", b"alpha\n", Some(1_700_000_000));
    site.write("dir/b.bin", &[0u8, 1, 2, 3, 255], Some(1_700_000_100));
    site.write("c.html", b"<p>c</p>\n", Some(1_700_000_200));
    let server = Server::start(site.path(), |c| c.page_size(2)).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let a = archive.to_str().unwrap().to_owned();
    let args = strings(&[
        "harvest",
        &server.oai,
        "--archive",
        &a,
        "--metadata-prefix",
        "oai_didl",
    ]);
    let out = run(args.clone(), 0).await;
    assert!(out.contains("3 items in 2 pages"), "{out}");
    // Nothing changed: the incremental harvest asks `from` the last start and stores nothing.
    let out = run(args.clone(), 0).await;
    assert!(out.contains("0 archived"), "{out}");
    assert!(out.contains(", from "), "{out}");
    // A touched file (same bytes, new datestamp) becomes a revisit; a changed one a resource.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 5;
    site.write("a.txt", b"alpha\n", Some(now));
    site.write("c.html", b"<p>changed</p>\n", Some(now));
    // Wait for the server's watcher to see the changes.
    let mut tries = 0;
    loop {
        let reply = server
            .oai(&format!(
                "verb=ListIdentifiers&metadataPrefix=oai_didl&from={}",
                modoai_protocol::Datestamp::from_unix(now as i64)
            ))
            .await;
        if reply.text().matches("<identifier>").count() == 2 || tries > 100 {
            break;
        }
        tries += 1;
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // Captures are told apart by 14-digit timestamps (CDXJ, pywb): not within one second.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let out = run(args.clone(), 0).await;
    assert!(out.contains("2 archived"), "{out}");
    assert!(out.contains("1 revisits"), "{out}");
    let entries = ledger(&archive);
    assert_eq!(entries.len(), 5);
    let revisit = entries
        .iter()
        .flat_map(|e| &e.records)
        .find(|r| r.kind == "revisit")
        .unwrap();
    assert_eq!(revisit.uri, format!("{}a.txt", server.base));
    archive_check(&archive);
    let files = vec![
        (format!("{}a.txt", server.base), site.path().join("a.txt")),
        (format!("{}c.html", server.base), site.path().join("c.html")),
        (
            format!("{}dir/b.bin", server.base),
            site.path().join("dir/b.bin"),
        ),
    ];
    pywb_replay(&archive, &files, &[format!("{}a.txt", server.base)]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_beyond_inline_max_are_fetched_by_reference() {
    let site = TestSite::empty();
    let big: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
    site.write("big.dat", &big, Some(1_700_000_000));
    site.write("small.txt", b"small", Some(1_700_000_001));
    let work = tempfile::tempdir().unwrap();
    let plugins = light_plugins(work.path()).await;
    let server = Server::start(site.path(), |c| c.inline_max(1000).plugins(plugins)).await;
    let archive = work.path().join("archive");
    let a = archive.to_str().unwrap().to_owned();
    run(strings(&["harvest", &server.oai, "--archive", &a]), 0).await;
    let entries = ledger(&archive);
    let e = entries
        .iter()
        .find(|e| e.identifier.ends_with("big.dat"))
        .unwrap();
    assert_eq!(e.bytes, big.len() as u64);
    assert!(e.fixity_errors.is_empty(), "{:?}", e.fixity_errors);
    archive_check(&archive);
    pywb_replay(&archive, &site_files(site.path(), &server.base), &[]);
    server.stop().await;
}

/// The commands of the README's ```` ```sh ```` block that starts pywb.
fn readme_replay_steps() -> Vec<String> {
    let readme = std::fs::read_to_string(integration_tests::repo_root().join("README.md")).unwrap();
    let block = readme
        .split("```sh\n")
        .skip(1)
        .filter_map(|b| b.split_once("```").map(|(b, _)| b))
        .find(|b| b.contains("wayback"))
        .expect("the README has a block of replay steps");
    block
        .lines()
        .map(str::to_owned)
        .filter(|l| !l.is_empty())
        .collect()
}

/// The body of pywb's identity replay (`id_`) of the latest capture of `url`; `None` until
/// wayback answers 200.
fn replay(port: u16, url: &str) -> Option<Vec<u8>> {
    let response = integration_tests::http::get(port, &format!("/my-collection/2030id_/{url}"));
    if integration_tests::http::status_code(&response) != 200 {
        return None;
    }
    let at = response.windows(4).position(|w| w == b"\r\n\r\n")?;
    Some(response[at + 4..].to_vec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_replay_steps_replay_the_site_root_and_its_files() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("my-archive");
    let a = archive.to_str().unwrap().to_owned();
    let args = [
        "harvest",
        &server.oai,
        "--archive",
        &a,
        "--metadata-prefix",
        "oai_didl",
    ];
    run(strings(&args), 0).await;
    let root = std::fs::read_to_string(archive.join("ledger.jsonl"))
        .unwrap()
        .lines()
        .find(|l| l.contains("\"kind\":\"site-page\""))
        .map(str::to_owned)
        .expect("the site's root page is archived");
    assert!(
        root.contains(&format!("\"identifier\":\"{}\"", server.base)),
        "{root}"
    );
    let files = site_files(site.path(), &server.base);
    assert_eq!(
        ledger(&archive).len(),
        files.len(),
        "the root page is no item"
    );
    let json = run(strings(&["inspect", "archive", &a, "--json"]), 0).await;
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["lists"][0]["items"], files.len(), "{json}");
    assert_eq!(report["lists"][0]["site_pages"], 1, "{json}");
    let (base, dir) = (server.base.clone(), work.path().to_owned());
    let index = site.path().join("index.html");
    tokio::task::spawn_blocking(move || {
        let venv = integration_tests::repo_root().join(".venv/bin/");
        let port = integration_tests::process::free_port();
        let mut wayback = None;
        for step in readme_replay_steps() {
            let command = step
                .replace(".venv/bin/", venv.to_str().unwrap())
                .replace("8090", &port.to_string());
            let mut shell = Command::new("bash");
            shell.arg("-c").current_dir(&dir);
            if step.contains("wayback") {
                let child = shell
                    .arg(format!("exec {command}"))
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                wayback = Some(integration_tests::process::Running(child));
                continue;
            }
            let out = shell.arg(&command).output().unwrap();
            assert!(
                out.status.success(),
                "{command}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let _wayback = wayback.expect("the README starts wayback");
        let start = std::time::Instant::now();
        let front = loop {
            if let Some(body) = replay(port, &base) {
                break body;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "pywb does not replay {base}"
            );
            std::thread::sleep(Duration::from_millis(200));
        };
        assert_eq!(
            front,
            std::fs::read(&index).unwrap(),
            "the front page as served"
        );
        for (url, file) in &files {
            assert_eq!(
                replay(port, url).as_deref(),
                Some(&std::fs::read(file).unwrap()[..]),
                "{url}"
            );
        }
    })
    .await
    .unwrap();
    server.stop().await;
}

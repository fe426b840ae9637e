//! Archive services on a harvested archive: PWIDs of every part (in the WARC metadata, shown by
//! `inspect archive --parts`, resolved to their records and bytes), corpus definitions, and the
//! MementoMap profile with lookups.

use std::path::Path;

use integration_tests::{Server, TestSite};
use modoai_archive::pwid::{Coverage, Pwid};

use super::our_server::site_files;
use super::{archive_check, blocking, ledger, run};

/// `inspect archive --parts --json`: one JSON object per part.
fn parts(archive: &Path) -> Vec<serde_json::Value> {
    let a = archive.to_str().unwrap();
    let (out, _) = run(&["inspect", "archive", a, "--parts", "--json"], 0);
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_part_has_a_pwid_that_resolves_to_its_exact_bytes() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c.page_size(5)).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let (a, oai) = (archive.to_str().unwrap().to_owned(), server.oai.clone());
    let args = [
        "harvest",
        &oai,
        "--archive",
        &a,
        "--metadata-prefix",
        "oai_didl",
        "--archive-id",
        "archive.example.org",
        "--quiet",
    ]
    .map(str::to_owned);
    blocking(move || run(&args.each_ref().map(String::as_str), 0)).await;
    let files = site_files(site.path(), &server.base);
    let archive2 = archive.clone();
    let listed = blocking(move || parts(&archive2)).await;
    assert_eq!(listed.len(), files.len(), "one part per file");
    // The WARC's warc-fields records carry the same PWIDs.
    let mut warc = Vec::new();
    for e in std::fs::read_dir(archive.join("warcs")).unwrap().flatten() {
        std::io::Read::read_to_end(
            &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(e.path()).unwrap()),
            &mut warc,
        )
        .unwrap();
    }
    let warc = String::from_utf8_lossy(&warc);
    for (url, path) in &files {
        let part = listed
            .iter()
            .find(|p| p["url"] == url.as_str())
            .unwrap_or_else(|| panic!("{url}"));
        let pwid: Pwid = part["pwid"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            (pwid.archive_id.as_str(), pwid.coverage, pwid.item.as_str()),
            ("archive.example.org", Coverage::Part, url.as_str())
        );
        assert!(
            warc.contains(&format!("pwid: {pwid}\r\n")),
            "{pwid} not in the WARC metadata"
        );
        // Resolve: the record's file and offset, as the ledger has them; extract: the file's bytes
        // (data/logo-copy is a revisit of images/logo.png: its original's bytes).
        let out = work.path().join("extracted");
        let (p, a, o) = (
            pwid.to_string(),
            a.clone(),
            out.to_str().unwrap().to_owned(),
        );
        let (stdout, _) = blocking(move || {
            run(
                &["pwid", "resolve", &p, "--archive", &a, "--extract", &o],
                0,
            )
        })
        .await;
        assert_eq!(
            stdout.trim(),
            format!("{} {}", part["file"].as_str().unwrap(), part["offset"])
        );
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(path).unwrap(),
            "{url}"
        );
    }
    assert!(
        listed.iter().any(|p| p["type"] == "revisit"),
        "the example site has a duplicate file"
    );
    // The older `pwid:` form, a PWID of another archive, an unknown capture, a malformed PWID.
    let first: Pwid = listed[0]["pwid"].as_str().unwrap().parse().unwrap();
    let t = first.archived_at;
    let old = format!(
        "pwid:archive.example.org:{:04}-{:02}-{:02}_{:02}.{:02}.{:02}Z:part:{}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        first.item
    );
    let other = first
        .to_string()
        .replace("archive.example.org", "elsewhere.org");
    let earlier = Pwid {
        archived_at: t - time::Duration::days(1),
        ..first.clone()
    }
    .to_string();
    let a2 = a.clone();
    blocking(move || {
        run(&["pwid", "resolve", &old, "--archive", &a2], 0);
        let (_, err) = run(&["pwid", "resolve", &other, "--archive", &a2], 2);
        assert!(err.contains("elsewhere.org"), "{err}");
        let (_, err) = run(&["pwid", "resolve", &earlier, "--archive", &a2], 1);
        assert!(err.contains("no capture"), "{err}");
        let (_, err) = run(
            &[
                "pwid",
                "resolve",
                "urn:pwid:x:2024-01-01T00:00:00Z:book:y",
                "--archive",
                &a2,
            ],
            2,
        );
        assert!(err.contains("coverage"), "{err}");
        // The archive id is fixed by the first harvest.
        let (_, err) = run(
            &[
                "harvest",
                &oai,
                "--archive",
                &a2,
                "--archive-id",
                "other.org",
                "--quiet",
            ],
            2,
        );
        assert!(err.contains("cannot change"), "{err}");
    })
    .await;
    archive_check(&archive);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_definitions_select_parts_and_validate() {
    let site = TestSite::empty();
    site.write("a.txt", b"alpha\n", Some(1_700_000_000)); // 2023-11-14
    site.write(
        "img/b.png",
        &std::fs::read(integration_tests::repo_root().join("examples/site/images/logo.png"))
            .unwrap(),
        Some(1_710_000_000),
    ); // 2024-03-09
    site.write("c.html", b"<p>c</p>\n", Some(1_720_000_000)); // 2024-07-03
    let server = Server::start(site.path(), |c| c).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let (a, oai) = (archive.to_str().unwrap().to_owned(), server.oai.clone());
    let host = url::Url::parse(&server.base)
        .unwrap()
        .host_str()
        .unwrap()
        .to_owned();
    let dir = work.path().to_owned();
    blocking(move || {
        run(
            &[
                "harvest",
                &oai,
                "--archive",
                &a,
                "--metadata-prefix",
                "oai_didl",
                "--archive-id",
                "corpus.test",
                "--quiet",
            ],
            0,
        );
        let corpus = |extra: &[&str], name: &str| -> Vec<String> {
            let out = dir.join(name);
            let mut args = vec!["corpus", "--archive", &a, "--out", out.to_str().unwrap()];
            args.extend_from_slice(extra);
            let (_, err) = run(&args, 0);
            assert!(err.contains(":collection:urn:sha1:"), "{err}");
            integration_tests::require_tool(
                "xmllint",
                "scripts/setup (Debian package libxml2-utils)",
            );
            let schema = integration_tests::repo_root().join("schemas/corpus.xsd");
            let check = std::process::Command::new("xmllint")
                .args([
                    "--noout",
                    "--schema",
                    schema.to_str().unwrap(),
                    out.to_str().unwrap(),
                ])
                .output()
                .unwrap();
            assert!(
                check.status.success(),
                "{}",
                String::from_utf8_lossy(&check.stderr)
            );
            let xml = std::fs::read(&out).unwrap();
            let mut names: Vec<String> = integration_tests::attrs(&xml, "part", "url")
                .into_iter()
                .map(|u| u.rsplit('/').next().unwrap().to_owned())
                .collect();
            names.sort();
            names
        };
        assert_eq!(corpus(&[], "all.xml"), ["a.txt", "b.png", "c.html"]);
        assert_eq!(corpus(&["--set", "mime:image"], "img.xml"), ["b.png"]);
        assert_eq!(
            corpus(
                &["--from", "2024-01-01", "--until", "2024-03-09"],
                "window.xml"
            ),
            ["b.png"]
        );
        assert_eq!(corpus(&["--from", "2024-03-10"], "late.xml"), ["c.html"]);
        assert_eq!(
            corpus(
                &["--host", &host, "--description", "All of <site> & more"],
                "host.xml"
            ),
            ["a.txt", "b.png", "c.html"]
        );
        assert!(corpus(&["--host", "elsewhere.org"], "none.xml").is_empty());
        let xml = std::fs::read_to_string(dir.join("host.xml")).unwrap();
        assert!(
            xml.contains("<description>All of &lt;site&gt; &amp; more</description>"),
            "{xml}"
        );
        // The same selection of the same holdings gets the same name.
        let name = |f: &str| {
            integration_tests::attrs(&std::fs::read(dir.join(f)).unwrap(), "corpus", "pwid")[0]
                .rsplit(':')
                .next()
                .unwrap()
                .to_owned()
        };
        assert_eq!(name("all.xml"), name("host.xml"));
        assert_ne!(name("all.xml"), name("img.xml"));
        let out = dir.join("x.xml");
        let (_, err) = run(
            &[
                "corpus",
                "--archive",
                &a,
                "--from",
                "2024-13-01",
                "--out",
                out.to_str().unwrap(),
            ],
            2,
        );
        assert!(err.contains("--from"), "{err}");
    })
    .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_profile_of_a_harvest_covers_its_files() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let (a, oai) = (archive.to_str().unwrap().to_owned(), server.oai.clone());
    let files = site_files(site.path(), &server.base);
    let dir = work.path().to_owned();
    let n_files = files.len();
    blocking(move || {
        run(&["harvest", &oai, "--archive", &a, "--metadata-prefix", "oai_didl", "--quiet"], 0);
        let full = dir.join("full.ukvs");
        let small = dir.join("small.ukvs");
        run(&["profile", "--archive", &a, "--out", full.to_str().unwrap(), "--id", "http://archive.example.org/"], 0);
        let text = std::fs::read_to_string(&full).unwrap();
        assert!(text.starts_with("!context [\"http://oduwsdl.github.io/contexts/ukvs\"]\n!id {uri: \"http://archive.example.org/\"}\n"), "{text}");
        // One key per file, each one memento of one URI-R; the GetRecord URLs of the DIDL
        // metadata records fall under the endpoint's key.
        for (url, _) in &files {
            let (out, _) = run(&["profile", "lookup", full.to_str().unwrap(), url], 0);
            assert!(out.ends_with(" 1/1 0\n"), "{url}: {out}");
        }
        let endpoint = text.lines().find(|l| l.ends_with(&format!(" {n}/{n}", n = files.len()))).expect("the endpoint's key");
        assert!(endpoint.contains(")/modoai "), "{endpoint}");
        run(&["profile", "compact", full.to_str().unwrap(), small.to_str().unwrap(), "--host-factor", "0.05", "--path-factor", "0.05"], 0);
        let (out, _) = run(&["profile", "lookup", small.to_str().unwrap(), &files[0].0], 0);
        assert!(out.contains(",* ") || out.contains("/* "), "a roll-up covers it: {out}");
        let (out, _) = run(&["profile", "lookup", small.to_str().unwrap(), "http://not.archived.example/"], 1);
        assert!(out.contains("no key"), "{out}");
        run(&["profile", "--archive", &a], 2);
    })
    .await;
    let entries = ledger(&archive);
    assert_eq!(entries.len(), n_files);
    server.stop().await;
}

//! ResourceSync: the Source Description, Capability List, Resource List (index and parts) and
//! Change List (index and pages) against the site and the OAI-PMH view of it; robots.txt; bad
//! requests; and `resync` 2.0.1 as the independent client, whose copies of the site are compared
//! byte for byte here (it checks no digest itself and exits 0 on fatal errors).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::Full;
use integration_tests::xml::{element_attrs, texts};
use integration_tests::{venv_tool, Reply, Server, TestSite};
use md5::{Digest, Md5};
use modoai::Plugins;

use crate::EXAMPLE_FILES;

const RS: &str = "resourcesync";

/// The URLs of the documents of `server`.
fn url(server: &Server, doc: &str) -> String {
    format!("{}/{RS}/{doc}", server.oai)
}

/// GETs a ResourceSync document, which must be XML of the right type.
async fn document(server: &Server, url: &str) -> Reply {
    let r = server.get(url).await;
    assert_eq!(r.status, 200, "{url}: {}", r.text());
    assert_eq!(r.headers["content-type"], "application/xml", "{url}");
    r
}

/// The one `rs:md` of the document itself (the first; entries' come after it).
fn root_md(r: &Reply) -> BTreeMap<String, String> {
    element_attrs(&r.body, "md").remove(0)
}

/// Every `<url>` entry: its loc, lastmod and `rs:md` attributes.
fn entries(r: &Reply) -> Vec<(String, Option<String>, BTreeMap<String, String>)> {
    let locs = texts(&r.body, "loc");
    let mds = element_attrs(&r.body, "md");
    let xml = r.text();
    let blocks: Vec<&str> = xml.split("<url>").skip(1).collect();
    assert_eq!(blocks.len(), locs.len());
    locs.into_iter()
        .zip(blocks)
        .zip(mds.into_iter().skip(1))
        .map(|((loc, block), md)| {
            let entry = block.split("</url>").next().unwrap();
            let lastmod = texts(format!("<url>{entry}</url>").as_bytes(), "lastmod").pop();
            (loc, lastmod, md)
        })
        .collect()
}

/// The mtime of a file as a W3C datetime, seconds.
fn w3c_mtime(path: &Path) -> String {
    let t = std::fs::metadata(path).unwrap().modified().unwrap();
    let secs = t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    modoai::protocol::Datestamp::from_unix(secs).to_string()
}

async fn with_md5(site: &TestSite, work: &Path) -> Server {
    let path = work.join("plugins.toml");
    std::fs::write(
        &path,
        "[settings]\ncache-dir = \"cache\"\n\n[[plugin]]\nlabel = \"md5\"\nbuiltin = \"md5\"\nmime = \"*/*\"\n",
    )
    .unwrap();
    let plugins = Plugins::load(&path).await.unwrap();
    Server::start(site.path(), |c| c.plugins(plugins)).await
}

#[tokio::test]
async fn the_documents_describe_every_file_once() {
    let site = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let server = with_md5(&site, work.path()).await;
    // One CRATE made: its md5 is known to the plugins, so the Resource List gives it.
    let id = server.id("about.html");
    server
        .oai(&format!(
            "verb=GetRecord&metadataPrefix=oai_crate&identifier={id}"
        ))
        .await
        .assert_valid();

    let sd = document(&server, &format!("{}.well-known/{RS}", server.base)).await;
    assert_eq!(root_md(&sd)["capability"], "description");
    assert_eq!(texts(&sd.body, "loc"), [url(&server, "capabilitylist.xml")]);
    let ln = element_attrs(&sd.body, "ln");
    assert_eq!(ln[0]["rel"], "describedby");
    assert!(ln[0]["href"].ends_with("?verb=Identify"));

    let caps = document(&server, &url(&server, "capabilitylist.xml")).await;
    assert_eq!(root_md(&caps)["capability"], "capabilitylist");
    assert_eq!(element_attrs(&caps.body, "ln")[0]["rel"], "up");
    assert_eq!(
        element_attrs(&caps.body, "ln")[0]["href"],
        format!("{}.well-known/{RS}", server.base)
    );
    let listed = texts(&caps.body, "loc");
    assert_eq!(
        listed,
        [
            url(&server, "resourcelist.xml"),
            url(&server, "changelist.xml")
        ]
    );

    let index = document(&server, &listed[0]).await;
    assert!(index.text().contains("<sitemapindex"), "{}", index.text());
    let md = root_md(&index);
    assert_eq!(md["capability"], "resourcelist");
    assert!(md.contains_key("at"));
    let parts = texts(&index.body, "loc");
    assert_eq!(parts.len(), 1, "14 files: one part");
    let part = document(&server, &parts[0]).await;
    assert!(part.text().contains("<urlset"));
    assert_eq!(root_md(&part)["capability"], "resourcelist");
    let got = entries(&part);
    let locs: Vec<String> = got.iter().map(|e| e.0.clone()).collect();
    let want: Vec<String> = EXAMPLE_FILES.iter().map(|p| server.id(p)).collect();
    let mut sorted = want.clone();
    sorted.sort();
    assert_eq!(locs, sorted, "every file once, in path order");
    for (loc, lastmod, md) in &got {
        let rel = loc.strip_prefix(&server.base).unwrap();
        let file = site.path().join(percent_decode(rel));
        assert_eq!(lastmod.as_deref(), Some(w3c_mtime(&file).as_str()), "{loc}");
        let bytes = std::fs::read(&file).unwrap();
        assert_eq!(md["length"], bytes.len().to_string(), "{loc}");
        assert!(md["type"].contains('/'), "{loc}: {md:?}");
        match rel {
            "about.html" => {
                assert_eq!(md["hash"], format!("md5:{:x}", Md5::digest(&bytes)));
                assert_eq!(md["type"], "text/html");
            }
            _ => assert!(!md.contains_key("hash"), "no md5 computed for {loc}"),
        }
    }

    // Identify names the Source Description and the Capability List, and still validates.
    let identify = server.oai("verb=Identify").await;
    identify.assert_valid();
    let rs = element_attrs(&identify.body, "resourceSync").remove(0);
    assert_eq!(
        rs["sourceDescription"],
        format!("{}.well-known/{RS}", server.base)
    );
    assert_eq!(rs["capabilityList"], url(&server, "capabilitylist.xml"));
    // … and where the schema of that element is: served by the route itself.
    let schema = format!("{}/modoai.xsd", server.oai);
    assert_eq!(
        rs["xsi:schemaLocation"],
        format!("urn:modoai:ns:2026 {schema}")
    );
    let xsd = server.get(&schema).await;
    assert_eq!(xsd.status, 200);
    let ours = std::fs::read(integration_tests::repo_root().join("schemas/modoai.xsd")).unwrap();
    assert_eq!(xsd.body.as_ref(), ours.as_slice());
    server.stop().await;
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .unwrap()
        .into_owned()
}

/// Puts a file in place at once (written beside it under a hidden name, then renamed), so the
/// index sees one new version, not a write and then an mtime change.
fn deploy(site: &TestSite, rel: &str, bytes: &[u8], mtime: Option<u64>) {
    let tmp = site.write(".deploying", bytes, mtime);
    std::fs::rename(tmp, site.path().join(rel)).unwrap();
}

/// Where the Capability List says the Change List's history starts.
async fn history_start(server: &Server) -> String {
    let caps = document(server, &url(server, "capabilitylist.xml")).await;
    let md = element_attrs(&caps.body, "md");
    let list = md.iter().find(|m| m["capability"] == "changelist").unwrap();
    list["from"].clone()
}

/// Polls the Change List from `from` until it holds `n` entries.
async fn wait_for_changes(server: &Server, from: &str, n: usize) -> Reply {
    let page = format!("{}?from={from}", url(server, "changelist.xml"));
    for _ in 0..400 {
        let r = document(server, &page).await;
        if texts(&r.body, "loc").len() >= n {
            return r;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the Change List never showed {n} changes")
}

#[tokio::test]
async fn changes_are_listed_oldest_first_with_their_kind_and_time() {
    let site = TestSite::empty();
    site.write("keep.txt", b"keep", Some(1_600_000_000));
    site.write("edit.txt", b"old", Some(1_600_000_000));
    site.write("gone.txt", b"gone", Some(1_600_000_000));
    let server = Server::start(site.path(), |c| {
        c.rescan_interval(Duration::from_millis(200))
    })
    .await;
    let before = modoai::protocol::Datestamp::now().plus(-1).to_string();
    let empty = document(
        &server,
        &format!("{}?from={before}", url(&server, "changelist.xml")),
    )
    .await;
    assert!(texts(&empty.body, "loc").is_empty(), "{}", empty.text());

    deploy(&site, "new.txt", b"new file", Some(1_500_000_000));
    wait_for_changes(&server, &before, 1).await;
    deploy(&site, "edit.txt", b"new text", None);
    wait_for_changes(&server, &before, 2).await;
    std::fs::remove_file(site.path().join("gone.txt")).unwrap();
    let page = wait_for_changes(&server, &before, 3).await;

    let md = root_md(&page);
    assert_eq!(md["capability"], "changelist");
    // Asked from before the log's start, the page covers what is kept: from where the
    // Capability List says its history starts.
    let start = history_start(&server).await;
    assert_eq!(md["from"], start);
    assert!(start >= before, "{start} {before}");
    assert!(!md.contains_key("until"), "the last page is open");
    let got = entries(&page);
    let kinds: Vec<(&str, &str)> = got
        .iter()
        .map(|(loc, _, md)| {
            (
                loc.strip_prefix(&server.base).unwrap(),
                md["change"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("new.txt", "created"),
            ("edit.txt", "updated"),
            ("gone.txt", "deleted")
        ]
    );
    let times: Vec<&str> = got.iter().map(|e| e.2["datetime"].as_str()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    assert!(times.iter().all(|t| *t >= before.as_str()), "{times:?}");
    // An old mtime is the file's lastmod, but the change is dated when the index saw it.
    assert_eq!(got[0].1.as_deref(), Some("2017-07-14T02:40:00Z"));
    assert_eq!(got[0].2["length"], "8");
    assert!(got[2].1.is_none() && !got[2].2.contains_key("length"));

    let index = document(&server, &url(&server, "changelist.xml")).await;
    assert!(index.text().contains("<sitemapindex"));
    let pages = element_attrs(&index.body, "md");
    assert_eq!(pages[0]["capability"], "changelist");
    assert_eq!(pages.len(), 2, "one open page: {}", index.text());
    assert!(!pages[1].contains_key("until"));
    let first = document(&server, &texts(&index.body, "loc")[0]).await;
    assert_eq!(entries(&first).len(), 3);
    server.stop().await;
}

#[tokio::test]
async fn changes_older_than_the_kept_period_go_and_the_lists_say_where_history_starts() {
    let site = TestSite::empty();
    site.write("a.txt", b"a", Some(1_600_000_000));
    let server = Server::start(site.path(), |c| {
        c.rescan_interval(Duration::from_millis(200))
            .change_log_retention(Duration::from_secs(2))
    })
    .await;
    let start = history_start(&server).await;
    let index = document(&server, &url(&server, "changelist.xml")).await;
    assert_eq!(root_md(&index)["from"], start, "{}", index.text());
    deploy(&site, "b.txt", b"b", None);
    let page = wait_for_changes(&server, &start, 1).await;
    let when = entries(&page)[0].2["datetime"].clone();
    // Two seconds on, the change is no longer kept, and the history starts after it.
    for _ in 0..400 {
        let later = history_start(&server).await;
        if later > when {
            let page = document(
                &server,
                &format!("{}?from={start}", url(&server, "changelist.xml")),
            )
            .await;
            assert!(entries(&page).is_empty(), "{}", page.text());
            assert_eq!(root_md(&page)["from"], later);
            let index = document(&server, &url(&server, "changelist.xml")).await;
            assert_eq!(root_md(&index)["from"], later);
            // The records are not affected.
            let r = server
                .oai("verb=ListIdentifiers&metadataPrefix=oai_dc")
                .await;
            assert!(r.text().contains(&server.id("b.txt")), "{}", r.text());
            server.stop().await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the change was never forgotten");
}

#[tokio::test]
async fn bad_and_out_of_range_requests_get_short_answers() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let changes = url(&server, "changelist.xml");
    let resources = url(&server, "resourcelist.xml");
    for (query, status) in [
        (format!("{changes}?from=2999-01-01T00:00:00Z"), 404),
        (format!("{resources}?start=zzzz"), 404),
        (format!("{changes}?from=yesterday"), 400),
        (format!("{changes}?from=2024-01-01&seq=x"), 400),
        (format!("{changes}?since=2024-01-01"), 400),
        (format!("{resources}?start=b&end=a"), 400),
        (format!("{resources}?start=a&start=b"), 400),
        (format!("{}?x=1", url(&server, "capabilitylist.xml")), 400),
    ] {
        let r = server.get(&query).await;
        assert_eq!(r.status, status, "{query}: {}", r.text());
        assert!(r.text().len() < 200 && r.text().ends_with('\n'), "{query}");
    }
    let other = server.get(&url(&server, "resourcelist-2.xml")).await;
    assert_eq!(other.status, 404, "no such document");
    let post = Request::builder()
        .method(Method::POST)
        .uri(&resources)
        .body(Full::<Bytes>::default())
        .unwrap();
    let r = server.send(post).await;
    assert_eq!(r.status, 405);
    assert_eq!(r.headers["allow"], "GET, HEAD");
    // A day is a valid start, and an empty page from it is still a valid open Change List.
    let day = document(&server, &format!("{changes}?from=2024-01-01")).await;
    assert_eq!(root_md(&day)["from"], history_start(&server).await);
    server.stop().await;
}

#[tokio::test]
async fn robots_txt_names_the_resource_list_only_when_the_site_has_none() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c).await;
    let r = server.get(&format!("{}robots.txt", server.base)).await;
    assert_eq!(r.status, 200);
    assert!(r
        .text()
        .contains(&format!("Sitemap: {}\n", url(&server, "resourcelist.xml"))));
    assert!(
        r.text().contains("User-agent: *\nDisallow:\n"),
        "{}",
        r.text()
    );
    server.stop().await;

    site.write("robots.txt", b"User-agent: *\nDisallow: /private/\n", None);
    let server = Server::start(site.path(), |c| c).await;
    let r = server.get(&format!("{}robots.txt", server.base)).await;
    assert_eq!(r.text(), "User-agent: *\nDisallow: /private/\n");
    server.stop().await;

    let server = Server::start(site.path(), |c| c.resourcesync(false)).await;
    let sd = server
        .get(&format!("{}.well-known/{RS}", server.base))
        .await;
    assert_eq!(sd.status, 404);
    let identify = server.oai("verb=Identify").await;
    assert!(element_attrs(&identify.body, "resourceSync").is_empty());
    server.stop().await;
}

/// Runs `resync-sync` in `work` (where it keeps its state file), off the runtime that serves
/// the site meanwhile; fails on its fatal errors, which it reports with exit status 0.
async fn resync(work: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new(venv_tool("resync-sync"));
    cmd.args(args).current_dir(work);
    let out = tokio::task::spawn_blocking(move || cmd.output())
        .await
        .unwrap()
        .expect("resync-sync runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success() && !err.contains("FatalError"),
        "resync {args:?}:\n{err}"
    );
    assert!(
        err.contains("Status:"),
        "resync {args:?} gave no status:\n{err}"
    );
    err
}

/// Every regular file under `dir`, by its path relative to `dir` (names percent-decoded, as
/// resync keeps them encoded), with its bytes.
fn tree(dir: &Path, decode: bool) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let rel = if decode { percent_decode(&rel) } else { rel };
            (rel, std::fs::read(e.path()).unwrap())
        })
        .filter(|(rel, _)| !rel.split('/').any(|part| part.starts_with('.')))
        .collect()
}

#[tokio::test]
async fn resync_copies_the_site_and_follows_its_changes() {
    let site = TestSite::example();
    site.write("with space/a&b.txt", b"odd names too", None);
    let work = tempfile::tempdir().unwrap();
    let server = with_md5(&site, work.path()).await;
    let dst = work.path().join("copy");
    let dst_s = dst.to_str().unwrap().to_owned();
    // Baseline into an empty folder, found from the mapping by the Source Description.
    let out = resync(work.path(), &["--baseline", &server.base, &dst_s]).await;
    assert!(out.contains("SYNCED") || out.contains("IN SYNC"), "{out}");
    let want = |site: &TestSite| {
        let mut t = tree(site.path(), false);
        t.retain(|k, _| !k.starts_with("cache/") && k != "plugins.toml");
        t
    };
    assert_eq!(tree(&dst, true), want(&site), "the baseline copy");

    let since = modoai::protocol::Datestamp::now().plus(-1).to_string();
    deploy(&site, "added.txt", b"a new file", Some(1_400_000_000));
    deploy(
        &site,
        "about.html",
        b"<html><body>rewritten</body></html>",
        None,
    );
    std::fs::remove_file(site.path().join("data/measurements.csv")).unwrap();
    wait_for_changes(&server, &since, 3).await;
    let changes = format!("{}?from={since}", url(&server, "changelist.xml"));
    let out = resync(
        work.path(),
        &[
            "--incremental",
            "--changelist-uri",
            &changes,
            "--from",
            &since,
            "--delete",
            &server.base,
            &dst_s,
        ],
    )
    .await;
    assert!(
        out.contains("CHANGES APPLIED") || out.contains("SYNCED"),
        "{out}"
    );
    assert_eq!(tree(&dst, true), want(&site), "the copy after the changes");
    // An audit agrees: lastmod and length of every file match the copy.
    let out = resync(work.path(), &["--audit", &server.base, &dst_s]).await;
    assert!(out.contains("IN SYNC"), "{out}");
    server.stop().await;
}

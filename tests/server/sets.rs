//! Sets a webmaster draws: folder sets and named sets from the configuration, through every
//! door: ListSets paged to its end, set filtering that returns exactly a set's members and its
//! descendants', the HTML view, ResourceSync with `resync`, Sickle, pyoai and `modoai records`;
//! a reload that changes the sets moves the datestamps of the records it concerns, and a bad
//! configuration is refused with its file, line and key.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use integration_tests::http::{get, MARGIN};
use integration_tests::process::{modoai, start_modoai};
use integration_tests::{json, run_python, venv_tool, Reply, Server, TestSite};
use modoai::sets::{FolderSets, NamedSet};

/// A site of nested folders, with names that are not setSpec characters.
fn nested_site() -> TestSite {
    let site = TestSite::empty();
    for (path, body) in [
        ("index.html", "<html>home</html>"),
        ("reports/2019/annual.pdf", "%PDF-1.4 2019"),
        ("reports/2019/summary.txt", "2019 in short"),
        ("reports/2020/annual.pdf", "%PDF-1.4 2020"),
        ("reports/drafts/2021.pdf", "%PDF-1.4 draft"),
        ("annual reports/caf\u{e9} 100%/menu.txt", "coffee"),
        ("conference/2019/talk.html", "<html>talk</html>"),
        ("conference/2019/slides/a.pdf", "%PDF-1.4 slides"),
        ("data/x.csv", "a,b"),
    ] {
        // Old mtimes: an incremental harvest from now sees only what changes later.
        site.write(path, body.as_bytes(), Some(1_600_000_000));
    }
    site
}

fn named() -> Vec<NamedSet> {
    vec![
        NamedSet::new("reports", "Annual reports")
            .unwrap()
            .description("Every annual report & its summary")
            .include("reports/**")
            .unwrap()
            .exclude("**/drafts/**")
            .unwrap(),
        NamedSet::new("conf", "Conferences")
            .unwrap()
            .include("conference/*.html")
            .unwrap(),
        NamedSet::new("conf:2019", "The 2019 conference")
            .unwrap()
            .include("conference/2019/**")
            .unwrap(),
        NamedSet::new("pdf", "PDF files")
            .unwrap()
            .include("**")
            .unwrap()
            .mime("application/pdf")
            .unwrap(),
    ]
}

/// Follows a list to its end; every page valid.
async fn pages(server: &Server, first: &str, verb: &str) -> Vec<Reply> {
    let mut pages = vec![server.oai(first).await];
    while let Some((token, _)) = pages.last().unwrap().token().filter(|(t, _)| !t.is_empty()) {
        let next = format!("verb={verb}&resumptionToken={token}");
        pages.push(server.oai(&next).await);
        assert!(pages.len() < 1000, "runaway list");
    }
    for p in &pages {
        p.assert_valid();
    }
    pages
}

/// Each header of a list: its identifier and setSpecs.
fn headers(reply: &Reply) -> Vec<(String, Vec<String>)> {
    reply
        .text()
        .split("<header")
        .skip(1)
        .map(|h| {
            let h = &h[..h.find("</header>").unwrap()];
            let inner = |tag: &str| -> Vec<String> {
                h.split(&format!("<{tag}>"))
                    .skip(1)
                    .map(|s| s[..s.find('<').unwrap()].to_owned())
                    .collect()
            };
            (inner("identifier")[0].clone(), inner("setSpec"))
        })
        .collect()
}

fn within(set: &str, spec: &str) -> bool {
    spec == set || spec.starts_with(&format!("{set}:"))
}

#[tokio::test]
async fn every_set_lists_exactly_its_members_and_its_descendants() {
    let site = nested_site();
    let server = Server::start(site.path(), |c| c.page_size(3).named_sets(named()).unwrap()).await;
    // ListSets pages to its end without a duplicate, and completeListSize counts them all.
    let lists = pages(&server, "verb=ListSets", "ListSets").await;
    let specs: Vec<String> = lists.iter().flat_map(|p| p.texts("setSpec")).collect();
    let unique: BTreeSet<&String> = specs.iter().collect();
    assert_eq!(unique.len(), specs.len(), "no duplicates: {specs:?}");
    let (_, attrs) = lists[0].token().unwrap();
    assert_eq!(attrs["completeListSize"], specs.len().to_string());
    assert_eq!(
        specs[0], "mime",
        "a plain root first, for the official validator"
    );
    for s in [
        "path",
        "path:reports",
        "path:reports:2019",
        "path:annual*20reports:caf*C3*A9*20100*25",
        "path:conference:2019:slides",
        "reports",
        "conf",
        "conf:2019",
        "pdf",
    ] {
        assert!(specs.contains(&s.to_owned()), "{s} in {specs:?}");
    }
    let names: Vec<String> = lists.iter().flat_map(|p| p.texts("setName")).collect();
    assert!(
        names.contains(&"/annual reports/caf\u{e9} 100%/".to_owned()),
        "{names:?}"
    );
    assert!(names.contains(&"Annual reports".to_owned()));
    let descriptions: Vec<String> = lists.iter().flat_map(|p| p.texts("description")).collect();
    assert_eq!(descriptions, ["Every annual report & its summary"]);

    // Every set: exactly the records whose header carries it or a descendant.
    let all = pages(
        &server,
        "verb=ListIdentifiers&metadataPrefix=oai_dc",
        "ListIdentifiers",
    )
    .await;
    let every: Vec<(String, Vec<String>)> = all.iter().flat_map(headers).collect();
    assert_eq!(every.len(), 9);
    for set in &specs {
        let want: BTreeSet<&String> = every
            .iter()
            .filter(|(_, sets)| sets.iter().any(|s| within(set, s)))
            .map(|(id, _)| id)
            .collect();
        let first = format!("verb=ListIdentifiers&metadataPrefix=oai_dc&set={set}");
        let got_pages = pages(&server, &first, "ListIdentifiers").await;
        let got: Vec<String> = got_pages
            .iter()
            .flat_map(|p| p.texts("identifier"))
            .collect();
        assert_eq!(got.iter().collect::<BTreeSet<_>>(), want, "set {set}");
        assert_eq!(got.len(), want.len(), "no duplicates in {set}");
        if let Some((_, attrs)) = got_pages[0].token() {
            assert_eq!(attrs["completeListSize"], want.len().to_string(), "{set}");
        }
    }
    let in_set = |set: &str| -> BTreeSet<String> {
        every
            .iter()
            .filter(|(_, sets)| sets.iter().any(|s| within(set, s)))
            .map(|(id, _)| id.trim_start_matches(&server.base).to_owned())
            .collect()
    };
    let paths = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        in_set("reports"),
        paths(&[
            "reports/2019/annual.pdf",
            "reports/2019/summary.txt",
            "reports/2020/annual.pdf"
        ])
    );
    assert_eq!(
        in_set("conf"),
        paths(&["conference/2019/slides/a.pdf", "conference/2019/talk.html"])
    );
    assert_eq!(
        in_set("path:reports").len(),
        4,
        "drafts too: a folder set is the folder"
    );
    assert_eq!(in_set("pdf").len(), 4);
    let r = server
        .oai("verb=ListIdentifiers&metadataPrefix=oai_dc&set=path:nowhere")
        .await;
    assert_eq!(r.error_codes(), ["noRecordsMatch"]);
    server.stop().await;
}

#[tokio::test]
async fn folder_sets_go_down_to_a_depth_or_are_off() {
    let site = nested_site();
    let depth = Server::start(site.path(), |c| {
        c.folder_sets(FolderSets::Depth(1.try_into().unwrap()))
    })
    .await;
    let sets = pages(&depth, "verb=ListSets", "ListSets").await[0].texts("setSpec");
    assert!(sets.contains(&"path:reports".to_owned()));
    assert!(
        !sets.iter().any(|s| s.starts_with("path:reports:")),
        "{sets:?}"
    );
    let r = depth
        .oai(&format!(
            "verb=GetRecord&metadataPrefix=oai_dc&identifier={}",
            depth.id("reports/2019/annual.pdf")
        ))
        .await;
    assert_eq!(r.texts("setSpec")[3..], ["path:reports"]);
    depth.stop().await;
    let off = Server::start(site.path(), |c| c.folder_sets(FolderSets::Off)).await;
    let sets = off.oai("verb=ListSets").await.texts("setSpec");
    assert!(!sets.iter().any(|s| s.starts_with("path")), "{sets:?}");
    let r = off
        .oai("verb=ListIdentifiers&metadataPrefix=oai_dc&set=path:reports")
        .await;
    assert_eq!(r.error_codes(), ["noRecordsMatch"]);
    off.stop().await;
}

/// The `[[sets]]` of the configuration files below.
const SETS: &str = "[[sets]]\nspec = \"reports\"\nname = \"Annual reports\"\n\
                    description = \"Every annual report\"\ninclude = [\"reports/2019/**\"]\n";

/// A GET's body on `port`.
fn body(port: u16, path: &str) -> String {
    let raw = String::from_utf8_lossy(&get(port, path)).into_owned();
    raw.split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default()
}

fn identifiers(xml: &str) -> Vec<String> {
    xml.split("<identifier>")
        .skip(1)
        .map(|s| s[..s.find('<').unwrap()].to_owned())
        .collect()
}

fn response_date(xml: &str) -> String {
    let s = &xml[xml.find("<responseDate>").unwrap() + 14..];
    s[..s.find('<').unwrap()].to_owned()
}

/// Waits until `check` holds for the body of `path`.
fn until(port: u16, path: &str, check: impl Fn(&str) -> bool) -> String {
    let started = Instant::now();
    loop {
        let b = body(port, path);
        if check(&b) {
            return b;
        }
        assert!(started.elapsed() < MARGIN, "never: {path}\n{b}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_reload_that_changes_a_set_moves_the_datestamps_of_the_files_it_concerns() {
    let site = nested_site();
    let work = tempfile::tempdir().unwrap();
    let (_server, port) = start_modoai(site.path(), work.path(), SETS, &[]);
    let list = "/modoai?verb=ListIdentifiers&metadataPrefix=oai_dc&set=reports";
    let first = until(port, list, |b| b.contains("<identifier>"));
    assert_eq!(identifiers(&first).len(), 2);
    let since = response_date(&first);
    std::thread::sleep(Duration::from_millis(1100));
    // A configuration that does not parse keeps the sets in force.
    let config = work.path().join("modoai.toml");
    std::fs::write(&config, SETS.replace("2019/**", "[2019")).unwrap();
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(identifiers(&body(port, list)).len(), 2, "the old sets stay");
    // The set grows: the files that joined it are in the next incremental harvest of it, with
    // the datestamp of the moment they joined; the one already in it is not.
    std::fs::write(
        &config,
        SETS.replace("reports/2019/**", "reports/20*/*.pdf"),
    )
    .unwrap();
    let incremental = format!("{list}&from={since}");
    let b = until(port, &incremental, |b| b.contains("2020/annual.pdf"));
    let ids = identifiers(&b);
    assert_eq!(ids.len(), 1, "only the file that joined: {b}");
    let all = identifiers(&body(port, list));
    assert_eq!(
        all.len(),
        2,
        "2019/annual.pdf stays, summary.txt left: {all:?}"
    );
    assert!(!all.iter().any(|i| i.ends_with("summary.txt")), "{all:?}");
    let untouched = body(
        port,
        "/modoai?verb=ListIdentifiers&metadataPrefix=oai_dc&set=path:data",
    );
    let full = format!("/modoai?verb=ListIdentifiers&metadataPrefix=oai_dc&from={since}");
    let changed = identifiers(&body(port, &full));
    assert!(
        !changed.iter().any(|i| i.ends_with("data/x.csv")),
        "a file whose sets stayed keeps its datestamp: {changed:?}\n{untouched}"
    );
    assert!(
        changed.iter().any(|i| i.ends_with("summary.txt")),
        "a file that left a set is a changed record, with its sets now: {changed:?}"
    );
}

#[test]
fn a_set_that_cannot_work_is_refused_with_its_file_line_and_key() {
    let site = nested_site();
    let work = tempfile::tempdir().unwrap();
    for (config, expected) in [
        (
            SETS.replace("reports/2019/**", "{unclosed"),
            ":5: include of [[sets]]: the pattern \"{unclosed\" does not parse",
        ),
        (
            SETS.replace("spec = \"reports\"", "spec = \"path:reports\""),
            ":2: spec of [[sets]]: \"path:reports\" lies in the sets modoai makes itself",
        ),
        (
            format!("{SETS}{SETS}"),
            ":7: spec of [[sets]]: \"reports\" is defined twice",
        ),
        (
            format!("[oai]\nfolder-sets = 0\n{SETS}"),
            "folder-sets must be true, false, or the deepest folder level",
        ),
    ] {
        let path = work.path().join("modoai.toml");
        std::fs::write(&path, &config).unwrap();
        let out = modoai()
            .args(["serve", "--listen", ":0", "--root"])
            .arg(site.path())
            .arg("--config")
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(expected), "{err}\nexpected {expected}");
        assert!(
            err.contains(path.to_str().unwrap()) || expected.starts_with("folder"),
            "{err}"
        );
    }
}

#[test]
fn records_says_which_sets_a_file_is_in_and_why() {
    let site = nested_site();
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("modoai.toml");
    std::fs::write(&config, SETS).unwrap();
    let out = modoai()
        .args(["records", "--json", "--root"])
        .arg(site.path())
        .arg("--config")
        .arg(&config)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let lines: BTreeMap<String, serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| (v["path"].as_str().unwrap().to_owned(), v))
        .collect();
    assert_eq!(
        lines["reports/2019/annual.pdf"]["site-sets"],
        serde_json::json!({"path:reports:2019": "folder", "reports": "include \"reports/2019/**\""})
    );
    assert_eq!(
        lines["index.html"]["site-sets"],
        serde_json::json!({"path": "folder"})
    );
    let text = modoai()
        .args(["records", "--root"])
        .arg(site.path())
        .arg("--config")
        .arg(&config)
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("[sets: path:reports:2019 (folder), reports (include \"reports/2019/**\")]"),
        "{text}"
    );
}

async fn harvest(script: &str, server: &Server, set: &str) -> Vec<String> {
    let (ok, out, err) = run_python(script, &[&server.oai, "oai_dc", "--set", set]).await;
    assert!(ok, "{script} {set}:\n{err}");
    let v = json(&out);
    let mut ids: Vec<String> = serde_json::from_value(v["identifiers"].clone()).unwrap();
    ids.sort();
    assert_eq!(v["duplicates"], 0);
    ids
}

#[tokio::test]
async fn sickle_and_pyoai_harvest_a_folder_set_and_a_named_set() {
    let site = nested_site();
    let server = Server::start(site.path(), |c| c.page_size(2).named_sets(named()).unwrap()).await;
    let ids = |paths: &[&str]| {
        let mut v: Vec<String> = paths.iter().map(|p| server.id(p)).collect();
        v.sort();
        v
    };
    let folder = ids(&[
        "reports/2019/annual.pdf",
        "reports/2019/summary.txt",
        "reports/2020/annual.pdf",
        "reports/drafts/2021.pdf",
    ]);
    let conf = ids(&["conference/2019/slides/a.pdf", "conference/2019/talk.html"]);
    for script in ["harvest_sickle.py", "harvest_pyoai.py"] {
        assert_eq!(
            harvest(script, &server, "path:reports").await,
            folder,
            "{script}"
        );
        assert_eq!(harvest(script, &server, "conf").await, conf, "{script}");
    }
    server.stop().await;
}

#[tokio::test]
async fn the_html_view_browses_by_set() {
    let site = nested_site();
    let server = Server::start(site.path(), |c| c.named_sets(named()).unwrap()).await;
    let mut req = http::Request::get(format!("{}?verb=ListSets", server.oai));
    req = req.header("accept", "text/html,application/xml;q=0.9");
    let page = server
        .send(
            req.body(http_body_util::Full::new(bytes::Bytes::new()))
                .unwrap(),
        )
        .await;
    let html = page.text();
    assert!(
        html.contains("set=path%3Areports"),
        "a link to browse the folder set"
    );
    assert!(
        html.contains("Every annual report &amp; its summary"),
        "{html}"
    );
    server.stop().await;
}

/// resync's copy of the named set `reports`, from its own Capability List.
#[tokio::test]
async fn resync_copies_one_named_set_from_its_capability_list() {
    let site = nested_site();
    let server = Server::start(site.path(), |c| c.named_sets(named()).unwrap()).await;
    let sd = server
        .get(&format!("{}.well-known/resourcesync", server.base))
        .await;
    let capability = format!("{}/resourcesync/capabilitylist.xml?set=reports", server.oai);
    assert!(
        sd.text().contains(&capability.replace('&', "&amp;")),
        "announced in the Source Description:\n{}",
        sd.text()
    );
    let work = tempfile::tempdir().unwrap();
    let dst = work.path().join("copy");
    let (base, dst_s) = (server.base.clone(), dst.to_str().unwrap().to_owned());
    let cap = capability.clone();
    let state = work.path().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        // resync keeps a state file in the folder it runs in: the test's own.
        std::process::Command::new(venv_tool("resync-sync"))
            .current_dir(state)
            .args(["--baseline", "--capabilitylist", &cap, &base, &dst_s])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Status:") && !err.contains("FatalError"),
        "{err}"
    );
    let copied: BTreeSet<String> = walkdir::WalkDir::new(&dst)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(&dst)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|p| !p.split('/').any(|s| s.starts_with('.')))
        .collect();
    let want: BTreeSet<String> = [
        "reports/2019/annual.pdf",
        "reports/2019/summary.txt",
        "reports/2020/annual.pdf",
    ]
    .map(String::from)
    .into();
    assert_eq!(copied, want);
    for p in &want {
        let same =
            std::fs::read(dst.join(p)).unwrap() == std::fs::read(site.path().join(p)).unwrap();
        assert!(same, "{p}: the file's bytes");
    }
    let unknown = server
        .get(&format!(
            "{}/resourcesync/capabilitylist.xml?set=nothing",
            server.oai
        ))
        .await;
    assert_eq!(unknown.status, 404);
    server.stop().await;
}

#[tokio::test]
async fn the_validator_rates_a_site_with_folder_and_named_sets_compliant() {
    let site = nested_site();
    let server = Server::start(site.path(), |c| c.page_size(3).named_sets(named()).unwrap()).await;
    let schemas = integration_tests::repo_root().join("schemas");
    let (ok, out, err) = run_python(
        "oai_validator.py",
        &[&server.oai, "--schemas", schemas.to_str().unwrap()],
    )
    .await;
    let failed: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(ok && failed.is_empty(), "{}\n{err}", failed.join("\n"));
    assert!(out.trim_end().ends_with("is COMPLIANT"), "{out}");
    assert!(
        !out.contains("omits ancestor sets"),
        "every ancestor is listed"
    );
    server.stop().await;
}

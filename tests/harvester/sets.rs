//! The harvester and a modoai site's own sets: a folder set and a named set harvested into
//! archives that hold exactly their files, each once with all its bytes, and `inspect endpoint
//! --sets` showing names and descriptions.

use std::path::PathBuf;

use integration_tests::{Server, TestSite};
use modoai::sets::NamedSet;

use super::{assert_each_file_once, blocking, expect, harvester};

fn site() -> TestSite {
    let site = TestSite::empty();
    for (path, body) in [
        ("index.html", "<html>home</html>"),
        ("reports/2019/annual.pdf", "%PDF-1.4 2019"),
        ("reports/2019/summary.txt", "2019 in short"),
        ("reports/drafts/2021.pdf", "%PDF-1.4 draft"),
        ("annual reports/caf\u{e9}/menu.txt", "coffee"),
        ("conference/2019/talk.html", "<html>talk</html>"),
    ] {
        site.write(path, body.as_bytes(), None);
    }
    site
}

#[tokio::test]
async fn a_folder_set_and_a_named_set_are_harvested_with_exactly_their_files() {
    let site = site();
    let pdfs = NamedSet::new("pdfs", "PDF files")
        .unwrap()
        .description("Every PDF, drafts included")
        .include("**")
        .unwrap()
        .mime("application/pdf")
        .unwrap();
    let server = Server::start(site.path(), |c| {
        c.page_size(1).named_sets(vec![pdfs]).unwrap()
    })
    .await;
    let work = tempfile::tempdir().unwrap();
    let files = |paths: &[&str]| -> Vec<(String, PathBuf)> {
        paths
            .iter()
            .map(|p| {
                (
                    server.id(&p.replace(' ', "%20").replace('\u{e9}', "%C3%A9")),
                    site.path().join(p),
                )
            })
            .collect()
    };
    for (set, paths) in [
        (
            "path:reports",
            &[
                "reports/2019/annual.pdf",
                "reports/2019/summary.txt",
                "reports/drafts/2021.pdf",
            ][..],
        ),
        (
            "path:annual*20reports",
            &["annual reports/caf\u{e9}/menu.txt"][..],
        ),
        (
            "pdfs",
            &["reports/2019/annual.pdf", "reports/drafts/2021.pdf"][..],
        ),
    ] {
        let archive = work.path().join(set.replace([':', '*'], "_"));
        let args: Vec<String> = [
            "harvest",
            &server.oai,
            "--archive",
            archive.to_str().unwrap(),
            "--metadata-prefix",
            "oai_didl",
            "--set",
            set,
            "--quiet",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let out = blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            harvester(&args)
        })
        .await;
        expect(&out, 0);
        assert_each_file_once(&archive, &files(paths));
    }
    // A harvest list's entries take a set too, each into its own archive.
    let list = work.path().join("list.toml");
    std::fs::write(
        &list,
        format!(
            "[defaults]\nmetadata-prefix = \"oai_didl\"\n\n\
             [[endpoint]]\nurl = \"{0}\"\narchive = \"list-folder\"\nset = \"path:reports:2019\"\n\n\
             [[endpoint]]\nurl = \"{0}\"\narchive = \"list-named\"\nset = \"pdfs\"\n",
            server.oai
        ),
    )
    .unwrap();
    let list_s = list.to_str().unwrap().to_owned();
    let out = blocking(move || harvester(&["harvest-list", &list_s, "--quiet"])).await;
    expect(&out, 0);
    assert_each_file_once(
        &work.path().join("list-folder"),
        &files(&["reports/2019/annual.pdf", "reports/2019/summary.txt"]),
    );
    assert_each_file_once(
        &work.path().join("list-named"),
        &files(&["reports/2019/annual.pdf", "reports/drafts/2021.pdf"]),
    );
    let url = server.oai.clone();
    let out = blocking(move || harvester(&["inspect", "endpoint", &url, "--sets", "--json"])).await;
    let (json, _) = expect(&out, 0);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let sets = report["sets"].as_array().unwrap();
    let pdfs = sets.iter().find(|s| s["spec"] == "pdfs").unwrap();
    assert_eq!(pdfs["name"], "PDF files");
    assert_eq!(pdfs["description"], "Every PDF, drafts included");
    let folder = sets
        .iter()
        .find(|s| s["spec"] == "path:annual*20reports:caf*C3*A9")
        .unwrap();
    assert_eq!(folder["name"], "/annual reports/caf\u{e9}/");
    let url = server.oai.clone();
    let out = blocking(move || harvester(&["inspect", "endpoint", &url, "--sets"])).await;
    let (text, _) = expect(&out, 0);
    assert!(text.contains("Every PDF, drafts included"), "{text}");
    server.stop().await;
}

//! `metadata` records of a foreign WARC (warcio-written) tied to their captures: a CRATE after
//! its capture (`WARC-Refers-To`) and one before it (`WARC-Concurrent-To`) give the capture its
//! findings, from the CRATE; a crawler's outlinks record is kept and counted, nothing more.

use integration_tests::process::modoai_explorer;

use super::foreign::{serve, write_cases};
use super::{enc, work_dir};

#[test]
fn crate_metadata_records_before_or_after_their_capture_give_it_their_findings() {
    let work = work_dir("foreign-metadata");
    let crawl = work.join("crawl");
    write_cases(&crawl, "metadata");
    let indexes = work.join("indexes");
    let out = modoai_explorer()
        .args(["index", "--settle", "0", "--index-dir"])
        .arg(&indexes)
        .arg("--archive")
        .arg(&crawl)
        .env("XDG_STATE_HOME", work.join("state"))
        .env("RUST_LOG", "error")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(
            "crawl: metadata records: 2 CRATEs tied to their captures, 0 CRATEs whose capture \
             was not found, 1 other metadata kept"
        ),
        "{said}"
    );
    assert!(
        said.contains(", 3 captures added"),
        "metadata records are no captures: {said}"
    );
    let e = serve(&[crawl.to_str().unwrap()], &indexes, &work, "");
    let capture = |url: &str| {
        let list = e
            .get_ready(&format!("/api/v1/captures?url={}", enc(url)), None)
            .json();
        let id = list["data"][0]["id"].as_str().unwrap().to_owned();
        e.get_ready(&format!("/api/v1/capture/{id}"), None).json()
    };
    for (url, jhove) in [
        ("http://example.org/crate-after", "valid"),
        ("http://example.org/crate-before", "not-well-formed"),
    ] {
        let c = capture(url);
        assert_eq!(c["capture"]["jhove"], jhove, "{c}");
        let source = c["capture"]["source"].as_str().unwrap();
        assert!(source.starts_with("CRATE, harvested "), "{c}");
        let labels: Vec<&str> = c["tools"]["plugins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["label"].as_str().unwrap())
            .collect();
        assert_eq!(labels, ["jhove", "md5"], "the CRATE's tools: {c}");
    }
    let crawled = capture("http://example.org/crawled");
    assert!(crawled["capture"]["jhove"].is_null(), "{crawled}");
    assert!(
        crawled["tools"].is_null(),
        "outlinks are no findings: {crawled}"
    );
    let facets = e.get_ready("/api/v1/search?facets=jhove", None).json();
    assert_eq!(
        facets["facets"]["jhove"].as_array().unwrap().len(),
        2,
        "{facets}"
    );
}

//! `index --tools plugins.toml`: the provider's tool table run on the payloads of captures
//! without a CRATE (a wget crawl of the example site), once per payload across runs and
//! collections, with their findings (the JHOVE facet, the tool outputs and where they came
//! from) in the API; a tool that is not installed gives findings that say so, never a failed
//! index.

use std::path::Path;
use std::process::Output;

use integration_tests::crawl::{wget_crawl, CrawlSite};
use integration_tests::process::modoai_explorer;

use super::foreign::{serve, serve_with, write_cases};
use super::{enc, work_dir, Explorer};

/// JHOVE for PDF, JPEG and GIF (as `plugins.toml` configures it), md5 for everything.
const JHOVE_AND_MD5: &str = r#"
[[plugin]]
label = "jhove"
mime = "application/pdf"
command = ["jhove", "-h", "xml", "-m", "PDF-hul", "{paths}"]
version-command = ["jhove", "-v"]
runner = "jhove-batch"
output = "xml"
timeout-secs = 120

[[plugin]]
label = "jhove"
mime = "image/jpeg"
command = ["jhove", "-h", "xml", "-m", "JPEG-hul", "{paths}"]
version-command = ["jhove", "-v"]
runner = "jhove-batch"
output = "xml"
timeout-secs = 60

[[plugin]]
label = "jhove"
mime = "image/gif"
command = ["jhove", "-h", "xml", "-m", "GIF-hul", "{paths}"]
version-command = ["jhove", "-v"]
runner = "jhove-batch"
output = "xml"

[[plugin]]
label = "md5"
mime = "*/*"
builtin = "md5"
"#;

/// A table naming a program that is not installed, beside md5.
const MISSING: &str = r#"
[[plugin]]
label = "nosuchtool"
mime = "*/*"
command = ["modoai-no-such-tool", "{path}"]
version-command = ["modoai-no-such-tool", "--version"]

[[plugin]]
label = "md5"
mime = "*/*"
builtin = "md5"
"#;

/// `index --settle 0 --index-dir INDEXES --tools TABLE --archive COLLECTION` with `state` as
/// the state folder; it must succeed.
fn index(indexes: &Path, state: &Path, table: &Path, collection: &str) -> Output {
    let out = modoai_explorer()
        .args(["index", "--settle", "0", "--index-dir"])
        .arg(indexes)
        .arg("--tools")
        .arg(table)
        .args(["--archive", collection])
        .env("XDG_STATE_HOME", state)
        .env("RUST_LOG", "error")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "index: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The capture API's answer for the `response` capture of `url`.
fn capture(e: &Explorer, url: &str) -> serde_json::Value {
    let list = e
        .get_ready(&format!("/api/v1/captures?url={}", enc(url)), None)
        .json();
    let id = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "response")
        .unwrap_or_else(|| panic!("no capture of {url}: {list}"))["id"]
        .as_str()
        .unwrap()
        .to_owned();
    e.get_ready(&format!("/api/v1/capture/{id}"), None).json()
}

/// The plugin labelled `label` among a capture's tool results.
fn plugin<'a>(c: &'a serde_json::Value, label: &str) -> &'a serde_json::Value {
    c["tools"]["plugins"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["label"] == label))
        .unwrap_or_else(|| panic!("no {label} in {c}"))
}

#[test]
fn tools_run_on_foreign_payloads_once_across_runs_and_collections() {
    let site_files = integration_tests::TestSite::example();
    let work = work_dir("tools-wget");
    let site = CrawlSite::serve(site_files.path(), &work);
    let first = work.join("first");
    std::fs::create_dir_all(&first).unwrap();
    let warc = wget_crawl(&site, &first);
    let second = work.join("second");
    std::fs::create_dir_all(&second).unwrap();
    std::fs::copy(&warc, second.join("copy.warc.gz")).unwrap();
    let table = work.join("plugins.toml");
    std::fs::write(&table, JHOVE_AND_MD5).unwrap();
    let (state, indexes) = (work.join("state"), work.join("indexes"));
    let (first, second) = (first.to_str().unwrap(), second.to_str().unwrap());

    let (cached, run, started) =
        super::summary_counts("tools", &index(&indexes, &state, &table, first));
    assert_eq!(cached, 0, "a new cache");
    assert!(run >= 10 && started >= 1, "{run} runs, {started} processes");
    // The same payloads in another collection, and the first again from scratch: every result
    // from the cache, no tool process.
    assert_eq!(
        super::summary_counts("tools", &index(&indexes, &state, &table, second)),
        (run, 0, 0)
    );
    std::fs::remove_dir_all(indexes.join("first")).unwrap();
    assert_eq!(
        super::summary_counts("tools", &index(&indexes, &state, &table, first)),
        (run, 0, 0)
    );

    let e = serve(&[first], &indexes, &work, "");
    let all = e.get_ready("/api/v1/search?facets=jhove", None).json();
    let jhove: u64 = all["facets"]["jhove"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["count"].as_u64().unwrap())
        .sum();
    assert!(
        jhove >= 2,
        "the PDF and the JPEG have a JHOVE status: {all}"
    );
    let pdf = capture(&e, &site.url("/docs/report.pdf"));
    assert!(pdf["capture"]["jhove"].is_string(), "{pdf}");
    assert!(pdf["crate"].is_null(), "no CRATE: {pdf}");
    let source = pdf["tools"]["source"].as_str().unwrap();
    assert!(
        source.starts_with("explorer, indexed ") && source.contains("Jhove (Rel."),
        "{source}"
    );
    let jhove = plugin(&pdf, "jhove");
    assert_eq!(jhove["status"], "ok", "{pdf}");
    assert!(
        jhove["fields"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["name"] == "status"),
        "JHOVE's verdict among its fields: {pdf}"
    );
    assert_eq!(plugin(&pdf, "md5")["text"].as_str().unwrap().len(), 32);
    let page = e.get_ready(
        &format!("/capture/{}", pdf["capture"]["id"].as_str().unwrap()),
        None,
    );
    assert!(page.body.contains("data-tool=\"jhove\""), "{}", page.body);
}

#[test]
fn a_tool_that_is_not_installed_gives_findings_that_say_so() {
    let work = work_dir("tools-missing");
    let crawl = work.join("crawl");
    write_cases(&crawl, "first");
    let table = work.join("plugins.toml");
    std::fs::write(&table, MISSING).unwrap();
    let indexes = work.join("indexes");
    let out = index(
        &indexes,
        &work.join("state"),
        &table,
        crawl.to_str().unwrap(),
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(said.matches("warning:").count(), 1, "{said}");
    assert!(
        said.contains("warning: --tools") && said.contains("missing (nosuchtool)"),
        "{said}"
    );
    assert!(said.contains("captures added"), "{said}");
    let e = serve(&[crawl.to_str().unwrap()], &indexes, &work, "");
    let all = e.get_ready("/api/v1/search?size=100", None).json();
    let mut with_tools = 0;
    for item in all["data"].as_array().unwrap() {
        let id = item["id"].as_str().unwrap();
        let c = e.get_ready(&format!("/api/v1/capture/{id}"), None).json();
        if c["tools"].is_null() {
            // A revisit whose original is not in the collection has no payload to run on.
            continue;
        }
        assert_eq!(plugin(&c, "nosuchtool")["status"], "missing", "{c}");
        assert_eq!(plugin(&c, "md5")["status"], "ok", "{c}");
        with_tools += 1;
    }
    assert!(
        with_tools >= 5,
        "{with_tools} captures with tool results: {all}"
    );
}

#[test]
fn serve_with_tools_runs_them_on_the_captures_it_indexes() {
    use md5::{Digest as _, Md5};
    let work = work_dir("tools-serve");
    let crawl = work.join("crawl");
    write_cases(&crawl, "replay");
    let table = work.join("plugins.toml");
    let md5_only = &MISSING[MISSING.find("[[plugin]]\nlabel = \"md5\"").unwrap()..];
    std::fs::write(&table, md5_only).unwrap();
    let e = serve_with(
        &[crawl.to_str().unwrap()],
        &work.join("indexes"),
        &work,
        "",
        &["--tools", table.to_str().unwrap()],
    );
    let all = e.get_ready("/api/v1/search?size=100", None).json();
    let mut checked = 0;
    for item in all["data"].as_array().unwrap() {
        if item["kind"] == "revisit" {
            continue;
        }
        let id = item["id"].as_str().unwrap();
        let c = e.get_ready(&format!("/api/v1/capture/{id}"), None).json();
        let md5 = plugin(&c, "md5");
        assert_eq!(md5["status"], "ok", "{c}");
        // The tool ran on the payload a memento serves: its body, codings taken off.
        let (t, url) = (
            item["timestamp"].as_str().unwrap(),
            item["url"].as_str().unwrap(),
        );
        let memento = e.get_ready(&format!("/memento/{t}/{url}"), None);
        assert_eq!(
            md5["text"].as_str().unwrap(),
            format!("{:x}", Md5::digest(&memento.bytes)),
            "{url}: {c}"
        );
        checked += 1;
    }
    assert!(checked >= 4, "{checked} captures checked: {all}");
}

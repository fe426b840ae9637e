//! Captures without a CRATE (an `oai_didl` harvest: the files, no CRATE) get their format from
//! Siegfried at index time, once per payload across runs and archives; without Siegfried the
//! index is built all the same.

use std::path::Path;
use std::process::Output;

use integration_tests::process::{modoai_explorer, program, start_modoai};
use integration_tests::repo_root;

use super::{copy_dir, enc, harvest_didl, harvest_into, work_dir, Explorer};

/// `index --archive ARCHIVE` with `state` as the state folder (the identification cache's) and
/// `path` as `PATH` when given.
fn index(archive: &Path, state: &Path, path: Option<&str>) -> Output {
    let mut command = modoai_explorer();
    command
        .args(["index", "--archive"])
        .arg(archive)
        .env("XDG_STATE_HOME", state)
        .env("RUST_LOG", "error");
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let out = command.output().expect("run modoai-explorer index");
    assert!(
        out.status.success(),
        "index: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn captures_without_a_crate_are_identified_once_per_payload() {
    let work = work_dir("identify");
    let site = work.join("site");
    copy_dir(&repo_root().join("examples/site"), &site);
    let (server, port) = start_modoai(&site, &work, "", &[]);
    let oai = format!("http://127.0.0.1:{port}/modoai");
    for name in ["first", "second"] {
        let out = harvest_into(
            &program("modoai-harvester"),
            &oai,
            &work.join(name),
            &["--metadata-prefix", "oai_didl"],
        );
        assert!(
            out.status.success(),
            "harvest: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    drop(server);
    let state = work.join("state");

    let first = index(&work.join("first"), &state, None);
    let (cached, run, started) = super::summary_counts("identification", &first);
    assert_eq!(cached, 0, "a new cache");
    assert!(run >= 10 && started >= 1, "{run} runs, {started} processes");
    // The same payloads in another archive, and the first again from scratch: all from the
    // cache, no Siegfried process.
    let second = index(&work.join("second"), &state, None);
    assert_eq!(
        super::summary_counts("identification", &second),
        (run, 0, 0)
    );
    std::fs::remove_dir_all(work.join("first/explorer-index")).unwrap();
    let again = index(&work.join("first"), &state, None);
    assert_eq!(super::summary_counts("identification", &again), (run, 0, 0));

    let e = Explorer::start(
        &[&work.join("first")],
        &work_dir("identify-serve"),
        "[access]\nanonymous-api = true\n",
    );
    let all = e.get_ready("/api/v1/search?facets=puid", None).json();
    let puids = all["facets"]["puid"].as_array().unwrap();
    let count = |puid: &str| {
        puids
            .iter()
            .find(|p| p["value"] == puid)
            .map_or(0, |p| p["count"].as_u64().unwrap())
    };
    assert_eq!(count("fmt/43"), 1, "the JPEG: {puids:?}");
    assert!(
        count("fmt/11") + count("fmt/12") + count("fmt/13") >= 2,
        "the PNGs: {puids:?}"
    );
    let url = format!("http://127.0.0.1:{port}/images/sunset.jpg");
    let list = e
        .get_ready(&format!("/api/v1/captures?url={}", enc(&url)), None)
        .json();
    let id = list["data"][0]["id"].as_str().unwrap().to_owned();
    let c = e.get_ready(&format!("/api/v1/capture/{id}"), None).json();
    assert_eq!(c["capture"]["puid"], "fmt/43", "{c}");
    // Where the format came from, in the API and on the capture page.
    let source = c["capture"]["source"].as_str().unwrap_or_default();
    assert!(
        source.starts_with("explorer, indexed ") && source.contains(", siegfried 1."),
        "{c}"
    );
    let page = e.get_ready(&format!("/capture/{id}"), None).body;
    assert!(
        page.contains("findings from") && page.contains("explorer, indexed "),
        "{page}"
    );
}

#[test]
fn findings_of_a_crate_say_they_came_from_the_crate() {
    let e = super::shared_explorer("identify-crate", true);
    let url = format!("{}images/sunset.jpg", super::harvested().base);
    let list = e
        .get_ready(&format!("/api/v1/captures?url={}", enc(&url)), None)
        .json();
    let id = list["data"][0]["id"].as_str().unwrap().to_owned();
    let c = e.get_ready(&format!("/api/v1/capture/{id}"), None).json();
    let source = c["capture"]["source"].as_str().unwrap_or_default();
    assert!(source.starts_with("CRATE, harvested 20"), "{c}");
    assert!(
        !source.contains("explorer"),
        "Siegfried's CRATE answer is kept: {c}"
    );
}

#[test]
fn without_siegfried_the_index_is_built_with_one_warning() {
    let work = work_dir("identify-missing");
    let site = work.join("site");
    copy_dir(&repo_root().join("examples/site"), &site);
    let archive = work.join("archive");
    harvest_didl(&site, &work, &archive);
    // modoai-siegfried is in /usr/local/bin (scripts/setup); the isolation programs and
    // mutool are not.
    let out = index(&archive, &work.join("state"), Some("/usr/bin:/bin"));
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(said.matches("warning:").count(), 1, "{said}");
    assert!(said.contains("modoai-siegfried is not installed"), "{said}");
    assert!(said.contains("captures added"), "{said}");
    assert!(!said.contains("identification:"), "{said}");
}

//! Foreign collections: WARC and ARC files that other tools wrote (warcio, pywb's sample
//! archive, a WACZ made by `wacz create`) indexed and searched, their indexes kept outside them,
//! incrementally, safely when killed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use integration_tests::crawl::{wacz_create, warcprox_crawl, wget_crawl, CrawlSite, EXAMPLE_PATHS};
use integration_tests::http::MARGIN;
use integration_tests::process::{in_private_mount_namespace, modoai_explorer, signal, Running};
use integration_tests::python::venv_python;
use integration_tests::repo_root;
use rustix::process::Signal;

use super::crash::index_committed;
use super::{enc, work_dir, Explorer};

/// What pywb's id_ replay (`tests/python/pywb_id.py`) answers for the captures `wanted`
/// (`TIMESTAMP=URL`) of the WARC/ARC files in `dir`.
pub(super) fn pywb_id(dir: &Path, wanted: &[String]) -> Vec<serde_json::Value> {
    let out = Command::new(venv_python())
        .arg(repo_root().join("tests/python/pywb_id.py"))
        .arg(dir)
        .args(wanted)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The captures of the `replay` case and the ARC file (`TIMESTAMP=URL`) compared with pywb:
/// a page, a chunked and a gzip-coded page, a 404, a resource, a revisit, an ARC record.
fn replay_captures() -> Vec<String> {
    [
        ("20200101000000", "http://example.org/page"),
        ("20200102000000", "http://example.org/chunked"),
        ("20200103000000", "http://example.org/coded"),
        ("20200104000000", "http://example.org/missing"),
        ("20200105000000", "http://example.org/notes.txt"),
        ("20210101000000", "http://example.org/page"),
        ("20100102030405", "http://example.org/arc.html"),
    ]
    .iter()
    .map(|(t, u)| format!("{t}={u}"))
    .collect()
}

/// Checks each memento of `explorer` against what pywb answered for it.
pub(super) fn same_as_pywb(explorer: &Explorer, pywb: &[serde_json::Value]) {
    for theirs in pywb {
        let (t, url) = (
            theirs["timestamp"].as_str().unwrap(),
            theirs["url"].as_str().unwrap(),
        );
        let ours = explorer.get_ready(&format!("/memento/{t}/{url}"), None);
        let body = base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            theirs["body"].as_str().unwrap(),
        )
        .unwrap();
        assert_eq!(
            ours.status,
            theirs["status"].as_u64().unwrap() as u16,
            "{url} at {t}"
        );
        assert_eq!(
            ours.bytes, body,
            "{url} at {t}: the bytes of pywb's id_ replay"
        );
        assert_eq!(
            ours.header("content-type"),
            theirs["content_type"].as_str(),
            "{url} at {t}"
        );
        assert_eq!(
            ours.header("memento-datetime"),
            theirs["memento_datetime"].as_str(),
            "{url} at {t}"
        );
        assert_eq!(ours.header("x-content-type-options"), Some("nosniff"));
    }
}

/// Writes `part` of `tests/python/foreign_cases.py` into `dir`.
pub(super) fn write_cases(dir: &Path, part: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let status = Command::new(venv_python())
        .arg(repo_root().join("tests/python/foreign_cases.py"))
        .arg(dir)
        .arg(part)
        .status()
        .unwrap();
    assert!(status.success(), "foreign_cases.py {part}");
}

/// `modoai-explorer index --settle 0 --index-dir INDEXES ARGS…`, output captured.
fn index(indexes: &Path, args: &[&str]) -> Output {
    modoai_explorer()
        .args(["index", "--settle", "0", "--index-dir"])
        .arg(indexes)
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

/// Each file under `dir` with its size and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, std::time::SystemTime)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .map(|e| {
            let meta = e.metadata().unwrap();
            (e.path().to_owned(), (meta.len(), meta.modified().unwrap()))
        })
        .collect()
}

/// The summary line `index` printed for `name`.
fn summary(out: &Output, name: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "index failed: {stderr}");
    stderr
        .lines()
        .find(|l| l.starts_with(&format!("{name}: ")) && l.contains(" records, "))
        .unwrap_or_else(|| panic!("no summary of {name}: {stderr}"))
        .to_owned()
}

/// `serve` of the collections `archives` (`PATH` or `NAME=PATH`) with their indexes in
/// `indexes`, every file read at once (`--settle 0`) and the API open to all; `more` is added to
/// the configuration.
pub(super) fn serve(archives: &[&str], indexes: &Path, work: &Path, more: &str) -> Explorer {
    serve_with(archives, indexes, work, more, &[])
}

/// [`serve`] with `flags` added to the command line.
pub(super) fn serve_with(
    archives: &[&str],
    indexes: &Path,
    work: &Path,
    more: &str,
    flags: &[&str],
) -> Explorer {
    let mut args = Vec::new();
    for a in archives {
        args.extend(["--archive", a]);
    }
    args.extend(["--index-dir", indexes.to_str().unwrap(), "--settle", "0"]);
    args.extend(flags);
    Explorer::start_with(
        &args,
        work,
        &format!("[access]\nanonymous-api = true\n{more}"),
    )
}

#[test]
fn a_read_only_folder_of_warc_and_arc_files_is_indexed_outside_it_and_incrementally() {
    let work = work_dir("foreign-folder");
    let crawl = work.join("crawl");
    write_cases(&crawl, "first");
    let indexes = work.join("indexes");
    let before = snapshot(&crawl);
    // The folder is mounted read-only for the explorer: any write into it would fail the run.
    let out = in_private_mount_namespace(
        "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && \
         exec \"$2\" index --settle 0 --archive \"harbour=$1\" --index-dir \"$3\"",
    )
    .arg(&crawl)
    .arg(integration_tests::process::program("modoai-explorer"))
    .arg(&indexes)
    .output()
    .unwrap();
    assert_eq!(
        summary(&out, "harbour"),
        "harbour: 4 files, 13 records, 9 captures added (9 in the index), 0 revisits, \
         0 unresolved revisits, 0 skipped, 1 digest mismatches"
    );
    assert_eq!(snapshot(&crawl), before, "nothing written inside the input");
    assert!(indexes.join("harbour/meta.json").is_file());

    write_cases(&crawl, "second");
    let arg = format!("harbour={}", crawl.display());
    assert_eq!(
        summary(&index(&indexes, &["--archive", &arg]), "harbour"),
        "harbour: 1 files, 4 records, 4 captures added (13 in the index), 4 revisits, \
         1 unresolved revisits, 0 skipped, 0 digest mismatches",
        "only the new file is read"
    );
    assert_eq!(
        summary(&index(&indexes, &["--archive", &arg]), "harbour"),
        "harbour: 0 files, 0 records, 0 captures added (13 in the index), 0 revisits, \
         0 unresolved revisits, 0 skipped, 0 digest mismatches",
        "nothing new, nothing read"
    );

    let explorer = serve(&[&arg], &indexes, &work, "");
    let hits = |q: &str| {
        let page = explorer
            .get_ready(&format!("/api/v1/search?q={}&size=20", enc(q)), None)
            .json();
        let mut urls = super::each(&page, "data", "url");
        urls.sort();
        urls
    };
    assert_eq!(
        hits("zephyrgzip"),
        ["http://example.org/coded"],
        "gzip-coded body decoded"
    );
    assert_eq!(
        hits("chunkedword"),
        ["http://example.org/chunked"],
        "chunks joined"
    );
    assert_eq!(
        hits("arcword"),
        ["http://example.org/arc.html"],
        "ARC record"
    );
    assert_eq!(hits("wholestream"), ["http://example.org/whole"]);
    assert_eq!(
        hits("samphire"),
        ["http://example.org/notes.txt"],
        "a resource"
    );
    assert_eq!(
        hits("quillwort"),
        [
            "http://example.org/mirror/page",
            "http://example.org/page",
            "http://example.org/page",
            "http://example.org/page"
        ],
        "the page and its revisits (identical payload, URL-agnostic, not modified) have its text"
    );
    assert!(
        hits("outlink").is_empty(),
        "metadata records are no captures"
    );
}

#[test]
fn a_wacz_made_by_wacz_create_is_read_in_place() {
    let work = work_dir("foreign-wacz");
    write_cases(&work.join("cases"), "first");
    let wacz = wacz_create(&work.join("cases/crawl-a.warc.gz"), &work.join("site.wacz"));
    let beside = snapshot(&work.join("cases"));
    let before = std::fs::read(&wacz).unwrap();
    let out = index(
        &work.join("indexes"),
        &["--archive", wacz.to_str().unwrap()],
    );
    assert_eq!(
        summary(&out, "site"),
        "site: 1 files, 9 records, 6 captures added (6 in the index), 0 revisits, \
         0 unresolved revisits, 0 skipped, 0 digest mismatches"
    );
    assert_eq!(
        std::fs::read(&wacz).unwrap(),
        before,
        "the WACZ is not changed"
    );
    assert_eq!(snapshot(&work.join("cases")), beside);
    let names: Vec<_> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 3, "nothing unpacked beside it: {names:?}");
}

#[test]
fn pywbs_sample_archive_is_indexed_with_its_bad_file_reported_not_fatal() {
    let python = venv_python();
    let out = Command::new(python)
        .args(["-c", "import sys; print(sys.prefix)"])
        .output()
        .unwrap();
    let prefix = String::from_utf8(out.stdout).unwrap();
    let warcs = Path::new(prefix.trim()).join("sample_archive/warcs");
    let work = work_dir("foreign-sample");
    let out = index(
        &work.join("indexes"),
        &["--archive", warcs.to_str().unwrap()],
    );
    let line = summary(&out, "warcs");
    assert!(
        line.starts_with("warcs: 16 files, 416 records, 210 captures added"),
        "{line}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.arc at 0: bytes that start no record"),
        "the bad file is reported: {stderr}"
    );
    assert!(
        stderr.contains("warcs: not read: ")
            && stderr.contains("example-bad.warc.gz.bad (not *.warc"),
        "the .bad file is named: {stderr}"
    );
}

#[test]
fn a_killed_foreign_indexing_is_completed_by_the_next_run_with_every_capture_once() {
    let work = work_dir("foreign-crash");
    let crawl = work.join("crawl");
    write_cases(&crawl, "many");
    let indexes = work.join("indexes");
    let child = modoai_explorer()
        .args([
            "index",
            "--quiet",
            "--settle",
            "0",
            "--commit-every",
            "1",
            "--archive",
        ])
        .arg(&crawl)
        .arg("--index-dir")
        .arg(&indexes)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut child = Running(child);
    let started = Instant::now();
    while index_committed(&indexes.join("crawl")) < 20 {
        assert!(started.elapsed() < MARGIN, "no commit seen");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        child.0.try_wait().unwrap().is_none(),
        "still indexing when killed"
    );
    signal(child.0.id(), Signal::KILL);
    assert_eq!(child.0.wait().unwrap().code(), None, "killed by the signal");
    let before = index_committed(&indexes.join("crawl"));
    assert!(before < 400, "killed before the end ({before})");
    let line = summary(
        &index(&indexes, &["--archive", crawl.to_str().unwrap()]),
        "crawl",
    );
    assert!(
        line.contains(&format!(
            "{} captures added (400 in the index)",
            400 - before
        )),
        "{line}"
    );
    let dir = crawl.to_str().unwrap();
    let explorer = serve(&[dir], &indexes, &work, "");
    let page = explorer
        .get_ready("/api/v1/search?q=harbour&size=1", None)
        .json();
    assert_eq!(page["total"], 400, "every capture once");
}

#[test]
fn mementos_are_byte_identical_to_pywbs_identity_replay_on_one_timeline_across_collections() {
    let work = work_dir("foreign-replay");
    let replay = work.join("replay");
    write_cases(&replay, "replay");
    let crawl = work.join("crawl");
    write_cases(&crawl, "first");
    std::fs::copy(crawl.join("old.arc"), replay.join("old.arc")).unwrap();
    let args = replay_captures();
    let pywb = pywb_id(&replay, &args);

    let indexes = work.join("indexes");
    let (r, c) = (
        format!("replay={}", replay.display()),
        format!("harbour={}", crawl.display()),
    );
    let explorer = serve(&[&r, &c], &indexes, &work, "");
    // Searches answer 503 until every collection is indexed.
    explorer.get_ready("/api/v1/search?q=", None);
    same_as_pywb(&explorer, &pywb);
    for wanted in &args {
        let (t, url) = wanted.split_once('=').unwrap();
        let ours = explorer.get(&format!("/memento/{t}/{url}"), None);
        let policy = ours.header("content-security-policy");
        assert!(policy.is_some_and(|p| p.starts_with("sandbox")), "{url}");
    }
    let coded = explorer.get_ready("/memento/20200103000000/http://example.org/coded", None);
    assert_eq!(
        coded.header("x-archive-orig-content-encoding"),
        Some("gzip")
    );

    // One timeline: the page's captures in both collections.
    let timemap = explorer
        .get_ready("/timemap/link/http://example.org/page", None)
        .body;
    let mementos = timemap
        .lines()
        .filter(|l| l.contains("rel=\"memento\"") || l.contains("memento\";"))
        .count();
    assert!(
        timemap.contains("/memento/20200101000000/http://example.org/page"),
        "{timemap}"
    );
    assert!(
        timemap.contains("/memento/20210101000000/http://example.org/page"),
        "{timemap}"
    );
    assert!(mementos >= 3, "the crawl's captures too: {timemap}");

    // PWIDs of a foreign collection have its name as archive id.
    let pwid = "urn:pwid:replay:2020-01-01T00:00:00Z:part:http://example.org/page";
    let r = explorer.get(&format!("/pwid/{pwid}"), None);
    assert_eq!(r.status, 302, "{}", r.body);
    assert!(r
        .header("location")
        .unwrap()
        .ends_with("/memento/20200101000000/http://example.org/page"));
}

#[test]
fn the_readme_s_some_crawl_command_indexes_a_folder_of_warcs_as_written() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.contains("index --archive some-crawl/"))
        .expect("README.md indexes some-crawl/");
    let args = line
        .strip_prefix("cargo run -p modoai-explorer --")
        .unwrap();
    let work = work_dir("foreign-readme");
    let crawl = work.join("some-crawl");
    write_cases(&crawl, "first");
    // Files written a moment ago may still be growing: age them past the settling time.
    for e in std::fs::read_dir(&crawl).unwrap() {
        let status = Command::new("touch")
            .args(["-d", "2 minutes ago"])
            .arg(e.unwrap().path())
            .status()
            .unwrap();
        assert!(status.success());
    }
    let state = work.join("state");
    let out = modoai_explorer()
        .args(args.split_whitespace())
        .current_dir(&work)
        .env("XDG_STATE_HOME", &state)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        summary(&out, "some-crawl")
            .starts_with("some-crawl: 4 files, 13 records, 9 captures added"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = state.join("modoai-explorer/indexes/some-crawl/meta.json");
    assert!(index.is_file(), "the index is in the state folder");
}

#[test]
fn wgets_crawl_of_the_example_site_is_indexed_and_replayed_as_pywb_replays_it() {
    let site_files = integration_tests::TestSite::example();
    let work = work_dir("foreign-wget");
    let site = CrawlSite::serve(site_files.path(), &work);
    let crawl = work.join("crawl");
    std::fs::create_dir_all(&crawl).unwrap();
    let warc = wget_crawl(&site, &crawl);
    let indexes = work.join("indexes");
    let line = summary(
        &index(&indexes, &["--archive", warc.to_str().unwrap()]),
        "wget",
    );
    assert!(line.starts_with("wget: 1 files, "), "{line}");
    assert!(line.ends_with(", 0 skipped, 0 digest mismatches"), "{line}");
    let arg = warc.to_str().unwrap();
    let explorer = serve(&[arg], &indexes, &work, "");
    let all = explorer.get_ready("/api/v1/search?size=100", None).json();
    let mut wanted = Vec::new();
    for path in &EXAMPLE_PATHS[..5] {
        let url = site.url(path);
        let item = all["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["url"] == url.as_str() && d["kind"] == "response")
            .unwrap_or_else(|| panic!("{url} is not a capture: {all}"));
        wanted.push(format!("{}={url}", item["timestamp"].as_str().unwrap()));
    }
    same_as_pywb(&explorer, &pywb_id(&crawl, &wanted));
}

#[test]
fn the_server_indexes_files_added_to_a_foreign_folder() {
    let work = work_dir("foreign-watch");
    let crawl = work.join("crawl");
    write_cases(&crawl, "first");
    let indexes = work.join("indexes");
    let dir = crawl.to_str().unwrap();
    let explorer = serve(&[dir], &indexes, &work, "[index]\nrefresh-secs = 1\n");
    let total = || explorer.get_ready("/api/v1/search?size=1", None).json()["total"].clone();
    assert_eq!(total(), 9);
    write_cases(&crawl, "second");
    let started = Instant::now();
    while total() != 13 {
        assert!(started.elapsed() < MARGIN, "the new file was not indexed");
        std::thread::sleep(Duration::from_millis(100));
    }
    let revisits = explorer
        .get_ready("/api/v1/search?kind=revisit", None)
        .json();
    assert_eq!(revisits["total"], 4, "the revisits of the new file, once");
}

#[test]
fn warcproxs_recording_with_its_revisit_is_indexed_and_replayed_as_pywb_replays_it() {
    let site_files = integration_tests::TestSite::example();
    let work = work_dir("foreign-warcprox");
    let site = CrawlSite::serve(site_files.path(), &work);
    let warcs = warcprox_crawl(&site, &work);
    let dir = warcs[0].parent().unwrap().to_owned();
    let indexes = work.join("indexes");
    let arg = format!("proxy={}", dir.display());
    let line = summary(&index(&indexes, &["--archive", &arg]), "proxy");
    assert!(
        line.contains(&format!(
            "{} captures added ({0} in the index), 1 revisits, 0 unresolved revisits",
            EXAMPLE_PATHS.len()
        )),
        "{line}"
    );
    let explorer = serve(&[&arg], &indexes, &work, "");
    let about = site.url("/about.html");
    let all = explorer
        .get_ready("/api/v1/search?q=&size=100&kind=revisit", None)
        .json();
    assert_eq!(super::each(&all, "data", "url"), [about.as_str()]);
    let t = all["data"][0]["timestamp"].as_str().unwrap();
    same_as_pywb(&explorer, &pywb_id(&dir, &[format!("{t}={about}")]));
}

#[test]
fn exports_cover_foreign_captures_and_cdxj_says_which_collection_it_cannot_copy() {
    let work = work_dir("foreign-export");
    let crawl = work.join("crawl");
    write_cases(&crawl, "first");
    let (indexes, named) = (work.join("indexes"), format!("harbour={}", crawl.display()));
    let explorer = serve(&[&named], &indexes, &work, "");
    let total = explorer.get_ready("/api/v1/search", None).json()["total"]
        .as_u64()
        .unwrap();
    assert!(total > 0);
    let csv = explorer.get("/api/v1/export?format=csv", None);
    assert_eq!(csv.status, 200, "{}", csv.body);
    assert!(
        csv.body
            .ends_with(&format!("# complete: {total} captures\r\n")),
        "{}",
        csv.body
    );
    assert!(csv.body.contains("harbour"), "the collection: {}", csv.body);
    let jsonl = explorer.get("/api/v1/export?format=jsonl", None);
    let last = jsonl.body.lines().last().unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(last).unwrap(),
        serde_json::json!({"captures": total, "complete": true})
    );
    // CDXJ copies each modoai archive's own index: a foreign collection has none, and the
    // answer says so before anything is sent, naming the collection and what to do instead.
    let cdxj = explorer.get("/api/v1/export?format=cdxj", None);
    assert_eq!(cdxj.status, 400, "{}", cdxj.body);
    assert!(
        cdxj.body.contains("\\\"harbour\\\"") && cdxj.body.contains("cdxj-indexer"),
        "{}",
        cdxj.body
    );
    // Leaving the collection out is an empty but valid CDXJ export.
    let none = explorer.get("/api/v1/export?format=cdxj&archive=elsewhere", None);
    assert_eq!((none.status, none.body.as_str()), (200, ""));
}

#[test]
fn a_corpus_of_foreign_captures_is_verified_by_reading_the_collection_s_files() {
    let work = work_dir("foreign-corpus");
    let crawl = work.join("crawl");
    write_cases(&crawl, "first");
    let (indexes, named) = (work.join("indexes"), format!("harbour={}", crawl.display()));
    let explorer = serve(&[&named], &indexes, &work, "");
    explorer.get_ready("/api/v1/search", None);
    let corpus = explorer.get("/api/v1/export?format=corpus", None);
    assert_eq!(corpus.status, 200, "{}", corpus.body);
    let parts = corpus.body.matches("<part ").count();
    assert!(parts > 0, "{}", corpus.body);
    assert!(
        corpus.body.contains("pwid=\"urn:pwid:harbour:"),
        "{}",
        corpus.body
    );
    assert!(
        corpus.body.contains("<archive>harbour</archive>"),
        "{}",
        corpus.body
    );
    let file = work.join("harbour.corpus.xml");
    std::fs::write(&file, &corpus.body).unwrap();
    let schema = repo_root().join("schemas/corpus.xsd");
    let check = Command::new("xmllint")
        .args(["--noout", "--schema"])
        .args([&schema, &file])
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let verify = |file: &Path, archive: &str| {
        let out = super::explorer(&[
            "corpus",
            "verify",
            file.to_str().unwrap(),
            "--archive",
            archive,
        ]);
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        (
            out.status.code(),
            said,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, _, err) = verify(&file, &named);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!("{parts} parts: 0 missing, 0 changed")),
        "{err}"
    );

    // A digest listed otherwise is changed; the parts of a file taken away are missing.
    let first = &corpus.body[corpus.body.find("digest=\"sha1:").unwrap() + 8..];
    let digest = &first[..first.find('"').unwrap()];
    let edited = corpus
        .body
        .replacen(digest, "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 1);
    let damaged = work.join("damaged.corpus.xml");
    std::fs::write(&damaged, edited).unwrap();
    let (code, said, err) = verify(&damaged, &named);
    assert_eq!(code, Some(3), "{err}");
    assert!(said.contains("listed sha1:AAAA"), "{said}");
    let fewer = work.join("fewer");
    super::copy_dir(&crawl, &fewer);
    let gone = std::fs::read_dir(&fewer)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::remove_file(&gone).unwrap();
    let (code, said, err) = verify(&file, &format!("harbour={}", fewer.display()));
    assert_eq!(code, Some(3), "{err}");
    assert!(
        said.lines()
            .any(|l| l.starts_with("missing urn:pwid:harbour:")
                && l.ends_with("no capture of this URL at this time in collection harbour")),
        "{said}"
    );
    assert!(!said.contains("changed"), "{said}");
}

#[test]
fn a_warc_export_of_foreign_collections_is_replayed_by_pywb_and_carries_the_originals_revisits_need(
) {
    let work = work_dir("foreign-export-warc");
    let replay = work.join("replay");
    write_cases(&replay, "replay");
    let crawl = work.join("crawl");
    write_cases(&crawl, "first");
    // Its payload digest does not match on purpose: warcio check would refuse it, as stored.
    std::fs::remove_file(crawl.join("mismatch.warc")).unwrap();
    std::fs::copy(crawl.join("old.arc"), replay.join("old.arc")).unwrap();
    let later = work.join("later");
    write_cases(&later, "second");
    let indexes = work.join("indexes");
    let (r, c, l) = (
        format!("replay={}", replay.display()),
        format!("harbour={}", crawl.display()),
        format!("later={}", later.display()),
    );
    let explorer = serve(&[&r, &c, &l], &indexes, &work, "");
    let total = explorer.get_ready("/api/v1/search?q=", None).json()["total"]
        .as_u64()
        .unwrap();

    let all = explorer.get("/api/v1/export?format=warc&archive=replay", None);
    assert_eq!(all.status, 200, "{}", all.body);
    let (dir, records) = super::export::warcio_checked("foreign-export-warc-replay", &all.bytes);
    assert_eq!(records[0]["warc-type"], "warcinfo");
    // The ARC capture, the gzip-coded and chunked pages, the revisit: replayed from the export
    // as the explorer serves them from their collections.
    let args = replay_captures();
    same_as_pywb(&explorer, &pywb_id(&dir, &args));

    // The revisits of one collection whose originals are in another: each original once.
    let revisits = explorer.get("/api/v1/export?format=warc&archive=later", None);
    assert_eq!(revisits.status, 200);
    let (_, records) = super::export::warcio_checked("foreign-export-warc-later", &revisits.bytes);
    let later_total = explorer
        .get_ready("/api/v1/search?q=&archive=later", None)
        .json()["total"]
        .as_u64()
        .unwrap();
    let revisit_records = super::export::of_type(&records, "revisit");
    assert_eq!(revisit_records.len() as u64, later_total);
    let originals = super::export::of_type(&records, "response");
    let pages = originals
        .iter()
        .filter(|r| r["warc-target-uri"] == "http://example.org/page")
        .count();
    assert_eq!(pages, 1, "the page, once for all its revisits: {records:?}");

    // Every collection: every capture once, whatever its framing (gzip per record, one gzip
    // stream, an uncompressed file, ARC).
    let whole = explorer.get("/api/v1/export?format=warc", None);
    let (_, records) = super::export::warcio_checked("foreign-export-warc-all", &whole.bytes);
    assert!(
        records.len() as u64 > total,
        "{} records, {total} captures",
        records.len()
    );
}

#[test]
fn a_warc_export_carries_a_revisit_s_original_at_another_host_only_within_the_key_s_scope() {
    let work = work_dir("foreign-export-scope");
    let crawl = work.join("crawl");
    write_cases(&crawl, "agnostic");
    let named = format!("agnostic={}", crawl.display());
    let explorer = serve(&[&named], &work.join("indexes"), &work, "");
    let mirror = super::add_key(
        &explorer.keys,
        "mirror",
        &["--allow", "host:mirror.example.net"],
    );
    let total = explorer.get_ready("/api/v1/search", Some(&mirror)).json()["total"].as_u64();
    assert_eq!(total, Some(1), "the key sees the revisit only");
    let targets = |key: Option<&str>, name: &str| -> Vec<(String, String)> {
        let r = explorer.get("/api/v1/export?format=warc", key);
        assert_eq!(r.status, 200, "{}", r.body);
        let (_, records) = super::export::warcio_checked(name, &r.bytes);
        records
            .iter()
            .map(|r| {
                let field = |f: &str| r[f].as_str().unwrap_or_default().to_owned();
                (field("warc-type"), field("warc-target-uri"))
            })
            .collect()
    };
    let original = ("response".to_owned(), "http://example.org/page".to_owned());
    let revisit = (
        "revisit".to_owned(),
        "http://mirror.example.net/page".to_owned(),
    );
    let all = targets(None, "foreign-export-scope-all");
    assert!(all.contains(&original) && all.contains(&revisit), "{all:?}");
    let scoped = targets(Some(&mirror), "foreign-export-scope-mirror");
    assert!(scoped.contains(&revisit), "{scoped:?}");
    assert!(
        !scoped.iter().any(|(_, uri)| uri.contains("example.org")),
        "nothing of a host outside the key's scope: {scoped:?}"
    );
}

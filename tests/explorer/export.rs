//! Every result of a search: paging by cursor through the API (`after=`, `next`), and exports
//! of it checked by their peers (xmllint and the corpus schema, the harvester's own corpus).

use std::path::PathBuf;
use std::process::Command;

use integration_tests::process::program;

use super::{harvested, shared_explorer, Explorer};

/// The ids of every hit of `query`, following each answer's `next`.
fn walk(e: &Explorer, query: &str, key: Option<&str>) -> Vec<String> {
    let mut ids = Vec::new();
    let mut after = String::new();
    loop {
        let r = e.get_ready(&format!("/api/v1/search?{query}&after={after}"), key);
        assert_eq!(r.status, 200, "{}", r.body);
        let page = r.json();
        ids.extend(super::each(&page, "data", "id"));
        match page["next"].as_str() {
            Some(next) => after = next.to_owned(),
            None => return ids,
        }
    }
}

#[test]
fn the_api_pages_through_every_hit_by_cursor() {
    let e = shared_explorer("export-cursor", true);
    for (query, sort) in [
        ("size=2", ""),
        ("size=3&sort=oldest", "&sort=oldest"),
        (
            "size=2&q=report%20OR%20pictures",
            "&q=report%20OR%20pictures",
        ),
    ] {
        let all = e
            .get_ready(&format!("/api/v1/search?size=100&facets={sort}"), None)
            .json();
        assert!(all["next"].is_null(), "one page holds them all: no next");
        let ids = walk(&e, query, None);
        assert_eq!(
            ids,
            super::each(&all, "data", "id"),
            "{query}: every hit, once, in order"
        );
        assert!(ids.len() >= 2, "{query}");
    }
    let first = e.get_ready("/api/v1/search?size=2", None).json();
    let next = first["next"].as_str().unwrap();
    let second = e
        .get_ready(&format!("/api/v1/search?size=2&after={next}"), None)
        .json();
    assert_eq!(second["page"], 2);

    let other = e.get(
        &format!("/api/v1/search?size=2&q=report&after={next}"),
        None,
    );
    assert_eq!(other.status, 409, "{}", other.body);
    assert!(other.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("start again without after="));
    let bad = e.get("/api/v1/search?after=not-a-cursor", None);
    assert_eq!(bad.status, 400, "{}", bad.body);
    let deep = e.get("/api/v1/search?page=101&size=100", None);
    assert_eq!(deep.status, 400);
    assert!(deep.body.contains("after="), "{}", deep.body);
}

/// The `(pwid, digest)` of every part of a corpus definition.
fn parts(xml: &str) -> Vec<(String, String)> {
    let attr = |part: &str, name: &str| {
        let start = part.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        part[start..start + part[start..].find('"').unwrap()].to_owned()
    };
    let mut all: Vec<(String, String)> = xml
        .split("<part")
        .skip(1)
        .map(|p| (attr(p, "pwid"), attr(p, "digest")))
        .collect();
    all.sort();
    all
}

#[test]
fn a_corpus_export_is_valid_and_names_the_parts_the_harvester_names() {
    let e = shared_explorer("export-corpus", true);
    let r = e.get_ready("/api/v1/export?format=corpus&sort=oldest", None);
    assert_eq!(r.status, 200, "{}", r.body);
    let work = super::work_dir("export-corpus-files");
    let exported = work.join("export.corpus.xml");
    std::fs::write(&exported, &r.bytes).unwrap();
    integration_tests::process::require_tool("xmllint", "scripts/setup (libxml2-utils)");
    let schema = integration_tests::repo_root().join("schemas/corpus.xsd");
    let check = Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(&schema)
        .arg(&exported)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(r
        .body
        .contains("<description>The captures found by the search"));
    let written = work.join("harvester.corpus.xml");
    let out = Command::new(program("modoai-harvester"))
        .args(["corpus", "--archive"])
        .arg(&harvested().archive)
        .arg("--out")
        .arg(&written)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs = parts(&std::fs::read_to_string(&written).unwrap());
    let ours = parts(&r.body);
    assert!(!ours.is_empty());
    assert_eq!(ours, theirs, "the same parts, PWIDs and digests");
    let count = format!("<count>{}</count>", ours.len());
    assert!(r.body.contains(&count), "{count}");

    // The export verifies against its archive; a part listed with another digest is changed,
    // one at a time the archive never captured it is missing.
    let verify = |file: &std::path::Path| {
        super::explorer(&[
            "corpus",
            "verify",
            file.to_str().unwrap(),
            "--archive",
            harvested().archive.to_str().unwrap(),
        ])
    };
    let out = verify(&exported);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains(": 0 missing, 0 changed"));
    let (pwid, digest) = &ours[0];
    let (other_pwid, _) = &ours[1];
    let moved = other_pwid.replacen(":part:", ":part:http://nowhere.invalid/", 1);
    let edited = r
        .body
        .replace(
            &format!("digest=\"{digest}\""),
            "digest=\"sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"",
        )
        .replace(
            &format!("pwid=\"{other_pwid}\""),
            &format!("pwid=\"{moved}\""),
        );
    let damaged = work.join("damaged.corpus.xml");
    std::fs::write(&damaged, edited).unwrap();
    let out = verify(&damaged);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!("changed {pwid}: listed sha1:AAAA")),
        "{said}"
    );
    assert!(said.contains(&format!("missing {moved}: ")), "{said}");
}

/// pywb's own reader on a CDXJ file: each line parsed as pywb's `CDXObject` and found again by
/// pywb's binary search of the file (`iter_exact`, which needs the bytewise order); the lines.
const PYWB_READS: &str = r#"
import sys
from pywb.warcserver.index.cdxobject import CDXObject
from pywb.utils.binsearch import iter_exact
path = sys.argv[1]
lines = open(path, 'rb').read().splitlines()
with open(path, 'rb') as fh:
    for line in lines:
        c = CDXObject(line)
        assert c['filename'] and int(c['offset']) >= 0 and int(c['length']) > 0, line
        assert line in list(iter_exact(fh, c['urlkey'].encode())), line
print(len(lines))
"#;

#[test]
fn a_cdxj_export_is_read_by_pywb() {
    let e = shared_explorer("export-cdxj", true);
    let total = e.get_ready("/api/v1/search?size=1", None).json()["total"]
        .as_u64()
        .unwrap();
    let r = e.get_ready("/api/v1/export?format=cdxj&sort=oldest", None);
    assert_eq!(r.status, 200, "{}", r.body);
    let path = super::work_dir("export-cdxj-file").join("export.cdxj");
    std::fs::write(&path, &r.bytes).unwrap();
    let out = Command::new(integration_tests::venv_python())
        .args(["-c", PYWB_READS])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        total.to_string()
    );
}

/// The ticket of a `POST /api/v1/export/ticket` answer with `key`, and its progress path.
fn ticket(e: &Explorer, key: Option<&str>) -> (String, String) {
    let r = e.post("/api/v1/export/ticket", key);
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let t = r.json();
    assert_eq!(t["expires_in"], 60);
    let token = t["ticket"].as_str().unwrap().to_owned();
    (token, t["progress"].as_str().unwrap().to_owned())
}

#[test]
fn a_ticket_stands_for_its_key_in_one_export_and_tells_its_progress() {
    let e = shared_explorer("export-ticket", false);
    let key = super::add_key(
        &e.keys,
        "scoped",
        &["--allow", "mime:text/html", "--quota", "50/hour"],
    );
    let html = e.get_ready("/api/v1/search?size=1", Some(&key)).json()["total"]
        .as_u64()
        .unwrap();
    let all = e.get_ready("/api/v1/search?size=1&mime=text%2Fhtml", Some(&key));
    assert_eq!(all.json()["total"].as_u64(), Some(html));

    let refused = e.post("/api/v1/export/ticket", None);
    assert_eq!(
        refused.status, 401,
        "a ticket needs the key: {}",
        refused.body
    );

    let (token, progress) = ticket(&e, Some(&key));
    assert_eq!(progress, format!("/api/v1/export/progress/{token}"));
    assert_eq!(e.get(&progress, None).json()["stage"], "waiting");
    let url = format!("/api/v1/export?format=csv&sort=oldest&ticket={token}");
    let r = e.get(&url, None);
    assert_eq!(
        r.status, 200,
        "the ticket admits without a header: {}",
        r.body
    );
    assert_eq!(
        r.body.lines().last().unwrap(),
        format!("# complete: {html} captures"),
        "within the key's scope"
    );
    assert!(r
        .body
        .lines()
        .skip(1)
        .take(html as usize)
        .all(|l| l.contains(",text/html,")));
    let p = e.get(&progress, None).json();
    assert_eq!(
        (p["stage"].as_str(), p["written"].as_u64()),
        (Some("complete"), Some(html))
    );
    assert_eq!(p["total"].as_u64(), Some(html));

    // A WARC export reports its progress the same way.
    let (t, warc_progress) = ticket(&e, Some(&key));
    let warc = e.get(&format!("/api/v1/export?format=warc&ticket={t}"), None);
    assert_eq!(warc.status, 200, "{}", warc.body);
    let p = e.get(&warc_progress, None).json();
    assert_eq!(
        (p["stage"].as_str(), p["written"].as_u64()),
        (Some("complete"), Some(html))
    );

    let again = e.get(&url, None);
    assert_eq!(again.status, 401, "once only: {}", again.body);
    assert!(again.body.contains("not a valid ticket"), "{}", again.body);
    let (other, _) = ticket(&e, Some(&key));
    let elsewhere = e.get(&format!("/api/v1/me?ticket={other}"), None);
    assert_eq!(elsewhere.status, 401, "tickets admit to exports only");
    assert_eq!(e.get("/api/v1/export/progress/0123", None).status, 404);

    // A key revoked after its ticket was given admits nothing.
    let (late, late_progress) = ticket(&e, Some(&key));
    let out = super::explorer(&[
        "keys",
        "revoke",
        "scoped",
        "--keys",
        e.keys.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let revoked = e.get(&format!("/api/v1/export?format=jsonl&ticket={late}"), None);
    assert_eq!(revoked.status, 401, "{}", revoked.body);
    let p = e.get(&late_progress, None).json();
    assert_eq!(p["stage"], "stopped");

    // A key whose quota the ticket spent: the export is refused before it begins, and its
    // progress says why.
    let small = super::add_key(&e.keys, "small", &["--quota", "1/hour"]);
    let (t, small_progress) = ticket(&e, Some(&small));
    let spent = e.get(&format!("/api/v1/export?format=cdxj&ticket={t}"), None);
    assert_eq!(spent.status, 429, "{}", spent.body);
    let p = e.get(&small_progress, None).json();
    assert_eq!(p["stage"], "stopped", "{p}");
    assert!(p["reason"].as_str().unwrap().contains("quota"), "{p}");
}

/// Writes `bytes` as `export.warc.gz` in a fresh folder `name`; runs `warcio check`, which must
/// pass, and gives its folder and what `warcio index` lists of it (type, target URI, record
/// id), each record once.
pub(super) fn warcio_checked(name: &str, bytes: &[u8]) -> (PathBuf, Vec<serde_json::Value>) {
    let dir = super::work_dir(name);
    let file = dir.join("export.warc.gz");
    std::fs::write(&file, bytes).unwrap();
    let warcio = integration_tests::python::venv_tool("warcio");
    let check = Command::new(&warcio)
        .args(["check", "-v"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "warcio check: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let index = Command::new(&warcio)
        .args(["index", "-f", "warc-type,warc-target-uri,warc-record-id"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        index.status.success(),
        "{}",
        String::from_utf8_lossy(&index.stderr)
    );
    let records: Vec<serde_json::Value> = String::from_utf8(index.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut ids: Vec<&str> = records
        .iter()
        .map(|r| r["warc-record-id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "no record twice");
    (dir, records)
}

/// The records of `records` of type `kind`.
pub(super) fn of_type<'a>(
    records: &'a [serde_json::Value],
    kind: &str,
) -> Vec<&'a serde_json::Value> {
    records.iter().filter(|r| r["warc-type"] == kind).collect()
}

#[test]
fn a_warc_export_passes_warcio_and_pywb_replays_it_as_the_explorer_serves_it() {
    let e = shared_explorer("export-warc", true);
    let all = e
        .get_ready("/api/v1/search?size=100&sort=oldest", None)
        .json();
    let total = all["total"].as_u64().unwrap();
    let r = e.get_ready("/api/v1/export?format=warc&sort=oldest", None);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/warc"));
    let (dir, records) = warcio_checked("export-warc-file", &r.bytes);
    assert_eq!(records[0]["warc-type"], "warcinfo");
    let captures = of_type(&records, "resource").len() + of_type(&records, "revisit").len();
    assert_eq!(captures as u64, total, "every capture's record, once");
    assert!(
        !of_type(&records, "metadata").is_empty(),
        "the CRATE records go along"
    );

    // pywb replays the exported file as the explorer serves its mementos.
    let wanted: Vec<String> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "resource")
        .take(4)
        .map(|c| {
            format!(
                "{}={}",
                c["timestamp"].as_str().unwrap(),
                c["url"].as_str().unwrap()
            )
        })
        .collect();
    assert!(!wanted.is_empty());
    let pywb = super::foreign::pywb_id(&dir, &wanted);
    assert!(
        pywb.iter().all(|t| t["status"] == 200),
        "pywb replays the export"
    );
    super::foreign::same_as_pywb(&e, &pywb);

    // An export of nothing is a valid WARC: its warcinfo alone.
    let none = e.get_ready("/api/v1/export?format=warc&q=zzzzqqqq", None);
    let (_, records) = warcio_checked("export-warc-none", &none.bytes);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["warc-type"], "warcinfo");
}

#[test]
fn a_wacz_export_validates_and_packs_the_warc_export_its_index_and_its_pages() {
    let e = shared_explorer("export-wacz", true);
    let total = e.get_ready("/api/v1/search?size=1", None).json()["total"]
        .as_u64()
        .unwrap();
    let html = e
        .get_ready("/api/v1/search?size=1&mime=text/html", None)
        .json()["total"]
        .as_u64()
        .unwrap();
    let work = super::work_dir("export-wacz-files");
    for (name, query, pages) in [
        ("all.wacz", "sort=oldest", html),
        ("none.wacz", "q=zzzzqqqq", 0),
    ] {
        let r = e.get_ready(&format!("/api/v1/export?format=wacz&{query}"), None);
        assert_eq!(r.status, 200);
        let path = work.join(name);
        std::fs::write(&path, &r.bytes).unwrap();
        let report = integration_tests::python::json(&integration_tests::python::python(
            "wacz_check.py",
            &[path.to_str().unwrap()],
        ));
        assert!(
            report["validate"].as_str().unwrap().contains("succeeded"),
            "{name}: {report}"
        );
        assert_eq!(
            report["pages"].as_array().unwrap().len() as u64,
            pages,
            "{name}"
        );
        let package = &report["datapackage"];
        assert!(
            package["description"]
                .as_str()
                .unwrap()
                .contains(&format!("{query:?}")),
            "{name}: the search in its description: {package}"
        );
        let hashes = package["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["path"].as_str().unwrap())
            .collect::<Vec<_>>();
        assert!(hashes.contains(&"archive/data.warc.gz"), "{package}");
        if pages > 0 {
            assert!(report["index_lines"].as_u64().unwrap() >= total, "{report}");
            // The package's WARC is the WARC export of the same search, but for its warcinfo
            // (another record id and date).
            let warc = e.get_ready(&format!("/api/v1/export?format=warc&{query}"), None);
            let packed = unzip(&path, "archive/data.warc.gz");
            assert!(
                after_first_member(&packed) == after_first_member(&warc.bytes),
                "the same records as format=warc"
            );
            // pywb, given only the package, replays its HTML pages with the site's bytes.
            let (base, site) = (&harvested().base, super::work_root().join("shared/site"));
            let mut args = vec![
                harvested().archive.to_str().unwrap().to_owned(),
                "--wacz".to_owned(),
                path.to_str().unwrap().to_owned(),
            ];
            for page in report["pages"].as_array().unwrap() {
                let url = page["url"].as_str().unwrap();
                let file = site.join(url.strip_prefix(base.as_str()).unwrap());
                // The site's root is a listing the server makes, not a file.
                if !file.is_file() {
                    continue;
                }
                args.extend(["--expect".to_owned(), format!("{url}={}", file.display())]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            integration_tests::python::python("pywb_replay.py", &args);
        }
    }
}

/// The bytes of the entry `name` of the ZIP at `path` (Python's zipfile reads it).
fn unzip(path: &std::path::Path, name: &str) -> Vec<u8> {
    let out = Command::new(integration_tests::venv_python())
        .args([
            "-c",
            "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))",
        ])
        .arg(path)
        .arg(name)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// What follows the first gzip member of `bytes`.
fn after_first_member(bytes: &[u8]) -> &[u8] {
    let mut rest = bytes;
    let mut member = flate2::bufread::GzDecoder::new(&mut rest);
    std::io::copy(&mut member, &mut std::io::sink()).unwrap();
    drop(member);
    rest
}

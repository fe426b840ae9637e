//! Every result of a search: paging by cursor through the API (`after=`, `next`), and exports
//! of it checked by their peers (xmllint and the corpus schema, the harvester's own corpus).

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

//! Deletions as history, against our server: a file harvested, deleted (harvested as a deleted
//! record, then again by a full re-harvest), and back later. `inspect archive --parts` lists the
//! deletion with the file's URL and the deletion's datestamp, `corpus --at` gives the site
//! as it stood at a date, `corpus --deleted` what was deleted in a window, the profile counts the
//! deletion apart, and the file that came back is a new capture.

use std::path::Path;
use std::time::Duration;

use integration_tests::{Server, TestSite};

use super::{blocking, ledger, run};

/// Harvests `oai` into `archive` in oai_didl (the files themselves), with `extra` arguments.
async fn harvest(oai: &str, archive: &Path, extra: &[&str]) {
    let mut args: Vec<String> = ["harvest", oai, "--archive", archive.to_str().unwrap()]
        .map(str::to_owned)
        .to_vec();
    args.extend(
        [
            "--metadata-prefix",
            "oai_didl",
            "--archive-id",
            "deletions.test",
            "--quiet",
        ]
        .map(str::to_owned),
    );
    args.extend(extra.iter().map(|s| s.to_string()));
    blocking(move || run(&args.iter().map(String::as_str).collect::<Vec<_>>(), 0)).await;
}

/// `corpus` with `extra`: the (url, datestamp, deleted) of its parts, the file checked against
/// schemas/corpus.xsd.
fn corpus(archive: &Path, extra: &[&str]) -> Vec<(String, String, Option<String>)> {
    let out = archive.with_extension(format!("corpus-{}.xml", extra.join("_").replace(':', "")));
    let (a, o) = (archive.to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec!["corpus", "--archive", a, "--out", o];
    args.extend_from_slice(extra);
    run(&args, 0);
    let schema = integration_tests::repo_root().join("schemas/corpus.xsd");
    let check = std::process::Command::new("xmllint")
        .args(["--noout", "--schema", schema.to_str().unwrap(), o])
        .output()
        .expect("xmllint (scripts/setup: libxml2-utils)");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let xml = std::fs::read(&out).unwrap();
    let parts = integration_tests::xml::element_attrs(&xml, "part");
    let mut out: Vec<_> = parts
        .into_iter()
        .map(|p| {
            (
                p["url"].clone(),
                p["datestamp"].clone(),
                p.get("deleted").cloned(),
            )
        })
        .collect();
    out.sort();
    out
}

fn urls(parts: &[(String, String, Option<String>)]) -> Vec<&str> {
    parts
        .iter()
        .map(|p| p.0.rsplit('/').next().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_file_is_history_and_one_that_comes_back_a_new_capture() {
    let site = TestSite::empty();
    let y2020 = 1_577_836_800; // 2020-01-01T00:00:00Z
    let y2021 = 1_609_459_200;
    site.write("a.txt", b"first a", Some(y2020));
    site.write("b.txt", b"b", Some(y2021));
    site.write("c.html", b"<html><title>c</title></html>", Some(y2021));
    let work = tempfile::tempdir().unwrap();
    let state = work.path().join("state");
    let server = Server::start(site.path(), |c| c.state_dir(&state).page_size(2)).await;
    let archive = work.path().join("archive");
    let a_url = server.id("a.txt");
    harvest(&server.oai, &archive, &[]).await;
    // Deleted: harvested as a deleted record, and again by a full re-harvest.
    std::fs::remove_file(site.path().join("a.txt")).unwrap();
    server.until_deleted(&a_url, true).await;
    harvest(&server.oai, &archive, &[]).await;
    harvest(&server.oai, &archive, &["--full"]).await;
    // Back a second later, with other bytes: a later datestamp than the deletion's.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    site.write("a.txt", b"second a", None);
    server.until_deleted(&a_url, false).await;
    harvest(&server.oai, &archive, &[]).await;
    server.stop().await;

    let items = ledger(&archive);
    let a: Vec<_> = items.iter().filter(|e| e.identifier == a_url).collect();
    // The full re-harvest listed the deletion again and skipped it, as it skips any item the
    // archive holds at that datestamp.
    assert_eq!(a.iter().filter(|e| e.deleted).count(), 1);
    let deleted_at = a.iter().find(|e| e.deleted).unwrap().datestamp.clone();
    let back_at = a.last().unwrap().datestamp.clone();
    assert!(
        !a.last().unwrap().deleted && back_at > deleted_at,
        "{back_at} {deleted_at}"
    );

    // inspect --parts: the deletion once, between a's two captures, with URL and datestamp.
    let ar = archive.to_str().unwrap();
    let (out, _) = run(&["inspect", "archive", ar, "--parts", "--json"], 0);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of_a: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["url"] == a_url.as_str())
        .collect();
    let kinds: Vec<&str> = of_a.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["resource", "deletion", "resource"], "{out}");
    assert_eq!(of_a[1]["datestamp"], deleted_at.as_str());
    assert_eq!(of_a[1]["identifier"], a_url.as_str());
    assert_ne!(
        of_a[0]["pwid"], of_a[2]["pwid"],
        "the file back is a new capture"
    );
    assert_eq!(lines.iter().filter(|l| l["type"] == "deletion").count(), 1);
    let (text, _) = run(&["inspect", "archive", ar, "--parts"], 0);
    assert!(
        text.contains(&format!("deleted {deleted_at}  {a_url}")),
        "{text}"
    );

    // corpus --at: the site as it stood.
    assert_eq!(urls(&corpus(&archive, &["--at", "2020-06-01"])), ["a.txt"]);
    assert_eq!(
        urls(&corpus(&archive, &["--at", &deleted_at])),
        ["b.txt", "c.html"]
    );
    let now = corpus(&archive, &["--at", &back_at]);
    assert_eq!(urls(&now), ["a.txt", "b.txt", "c.html"]);
    assert_eq!(now[0].1, back_at, "a's new capture, not the first");
    // corpus --deleted: a's last capture before the deletion, with the deletion's datestamp.
    let gone = corpus(&archive, &["--deleted", "--from", "2026-01-01"]);
    assert_eq!(gone.len(), 1, "{gone:?}");
    assert_eq!(
        (urls(&gone)[0], gone[0].1.as_str(), gone[0].2.as_deref()),
        ("a.txt", "2020-01-01T00:00:00Z", Some(deleted_at.as_str()))
    );
    assert!(corpus(&archive, &["--deleted", "--until", "2025-12-31"]).is_empty());
    // --at with --from is a usage error.
    run(
        &[
            "corpus",
            "--archive",
            ar,
            "--at",
            "2026-01-01",
            "--from",
            "2026-01-01",
            "--out",
            "-",
        ],
        2,
    );

    // The profile counts the deletion apart.
    let profile = work.path().join("profile.ukvs");
    let (json, _) = run(
        &[
            "profile",
            "--archive",
            ar,
            "--out",
            profile.to_str().unwrap(),
            "--json",
        ],
        0,
    );
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["deletions"], 1, "{json}");
    let text = std::fs::read_to_string(&profile).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("!meta ") && l.contains("deletions: 1")),
        "{text}"
    );
}

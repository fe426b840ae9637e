//! Real peers: Sickle and pyoai harvest the whole site through every page, and an independent
//! re-implementation of the official validator (plus strict checks) rates the provider.

use integration_tests::{json, run_python, Server, TestSite};

use crate::example_ids;

async fn harvest(script: &str, server: &Server, prefix: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![server.oai.as_str(), prefix];
    args.extend_from_slice(extra);
    let (ok, out, err) = run_python(script, &args).await;
    assert!(ok, "{script} {prefix} failed:\n{err}");
    json(&out)
}

#[tokio::test]
async fn sickle_and_pyoai_harvest_every_record_through_every_page() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c.page_size(4)).await;
    let expected = example_ids(&server);
    for (script, extra) in [
        ("harvest_sickle.py", &[][..]),
        ("harvest_pyoai.py", &[][..]),
        ("harvest_pyoai.py", &["--get"][..]),
    ] {
        for prefix in ["oai_dc", "oai_didl"] {
            let v = harvest(script, &server, prefix, extra).await;
            let ids: Vec<String> = serde_json::from_value(v["identifiers"].clone()).unwrap();
            assert_eq!(ids, expected, "{script} {prefix}");
            assert_eq!(v["records"], expected.len(), "{script} {prefix}");
            assert_eq!(v["duplicates"], 0, "{script} {prefix}");
            if let Some(pages) = v["pages"].as_u64() {
                assert_eq!(pages, 4, "{script} {prefix}: 14 records, 4 per page");
            }
        }
    }
    let images = harvest(
        "harvest_sickle.py",
        &server,
        "oai_dc",
        &["--set", "mime:image"],
    )
    .await;
    assert_eq!(images["records"], 6);
}

#[tokio::test]
async fn independent_validator_rates_the_provider_compliant() {
    let site = TestSite::example();
    let server = Server::start(site.path(), |c| c.page_size(5)).await;
    let schemas = integration_tests::repo_root().join("schemas");
    let (ok, out, err) = run_python(
        "oai_validator.py",
        &[&server.oai, "--schemas", schemas.to_str().unwrap()],
    )
    .await;
    let tail: Vec<&str> = out.lines().rev().take(8).collect();
    assert!(
        ok,
        "validator: FAILED\n{}\n{err}\n{}",
        out.lines()
            .filter(|l| l.starts_with("FAIL"))
            .collect::<Vec<_>>()
            .join("\n"),
        tail.join("\n")
    );
    let official = out
        .lines()
        .find(|l| l.contains("Official checks"))
        .expect("a summary line");
    assert!(
        official.contains(" 0 failed") && official.ends_with("COMPLIANT"),
        "{official}"
    );
    assert!(out.trim_end().ends_with("is COMPLIANT"));
}

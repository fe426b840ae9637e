//! Which format a harvest asks for: a repeated command continues the format the archive holds,
//! another one goes in only when named, and an archive of several formats needs one named.

use std::path::Path;

use integration_tests::{Server, TestSite};

use super::our_server::light_plugins;
use super::{blocking, expect, harvester};

/// The formats of the lists in the archive's state.
fn listed_prefixes(archive: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(archive.join("state.json")).unwrap();
    let state: serde_json::Value = serde_json::from_str(&text).unwrap();
    let lists = state["lists"].as_object().cloned().unwrap_or_default();
    let mut prefixes: Vec<String> = lists
        .values()
        .map(|l| l["key"]["prefix"].as_str().unwrap().to_owned())
        .collect();
    prefixes.sort();
    prefixes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_harvest_keeps_the_archives_format_and_another_must_be_named() {
    let site = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let plugins = light_plugins(work.path()).await;
    // The server offers oai_crate, the default for a new archive.
    let server = Server::start(site.path(), |c| c.page_size(20).plugins(plugins)).await;
    let archive = work.path().join("archive");
    let (oai, a) = (server.oai.clone(), archive.to_str().unwrap().to_owned());
    let harvest = move |prefix: Option<&'static str>, code: i32| {
        let (oai, a) = (oai.clone(), a.clone());
        blocking(move || {
            let mut args = vec!["harvest", &oai, "--archive", &a];
            args.extend(
                prefix
                    .map(|p| ["--metadata-prefix", p])
                    .into_iter()
                    .flatten(),
            );
            let out = harvester(&args);
            expect(&out, code)
        })
    };
    let (stdout, _) = harvest(Some("oai_didl"), 0).await;
    assert!(stdout.contains("(oai_didl"), "{stdout}");
    // Said again without the flag: the same list, incremental, not a switch to oai_crate.
    let (stdout, _) = harvest(None, 0).await;
    assert!(stdout.contains("(oai_didl"), "{stdout}");
    assert!(stdout.contains(", from "), "incremental: {stdout}");
    assert_eq!(listed_prefixes(&archive), ["oai_didl"]);
    // Another format, named: it joins the archive.
    let (stdout, _) = harvest(Some("oai_crate"), 0).await;
    assert!(stdout.contains("(oai_crate"), "{stdout}");
    assert_eq!(listed_prefixes(&archive), ["oai_crate", "oai_didl"]);
    // Now the archive holds two: which to harvest is refused to guess, and the message says how.
    let (_, stderr) = harvest(None, 2).await;
    assert!(
        stderr.contains("in oai_crate and oai_didl")
            && stderr.contains("name the one to harvest with --metadata-prefix"),
        "{stderr}"
    );
    assert_eq!(listed_prefixes(&archive), ["oai_crate", "oai_didl"]);
    server.stop().await;
}

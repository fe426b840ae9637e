//! `oai_crate` with the default `plugins.toml` and the real tools (`scripts/setup` installs them):
//! a site of mixed files, every record valid, JPEGs described by file, md5, JHOVE, ExifTool and
//! Siegfried, failures of corrupt files reported, and a second harvest without any tool process.

use std::collections::BTreeMap;
use std::time::Instant;

use base64::Engine;
use integration_tests::{repo_root, require_tool, Reply, Server, TestSite};
use md5::{Digest, Md5};
use modoai::Plugins;
use quick_xml::events::Event;

fn require_tools() {
    for (tool, package) in [
        ("jhove", "jhove (see scripts/setup)"),
        ("exiftool", "libimage-exiftool-perl"),
        ("file", "file"),
        ("modoai-siegfried", "pygfried (see scripts/setup)"),
        ("pdfinfo", "poppler-utils"),
        ("mediainfo", "mediainfo"),
    ] {
        require_tool(tool, &format!("apt-get install {package}"));
    }
}

/// The default plugins.toml, copied next to a fresh cache.
async fn default_plugins(work: &std::path::Path) -> Plugins {
    let path = work.join("plugins.toml");
    std::fs::copy(repo_root().join("plugins.toml"), &path).unwrap();
    Plugins::load(&path)
        .await
        .expect("the default plugins.toml loads")
}

/// One record of a page: identifier, its plugins (label → (status, output text)), the Base64 payload.
pub(crate) struct Crate {
    pub(crate) id: String,
    pub(crate) plugins: BTreeMap<String, (String, String)>,
    payload: Option<Vec<u8>>,
}

/// Splits a ListRecords page into records; keeps, per plugin, its status and its output as text
/// (all character data inside crate:output, the embedded XML's included).
fn crates(page: &Reply) -> Vec<Crate> {
    let mut reader = quick_xml::Reader::from_reader(&page.body[..]);
    let (mut out, mut buf) = (Vec::new(), Vec::new());
    let (mut label, mut status, mut in_output, mut in_payload, mut text) =
        (String::new(), String::new(), 0usize, false, String::new());
    let mut b64 = String::new();
    loop {
        match reader.read_event_into(&mut buf).unwrap() {
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"record" => {
                out.push(Crate {
                    id: String::new(),
                    plugins: BTreeMap::new(),
                    payload: None,
                })
            }
            Event::Start(e)
                if e.name().as_ref() == b"identifier"
                    && out.last().is_some_and(|c| c.id.is_empty()) =>
            {
                let t = reader.read_text(e.name()).unwrap();
                out.last_mut().unwrap().id = t.into_owned();
            }
            Event::Start(e) if e.name().as_ref() == b"crate:plugin" => {
                let attr = |k: &str| {
                    e.try_get_attribute(k)
                        .unwrap()
                        .map(|a| a.unescape_value().unwrap().into_owned())
                        .unwrap_or_default()
                };
                (label, status, text) = (attr("label"), attr("status"), String::new());
            }
            Event::Start(e) if e.name().as_ref() == b"crate:output" => in_output = 1,
            Event::Start(_) if in_output > 0 => in_output += 1,
            Event::End(e) if e.name().as_ref() == b"crate:output" => in_output = 0,
            Event::End(_) if in_output > 1 => in_output -= 1,
            Event::Text(t) if in_output > 0 => text.push_str(&t.decode().unwrap()),
            Event::GeneralRef(_) if in_output > 0 => text.push('&'),
            Event::End(e) if e.name().as_ref() == b"crate:plugin" => {
                out.last_mut()
                    .unwrap()
                    .plugins
                    .insert(label.clone(), (status.clone(), text.clone()));
            }
            Event::Start(e)
                if e.name().as_ref() == b"didl:Resource"
                    && e.try_get_attribute("encoding").unwrap().is_some() =>
            {
                in_payload = true
            }
            Event::Text(t) if in_payload => b64.push_str(&t.decode().unwrap()),
            Event::End(e) if e.name().as_ref() == b"didl:Resource" && in_payload => {
                in_payload = false;
                out.last_mut().unwrap().payload = Some(
                    base64::engine::general_purpose::STANDARD
                        .decode(std::mem::take(&mut b64))
                        .unwrap(),
                );
            }
            Event::Eof => return out,
            _ => {}
        }
        buf.clear();
    }
}

fn md5_hex(bytes: &[u8]) -> String {
    Md5::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub(crate) async fn harvest(server: &Server) -> Vec<Crate> {
    let mut page = server
        .oai("verb=ListRecords&metadataPrefix=oai_crate")
        .await;
    let mut all = Vec::new();
    loop {
        page.assert_valid();
        all.extend(crates(&page));
        let Some((token, _)) = page.token().filter(|(t, _)| !t.is_empty()) else {
            return all;
        };
        page = server
            .oai(&format!("verb=ListRecords&resumptionToken={token}"))
            .await;
    }
}

#[tokio::test]
async fn mixed_site_with_the_default_plugins() {
    require_tools();
    let site = TestSite::from_dir(&repo_root().join("tests/fixtures/crate-site"));
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9 ]]> & <x>.jpg");
        std::fs::copy(
            repo_root().join("tests/fixtures/crate-site/photo.jpg"),
            site.path().join(name),
        )
        .unwrap();
    }
    let work = tempfile::tempdir().unwrap();
    let plugins = default_plugins(work.path()).await;
    assert!(plugins.all_healthy(), "{}", plugins.check_report());
    let server = Server::start(site.path(), |c| c.page_size(10).plugins(plugins.clone())).await;
    let records = harvest(&server).await;
    assert!(records.len() >= 14, "{}", records.len());
    let started = plugins.processes_started();
    for c in &records {
        let (status, md5) = &c.plugins["md5"];
        assert_eq!(status, "ok", "{}", c.id);
        if let Some(bytes) = &c.payload {
            assert_eq!(
                md5.trim(),
                md5_hex(bytes),
                "{}: the md5 of the bytes in the Resource",
                c.id
            );
        }
        assert!(c.plugins.contains_key("file"), "{}", c.id);
    }
    let jpegs: Vec<&Crate> = records
        .iter()
        .filter(|c| c.id.ends_with("photo.jpg") || c.id.ends_with("%3E.jpg"))
        .collect();
    assert_eq!(jpegs.len(), 2);
    for c in jpegs {
        for label in ["file", "md5", "jhove", "exiftool", "siegfried"] {
            let (status, output) = c
                .plugins
                .get(label)
                .unwrap_or_else(|| panic!("{}: no {label}", c.id));
            assert_eq!(status, "ok", "{}: {label}", c.id);
            assert!(!output.trim().is_empty(), "{}: {label} said nothing", c.id);
        }
        assert!(
            c.plugins["jhove"].1.contains("Well-Formed and valid"),
            "{}",
            c.plugins["jhove"].1
        );
        assert!(
            c.plugins["siegfried"].1.contains("fmt/"),
            "a PRONOM identifier: {}",
            c.plugins["siegfried"].1
        );
    }
    let by_name = |n: &str| {
        records
            .iter()
            .find(|c| c.id.ends_with(n))
            .unwrap_or_else(|| panic!("no record for {n}"))
    };
    assert!(
        by_name("truncated.jpg").plugins["jhove"]
            .1
            .contains("Not well-formed"),
        "JHOVE with an explicit module sees the corruption"
    );
    assert!(by_name("doc.pdf").plugins.contains_key("pdfinfo"));
    assert!(by_name("tone.wav").plugins.contains_key("mediainfo"));
    assert!(by_name("tone.mp3").plugins.contains_key("mediainfo"));
    let again = harvest(&server).await;
    assert_eq!(again.len(), records.len());
    assert_eq!(
        plugins.processes_started(),
        started,
        "the second harvest starts no tool process"
    );
    assert!(again
        .iter()
        .flat_map(|c| c.plugins.values())
        .all(|(s, _)| s != "timeout"));
}

/// The figures for the closing note: one page of 100 JPEGs, cold then warm. No time is asserted.
#[tokio::test]
async fn a_page_of_100_jpegs_cold_and_warm() {
    require_tools();
    let site = TestSite::empty();
    let jpeg = std::fs::read(repo_root().join("tests/fixtures/crate-site/photo.jpg")).unwrap();
    for i in 0..100 {
        site.write(&format!("jpegs/p{i:03}.jpg"), &jpeg, None);
    }
    let work = tempfile::tempdir().unwrap();
    let plugins = default_plugins(work.path()).await;
    let server = Server::start(site.path(), |c| c.page_size(100).plugins(plugins.clone())).await;
    let t = Instant::now();
    let cold = server
        .oai("verb=ListRecords&metadataPrefix=oai_crate")
        .await;
    let cold_time = t.elapsed();
    let cold_processes = plugins.processes_started();
    cold.assert_valid();
    assert_eq!(cold.texts("record").len(), 100);
    // Siegfried's files are split over its workers: each record still has its own file's answer,
    // one document naming one file.
    for c in crates(&cold) {
        let (status, output) = &c.plugins["siegfried"];
        assert_eq!(status, "ok", "{}: {output}", c.id);
        // crates() keeps each entity reference as `&`: here only the JSON's quotes.
        let doc: serde_json::Value = serde_json::from_str(&output.trim().replace('&', "\""))
            .unwrap_or_else(|e| panic!("{}: {e}: {output}", c.id));
        let files = doc["files"].as_array().unwrap();
        assert_eq!(files.len(), 1, "{}: one file named: {output}", c.id);
        assert_eq!(files[0]["matches"][0]["id"], "fmt/43", "{}: {output}", c.id);
    }
    let t = Instant::now();
    let warm = server
        .oai("verb=ListRecords&metadataPrefix=oai_crate")
        .await;
    let warm_time = t.elapsed();
    assert_eq!(warm.texts("record").len(), 100);
    assert_eq!(
        plugins.processes_started(),
        cold_processes,
        "warm: no tool process"
    );
    assert!(
        cold_processes < 150,
        "batched: far fewer processes than 100 files x 5 tools ({cold_processes})"
    );
    eprintln!("oai_crate page of 100 JPEGs: cold {cold_time:?} with {cold_processes} tool processes; warm {warm_time:?} with 0");
}

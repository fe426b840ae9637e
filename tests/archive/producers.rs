//! wget's `--warc-file` crawl, warcprox's recording of curl's fetches (revisits included) and
//! `wacz create` of the wget WARC: every record our reader yields is the record `warcio index`
//! lists, at the same offset and length, and no digest fails.

use std::path::Path;
use std::process::Command;

use integration_tests::crawl::{wacz_create, warcprox_crawl, wget_crawl, CrawlSite, EXAMPLE_PATHS};
use integration_tests::{venv_tool, TestSite};
use modoai_archive::any::{
    DigestCheck, Found, Input, ListOptions, ReadOptions, Record, RecordKind, Records,
    RevisitProfile, Source,
};

/// One record as `warcio index` names it: type, target URI, offset, length.
type Entry = (String, Option<String>, u64, u64);

/// Every record of `source`; panics on a skip (a real producer's file is whole).
fn read_all(source: &Source) -> Vec<Record> {
    Records::open(source, ReadOptions::default())
        .unwrap()
        .map(|found| match found {
            Found::Record(r) => *r,
            Found::Skipped(s) => panic!("{}: skipped {s:?}", source.path.display()),
        })
        .collect()
}

/// `warcio index` of a file.
fn warcio_index(path: &Path) -> Vec<Entry> {
    let out = Command::new(venv_tool("warcio"))
        .args(["index", "-f", "warc-type,warc-target-uri,offset,length"])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
            let n = |k: &str| s(k).unwrap().parse::<u64>().unwrap();
            (
                s("warc-type").unwrap(),
                s("warc-target-uri"),
                n("offset"),
                n("length"),
            )
        })
        .collect()
}

/// Our records as `warcio index` lists them.
fn as_index(records: &[Record]) -> Vec<Entry> {
    records
        .iter()
        .map(|r| {
            (
                r.kind.as_str().to_owned(),
                r.fields
                    .target_uri
                    .clone()
                    .filter(|_| r.kind != RecordKind::Warcinfo),
                r.location.offset,
                r.location.length,
            )
        })
        .collect()
}

/// The target URIs of the `response` records of an index.
fn responses(index: &[Entry]) -> Vec<String> {
    index
        .iter()
        .filter(|e| e.0 == "response")
        .map(|e| e.1.clone().unwrap())
        .collect()
}

/// Reads `warc` whole, checks it against `warcio index`, every digest that was checked passed,
/// and returns its records.
fn read_like_warcio(warc: &Path) -> Vec<Record> {
    let records = read_all(&Source::file(warc));
    let ours = as_index(&records);
    let theirs = warcio_index(warc);
    assert_eq!(responses(&ours), responses(&theirs), "{}", warc.display());
    assert_eq!(ours, theirs, "{}", warc.display());
    for r in &records {
        assert!(!r.block_digest.is_failed(), "{:?}", r.fields.target_uri);
        assert!(!r.payload_digest.is_failed(), "{:?}", r.fields.target_uri);
        if r.kind == RecordKind::Response {
            assert_eq!(
                r.payload_digest,
                DigestCheck::Passed,
                "{:?}",
                r.fields.target_uri
            );
        }
    }
    records
}

#[test]
fn wgets_crawl_of_the_example_site_is_read_record_for_record() {
    let site_files = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let site = CrawlSite::serve(site_files.path(), work.path());
    let warc = wget_crawl(&site, work.path());
    let records = read_like_warcio(&warc);
    let urls = responses(&as_index(&records));
    for path in EXAMPLE_PATHS {
        assert!(urls.contains(&site.url(path)), "{path} not in {urls:?}");
    }
    let kinds: Vec<_> = records.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(kinds[0], "warcinfo");
    assert!(
        kinds.contains(&"request") && kinds.contains(&"metadata") && kinds.contains(&"resource")
    );
}

#[test]
fn warcproxs_recording_of_the_example_site_is_read_with_its_revisit() {
    let site_files = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let site = CrawlSite::serve(site_files.path(), work.path());
    let warcs = warcprox_crawl(&site, work.path());
    assert!(!warcs.is_empty());
    let records: Vec<Record> = warcs.iter().flat_map(|w| read_like_warcio(w)).collect();
    let index = as_index(&records);
    let mut wanted: Vec<String> = EXAMPLE_PATHS[..5].iter().map(|p| site.url(p)).collect();
    let mut urls = responses(&index);
    wanted.sort();
    urls.sort();
    assert_eq!(urls, wanted);
    // The second fetch of about.html has the payload of the first: warcprox wrote a revisit.
    let revisits: Vec<_> = records
        .iter()
        .filter(|r| matches!(r.kind, RecordKind::Revisit(_)))
        .collect();
    assert_eq!(revisits.len(), 1);
    assert_eq!(
        revisits[0].kind,
        RecordKind::Revisit(RevisitProfile::IdenticalPayloadDigest)
    );
    assert_eq!(revisits[0].fields.target_uri, Some(site.url("/about.html")));
    let original = records
        .iter()
        .find(|r| {
            r.kind == RecordKind::Response && r.fields.target_uri == revisits[0].fields.target_uri
        })
        .unwrap();
    assert_eq!(
        revisits[0].fields.payload_digest,
        original.fields.payload_digest
    );
}

#[test]
fn a_wacz_that_wacz_create_made_of_wgets_crawl_is_read_in_place() {
    let site_files = TestSite::example();
    let work = tempfile::tempdir().unwrap();
    let site = CrawlSite::serve(site_files.path(), work.path());
    let warc = wget_crawl(&site, work.path());
    let package = wacz_create(&warc, &work.path().join("wget.wacz"));
    let input = Input::detect(&package).unwrap();
    assert_eq!(input, Input::Wacz(package.clone()));
    let listing = input.list(&ListOptions::default()).unwrap();
    assert_eq!(listing.ready.len(), 1);
    let source = &listing.ready[0];
    assert_eq!(source.name(), "wget.warc.gz");
    let records = read_all(source);
    assert_eq!(as_index(&records), warcio_index(&warc));
    assert!(records.iter().all(|r| !r.payload_digest.is_failed()));
}

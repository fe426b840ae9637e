//! Inputs: what a path is, the files of a folder (recursively, `.open` and growing files left
//! for later), and a WACZ made by `wacz create` read in place, stored or deflated.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use modoai_archive::any::{open, Input, InputError, ListOptions, WaitReason};

use super::read_all;
use super::written::cases;

fn venv(tool: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../.venv/bin")
        .join(tool)
}

#[test]
fn a_wacz_is_read_in_place_stored_or_deflated() {
    let (_dir, dir) = cases();
    let warc = dir.join("records.warc.gz");
    let wacz = dir.join("records.wacz");
    let status = Command::new(venv("wacz"))
        .args(["create", "-o"])
        .arg(&wacz)
        .arg(&warc)
        .status()
        .unwrap();
    assert!(status.success(), "wacz create failed; run scripts/setup");
    // The same package with its WARC entry deflated, as a ZIP tool might repack it.
    let deflated = dir.join("deflated.wacz");
    let repack = "import sys, zipfile\n\
        src, dst = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED)\n\
        [dst.writestr(i.filename, src.read(i)) for i in src.infolist()]\n\
        dst.close()";
    let python = crate::support::venv_python("zipfile");
    let status = Command::new(python)
        .args(["-c", repack])
        .arg(&wacz)
        .arg(&deflated)
        .status()
        .unwrap();
    assert!(status.success());
    let (direct, _) = read_all(&warc);
    for (package, is_deflated) in [(&wacz, false), (&deflated, true)] {
        let input = Input::detect(package).unwrap();
        assert_eq!(input, Input::Wacz(package.clone()));
        let listing = input.list(&ListOptions::default()).unwrap();
        assert_eq!(listing.ready.len(), 1);
        let source = &listing.ready[0];
        let entry = source.entry.as_ref().unwrap();
        assert_eq!(
            (entry.name.as_str(), entry.deflated),
            ("archive/records.warc.gz", is_deflated)
        );
        assert_eq!(source.name(), "records.warc.gz");
        let records: Vec<_> = modoai_archive::any::Records::open(source, Default::default())
            .unwrap()
            .map(|f| match f {
                modoai_archive::any::Found::Record(r) => *r,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(records.len(), direct.len());
        for (r, d) in records.iter().zip(&direct) {
            assert_eq!(
                (r.location.offset, r.location.length),
                (d.location.offset, d.location.length)
            );
            assert_eq!((&r.fields, &r.block), (&d.fields, &d.block));
            let mut block = Vec::new();
            std::io::copy(&mut open(&r.location).unwrap().block(), &mut block).unwrap();
            assert_eq!(block, d.block);
        }
    }
}

#[test]
fn inputs_are_told_apart_and_growing_files_wait() {
    let (_dir, dir) = cases();
    let crawl = dir.join("crawl");
    std::fs::create_dir_all(crawl.join("a/b")).unwrap();
    std::fs::copy(dir.join("records.warc.gz"), crawl.join("a/b/one.warc.gz")).unwrap();
    std::fs::copy(dir.join("plain-1.0.warc"), crawl.join("two.warc")).unwrap();
    std::fs::copy(dir.join("plain-1.0.warc"), crawl.join("three.warc.gz.open")).unwrap();
    std::fs::write(crawl.join("notes.txt"), "not an archive").unwrap();
    let input = Input::detect(&crawl).unwrap();
    assert_eq!(input, Input::Folder(crawl.clone()));
    assert_eq!(input.name(), "crawl");
    let settled = ListOptions::default();
    // Files written a moment ago are still growing by the default rule.
    let listing = input.list(&settled).unwrap();
    assert!(listing.ready.is_empty());
    assert_eq!(listing.waiting.len(), 3);
    assert!(listing.waiting.iter().any(|w| w.reason == WaitReason::Open));
    let mut now = settled;
    now.settle = Duration::ZERO;
    let listing = input.list(&now).unwrap();
    let names: Vec<_> = listing.ready.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["one.warc.gz", "two.warc"]);
    assert_eq!(listing.waiting.len(), 1);

    assert_eq!(
        Input::detect(&crawl.join("two.warc")).unwrap(),
        Input::File(crawl.join("two.warc"))
    );
    let err = Input::detect(&crawl.join("notes.txt")).unwrap_err();
    assert!(matches!(err, InputError::NotAnInput { .. }));
    assert!(
        err.to_string().contains("expected a modoai archive"),
        "{err}"
    );
    std::fs::write(crawl.join("ledger.jsonl"), "").unwrap();
    assert_eq!(
        Input::detect(&crawl).unwrap(),
        Input::Archive(crawl.clone())
    );
    assert!(Input::detect(&crawl.join("missing")).is_err());
}

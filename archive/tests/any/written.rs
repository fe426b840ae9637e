//! warcio-written files of every case (`cases.py`): chunked transfer-coding, gzip and br
//! content-coding, both revisit profiles of WARC 1.0 and 1.1, URL-agnostic revisits, WARC 1.0 and
//! 1.1, uncompressed, one gzip stream, `WARC-Truncated`, a changed byte, garbage and a damaged
//! gzip member.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use modoai_archive::any::{
    open, BodyLimits, DigestCheck, Format, Framing, Record, RecordKind, RevisitProfile, SkipReason,
    Summary, Truncation,
};

use super::{as_index, read_all, warcio_index};

/// The HTML every response of `cases.py` carries.
fn html() -> Vec<u8> {
    b"<html><head><title>Hello</title></head><body>Hello archived world</body></html>\n".repeat(40)
}

/// Writes the cases into a fresh folder.
pub(super) fn cases() -> (tempfile::TempDir, PathBuf) {
    let python = crate::support::venv_python("warcio, brotli");
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/any/cases.py");
    let status = Command::new(python)
        .arg(script)
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let path = dir.path().to_owned();
    (dir, path)
}

fn ids(records: &[Record]) -> BTreeSet<String> {
    records
        .iter()
        .filter_map(|r| r.fields.record_id.clone())
        .collect()
}

#[test]
fn chunked_and_content_coded_bodies_decode_and_digests_pass_either_way() {
    let (_dir, dir) = cases();
    let (chunked, _) = read_all(&dir.join("chunked.warc"));
    let checks: Vec<_> = chunked.iter().map(|r| r.payload_digest.clone()).collect();
    assert_eq!(checks, [DigestCheck::Passed, DigestCheck::PassedDechunked]);
    let (coded, skips) = read_all(&dir.join("codings.warc.gz"));
    assert!(skips.is_empty());
    assert_eq!(coded.len(), 3);
    for r in chunked.iter().chain(&coded) {
        let body = r.body(&BodyLimits::default());
        assert_eq!(
            (body.bytes, body.error),
            (html(), None),
            "{:?}",
            r.fields.target_uri
        );
        assert_eq!(r.block_digest, DigestCheck::Passed);
        let mut streamed = Vec::new();
        let reader = open(&r.location)
            .unwrap()
            .body(&BodyLimits::default())
            .unwrap();
        std::io::copy(&mut { reader }, &mut streamed).unwrap();
        assert_eq!(streamed, html());
    }
    assert_eq!(coded[2].http.as_ref().unwrap().content_codings(), ["br"]);
    assert_eq!(coded[0].mime().as_deref(), Some("text/html"));
    assert_eq!(coded[0].format, Format::Warc("1.1".into()));
}

#[test]
fn revisits_of_both_profiles_and_versions() {
    let (_dir, dir) = cases();
    for version in ["1.0", "1.1"] {
        let (records, _) = read_all(&dir.join(format!("revisits-{version}.warc.gz")));
        let original = &records[0];
        let identical = RecordKind::Revisit(RevisitProfile::IdenticalPayloadDigest);
        let not_modified = RecordKind::Revisit(RevisitProfile::ServerNotModified);
        let kinds: Vec<_> = records.iter().map(|r| r.kind.clone()).collect();
        assert_eq!(
            kinds,
            [
                RecordKind::Response,
                identical.clone(),
                identical,
                not_modified
            ]
        );
        assert!(records[1]
            .fields
            .profile
            .as_ref()
            .unwrap()
            .contains(&format!("/{version}/")));
        for r in &records[1..] {
            assert_eq!(r.payload_digest, DigestCheck::NotChecked);
            assert_eq!(r.fields.payload_digest, original.fields.payload_digest);
            assert_eq!(r.fields.refers_to_date, original.fields.date);
            assert_eq!(
                r.fields.refers_to_target_uri.as_deref(),
                Some("http://example.org/page")
            );
            assert_eq!(r.mime().as_deref(), Some("warc/revisit"));
            assert!(r.payload_sha1.is_none());
        }
        // URL-agnostic: the original is at another URL.
        assert_eq!(
            records[2].fields.target_uri.as_deref(),
            Some("http://example.org/other-url")
        );
        assert_eq!(records[3].http.as_ref().unwrap().status, 304);
    }
}

#[test]
fn plain_gzipped_and_one_stream_files_of_both_versions() {
    let (_dir, dir) = cases();
    for name in ["plain-1.0.warc", "plain-1.1.warc", "records.warc.gz"] {
        let path = dir.join(name);
        let (records, skips) = read_all(&path);
        assert!(skips.is_empty(), "{name}: {skips:?}");
        assert_eq!(as_index(&records), warcio_index(&path), "{name}");
        let info = records[0].warcinfo.as_ref().unwrap();
        assert_eq!(info.operator.as_deref(), Some("modoai tests"));
        assert_eq!(info.is_part_of.as_deref(), Some("cases"));
        assert!(info.software.as_ref().unwrap().starts_with("warcio"));
        for r in &records {
            assert!(matches!(r.block_digest, DigestCheck::Passed), "{name}");
            assert!(!r.payload_digest.is_failed() && r.trailer, "{name}");
        }
        let mut summary = Summary::default();
        records.iter().for_each(|r| summary.add_record(r));
        assert_eq!(summary.records["response"], 12);
        assert_eq!(summary.records["resource"], 12);
        assert_eq!(summary.digest_mismatches, 0);
    }
    let (plain, _) = read_all(&dir.join("plain-1.1.warc"));
    let (whole, skips) = read_all(&dir.join("whole.warc.gz"));
    assert!(skips.is_empty());
    assert_eq!(whole.len(), plain.len());
    for (w, p) in whole.iter().zip(&plain) {
        let skip = p.location.offset;
        assert_eq!(
            (w.location.offset, w.location.framing),
            (0, Framing::GzipStream { skip })
        );
        assert_eq!((&w.fields, &w.block), (&p.fields, &p.block));
        let mut block = Vec::new();
        std::io::copy(&mut open(&w.location).unwrap().block(), &mut block).unwrap();
        assert_eq!(block, p.block);
    }
}

#[test]
fn truncated_changed_and_damaged_files_are_reported_not_fatal() {
    let (_dir, dir) = cases();
    let (truncated, _) = read_all(&dir.join("truncated.warc.gz"));
    assert_eq!(
        truncated[0].truncated,
        Some(Truncation::Declared("length".into()))
    );

    let (changed, _) = read_all(&dir.join("mismatch.warc"));
    let mut summary = Summary::default();
    changed.iter().for_each(|r| summary.add_record(r));
    assert_eq!(summary.digest_mismatches, 1);
    assert!(changed[1].block_digest.is_failed() && changed[1].payload_digest.is_failed());

    let (plain, _) = read_all(&dir.join("plain-1.0.warc"));
    let (garbage, skips) = read_all(&dir.join("garbage.warc"));
    assert_eq!(ids(&garbage), ids(&plain));
    assert_eq!(skips.len(), 1);
    assert_eq!(skips[0].reason, SkipReason::Garbage);

    let (gzipped, _) = read_all(&dir.join("records.warc.gz"));
    let (garbage, skips) = read_all(&dir.join("garbage.warc.gz"));
    assert_eq!(ids(&garbage), ids(&gzipped));
    assert!(
        matches!(&skips[..], [s] if matches!(s.reason, SkipReason::Gzip(_))),
        "{skips:?}"
    );

    // The damaged member held one record; every other one is read.
    let (damaged, skips) = read_all(&dir.join("bad-member.warc.gz"));
    assert_eq!(ids(&damaged).len(), ids(&gzipped).len() - 1);
    assert!(ids(&damaged).is_subset(&ids(&gzipped)));
    assert_eq!(skips.len(), 1, "{skips:?}");
    assert!(skips[0].start < skips[0].end);
}

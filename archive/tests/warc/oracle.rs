//! Files with every record type, checked by warcio and by our own reader.

use std::fs;
use std::io::Write;

use modoai_archive::warc::{
    sha1_digest, RecordRef, WarcFields, Writer, WriterConfig, EMPTY_SHA1, IDENTICAL_PAYLOAD_DIGEST,
};
use time::macros::datetime;
use time::OffsetDateTime;

use super::{
    gunzip_all, is_stored, parse_member, random_bytes, warcio_check, warcio_index, warcio_payload,
};

const DATE: OffsetDateTime = datetime!(2024-05-01 12:00:00 UTC);

#[test]
fn every_record_type_passes_warcio() {
    let dir = tempfile::tempdir().unwrap();
    let config = WriterConfig::new(dir.path(), "test")
        .host("h")
        .spool_threshold(4096);
    let mut w = Writer::new(config);
    let all_bytes: Vec<u8> = (0..=255u8).cycle().take(256 * 3).collect();
    let jpeg = random_bytes(1, 100_000);
    let mut payloads: Vec<(RecordRef, Vec<u8>, bool)> = Vec::new();
    for (uri, ct, data, stored) in [
        (
            "http://example.org/hello.txt",
            "text/plain",
            b"hello\n".to_vec(),
            false,
        ),
        (
            "http://example.org/empty",
            "application/xml",
            Vec::new(),
            false,
        ),
        (
            "http://example.org/bytes",
            "application/octet-stream",
            all_bytes,
            false,
        ),
        ("http://example.org/a.jpg", "image/jpeg", jpeg, true),
    ] {
        let r = w
            .write_resource(uri, ct, DATE, &[("X-Test", "1")], &data[..])
            .unwrap();
        assert_eq!(r.payload_digest, sha1_digest(&data));
        payloads.push((r, data, stored));
    }
    let mut sink = w.begin_payload();
    let chunked = random_bytes(2, 10_000);
    for chunk in chunked.chunks(999) {
        sink.write_all(chunk).unwrap();
    }
    assert!(sink.is_on_disk());
    let r = w
        .finish_payload("urn:x:chunked", "application/pdf", DATE, &[], sink)
        .unwrap();
    payloads.push((r, chunked, true));

    let mut fields = WarcFields::new();
    fields
        .field("via", "http://example.org/oai?verb=GetRecord")
        .unwrap();
    fields.field("oai-identifier", "oai:example.org:1").unwrap();
    let described = &payloads[0].0;
    let meta = w.write_metadata(described, &fields, &[]).unwrap();
    let revisit = w
        .write_revisit("http://example.org/copy.txt", DATE, described, &[])
        .unwrap();
    let files = w.close().unwrap();
    assert_eq!(files.len(), 1);
    let path = &files[0];
    assert!(!dir
        .path()
        .join(format!("{}.open", described.file_name))
        .exists());
    assert_eq!(
        path.file_name().unwrap().to_str().unwrap(),
        described.file_name
    );

    let out = warcio_check(path);
    assert_eq!(out.matches("digest pass").count(), 1 + 5 + 1, "{out}");

    let index = warcio_index(path);
    let mut ours: Vec<&RecordRef> = payloads.iter().map(|p| &p.0).collect();
    ours.extend([&meta, &revisit]);
    assert_eq!(index.len(), ours.len() + 1);
    assert_eq!(index[0].0, "warcinfo");
    assert_eq!(index[0].2, 0);
    for (row, r) in index[1..].iter().zip(&ours) {
        assert_eq!(
            (row.1.as_ref(), row.2, row.3),
            (r.target_uri.as_ref(), r.offset, r.length)
        );
    }
    let types: Vec<&str> = index.iter().map(|r| r.0.as_str()).collect();
    let want = [
        "warcinfo", "resource", "resource", "resource", "resource", "resource",
    ];
    assert_eq!(types[..6], want);
    assert_eq!(types[6..], ["metadata", "revisit"]);

    let bytes = fs::read(path).unwrap();
    assert_eq!(bytes.len() as u64, revisit.offset + revisit.length);
    for (r, data, stored) in &payloads {
        assert_eq!(&warcio_payload(path, r.offset), data, "{:?}", r.target_uri);
        assert_eq!(is_stored(&bytes, r.offset), *stored, "{:?}", r.target_uri);
        let rec = parse_member(&bytes, r.offset, r.length);
        assert_eq!(&rec.block, data);
        assert_eq!(
            rec.get("WARC-Payload-Digest"),
            Some(r.payload_digest.as_str())
        );
        assert_eq!(
            rec.get("WARC-Block-Digest"),
            Some(r.payload_digest.as_str())
        );
        assert_eq!(rec.get("WARC-Record-ID"), Some(r.record_id.as_str()));
        assert_eq!(rec.get("WARC-Date"), Some("2024-05-01T12:00:00Z"));
        assert_eq!(rec.get("WARC-Refers-To"), None);
    }
    check_warcinfo(&bytes, index[0].3, &described.file_name);
    check_links(&bytes, described, &meta, &revisit, &fields);
    assert!(gunzip_all(path).starts_with(b"WARC/1.1\r\nWARC-Type: warcinfo\r\n"));
}

fn check_warcinfo(bytes: &[u8], length: u64, file_name: &str) {
    let info = parse_member(bytes, 0, length);
    assert_eq!(info.get("WARC-Filename"), Some(file_name));
    assert_eq!(info.get("Content-Type"), Some("application/warc-fields"));
    assert_eq!(info.get("WARC-Target-URI"), None);
    assert_eq!(info.get("WARC-Payload-Digest"), None);
    let text = String::from_utf8(info.block).unwrap();
    assert!(text.contains("format: WARC File Format 1.1\r\n"), "{text}");
}

fn check_links(bytes: &[u8], res: &RecordRef, meta: &RecordRef, rev: &RecordRef, f: &WarcFields) {
    let resource = parse_member(bytes, res.offset, res.length);
    let info_id = resource.get("WARC-Warcinfo-ID").unwrap().to_owned();
    let m = parse_member(bytes, meta.offset, meta.length);
    assert_eq!(m.block, f.as_bytes());
    assert_eq!(m.get("WARC-Refers-To"), Some(res.record_id.as_str()));
    assert_eq!(m.get("WARC-Concurrent-To"), Some(res.record_id.as_str()));
    assert_eq!(m.get("WARC-Target-URI"), res.target_uri.as_deref());
    assert_eq!(m.get("Content-Type"), Some("application/warc-fields"));
    assert_eq!(m.get("WARC-Payload-Digest"), None);
    assert_eq!(m.get("WARC-Warcinfo-ID"), Some(info_id.as_str()));
    let r = parse_member(bytes, rev.offset, rev.length);
    assert!(r.block.is_empty());
    assert_eq!(r.get("WARC-Profile"), Some(IDENTICAL_PAYLOAD_DIGEST));
    assert_eq!(r.get("WARC-Refers-To"), Some(res.record_id.as_str()));
    assert_eq!(
        r.get("WARC-Refers-To-Target-URI"),
        res.target_uri.as_deref()
    );
    assert_eq!(r.get("WARC-Refers-To-Date"), Some("2024-05-01T12:00:00Z"));
    assert_eq!(
        r.get("WARC-Payload-Digest"),
        Some(res.payload_digest.as_str())
    );
    assert_eq!(r.get("WARC-Block-Digest"), Some(EMPTY_SHA1));
    assert_eq!(rev.payload_digest, res.payload_digest);
}

#[test]
fn spooled_50_mb_payload() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::new(WriterConfig::new(dir.path(), "big"));
    let data = random_bytes(3, 50_000_000);
    let mut sink = w.begin_payload();
    for chunk in data.chunks(48 * 1024) {
        sink.write_all(chunk).unwrap();
    }
    assert!(sink.is_on_disk());
    let r = w
        .finish_payload("urn:x:big", "application/zip", DATE, &[], sink)
        .unwrap();
    let path = w.close().unwrap().remove(0);
    warcio_check(&path);
    let index = warcio_index(&path);
    assert_eq!((index[1].2, index[1].3), (r.offset, r.length));
    assert!(
        warcio_payload(&path, r.offset) == data,
        "extracted payload differs"
    );
    let spill: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(spill.len(), 1, "the spool file is gone");
}

#[test]
fn rotation_sync_and_open_suffix() {
    let dir = tempfile::tempdir().unwrap();
    let config = WriterConfig::new(dir.path(), "rot")
        .host("h")
        .max_file_size(15_000);
    let mut w = Writer::new(config);
    assert_eq!(w.sync().unwrap(), None);
    let mut refs = Vec::new();
    for i in 0..12u64 {
        let data = random_bytes(i, 6_000);
        let r = w
            .write_resource("urn:x:r", "image/png", DATE, &[], &data[..])
            .unwrap();
        let pos = w.sync().unwrap().unwrap();
        assert_eq!(pos.file_name, r.file_name);
        assert_eq!(pos.offset, r.offset + r.length);
        let open = dir.path().join(format!("{}.open", r.file_name));
        assert_eq!(fs::metadata(&open).unwrap().len(), pos.offset);
        refs.push(r);
    }
    let files = w.close().unwrap();
    assert_eq!(files.len(), 4, "3 records of ~6 KB per 15 KB file");
    for (i, path) in files.iter().enumerate() {
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with("rot-") && name.ends_with(&format!("-{i:05}-h.warc.gz")));
        assert_eq!(name.len(), "rot-".len() + 17 + "-00000-h.warc.gz".len());
        let index = warcio_index(path);
        assert_eq!(index[0].0, "warcinfo");
        let mine: Vec<_> = refs.iter().filter(|r| r.file_name == name).collect();
        assert_eq!(mine.len(), 3);
        for (row, r) in index[1..].iter().zip(mine) {
            assert_eq!((row.2, row.3), (r.offset, r.length));
        }
    }
    warcio_check(&files[3]);
    let left: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(left.len(), 4, "no .open file left: {left:?}");
}

#[test]
fn bad_headers_and_failing_payloads_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::new(WriterConfig::new(dir.path(), "bad"));
    let first = w
        .write_resource("urn:x:a", "text/plain", DATE, &[], &b"a"[..])
        .unwrap();
    let end = w.sync().unwrap().unwrap().offset;
    let bad: [&[(&str, &str)]; 3] = [
        &[("X-Evil", "a\r\nWARC-Type: response")],
        &[("Bad Name", "v")],
        &[("Content-Length", "1")],
    ];
    for extra in bad {
        let err = w.write_resource("urn:x:b", "text/plain", DATE, extra, &b"b"[..]);
        assert_eq!(err.unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
    }
    let err = w.write_resource("urn:x:\n", "text/plain", DATE, &[], &b"b"[..]);
    assert!(err.is_err());
    let failing = std::io::Read::chain(&b"partial"[..], Failing);
    assert!(w
        .write_resource("urn:x:c", "text/plain", DATE, &[], failing)
        .is_err());
    assert_eq!(w.sync().unwrap().unwrap().offset, end);
    let path = w.close().unwrap().remove(0);
    assert_eq!(warcio_index(&path).len(), 2);
    assert_eq!(first.offset + first.length, end);
}

struct Failing;

impl std::io::Read for Failing {
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        Err(std::io::Error::other("connection reset"))
    }
}

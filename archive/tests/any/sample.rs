//! pywb's sample archive: every record warcio finds, at the same offsets and lengths, and the
//! URL, timestamp, status, digest and MIME type its CDX indexes give; the bad files reported.

use std::collections::HashMap;
use std::fs;

use modoai_archive::any::{open, Digest, DigestCheck, Framing, RecordKind, SkipReason};

use super::{as_index, read_all, sample_archive, warcio_index};

/// One CDX line's fields, by name.
type Line = HashMap<String, String>;

/// The lines of every CDX and CDXJ index of the sample archive, by file name.
fn cdx_lines() -> HashMap<String, Vec<Line>> {
    let dir = sample_archive();
    let mut by_file: HashMap<String, Vec<Line>> = HashMap::new();
    for sub in ["cdx", "cdxj"] {
        for entry in fs::read_dir(dir.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            // bad.cdx points at files that do not exist and digests that are wrong on purpose.
            if name == "bad.cdx" || !(name.ends_with(".cdx") || name.ends_with(".cdxj")) {
                continue;
            }
            for line in fs::read_to_string(&path).unwrap().lines() {
                if let Some(l) = parse_line(line) {
                    by_file.entry(l["filename"].clone()).or_default().push(l);
                }
            }
        }
    }
    by_file
}

fn parse_line(line: &str) -> Option<Line> {
    if line.starts_with(' ') || line.is_empty() {
        return None;
    }
    let mut parts = line.splitn(3, ' ');
    let (_key, stamp, rest) = (parts.next()?, parts.next()?, parts.next()?);
    let mut l = Line::new();
    l.insert("timestamp".into(), stamp.to_owned());
    if rest.starts_with('{') {
        let v: serde_json::Map<String, serde_json::Value> = serde_json::from_str(rest).unwrap();
        for (k, v) in v {
            l.insert(k, v.as_str().unwrap_or_default().to_owned());
        }
    } else {
        // CDX N b a m s k r M S V g: original, mime, status, digest, redirect, meta, length, offset, file.
        let f: Vec<&str> = rest.split(' ').collect();
        let names = [
            "url", "mime", "status", "digest", "", "", "length", "offset", "filename",
        ];
        for (name, value) in names.iter().zip(f) {
            if !name.is_empty() && value != "-" {
                l.insert((*name).into(), value.to_owned());
            }
        }
    }
    Some(l)
}

/// Every file but the bad ones: warcio's records at warcio's offsets and lengths, and the CDX
/// lines of the file matched by offset.
#[test]
fn sample_files_agree_with_warcio_and_pywb_indexes() {
    let dir = sample_archive().join("warcs");
    let cdx = cdx_lines();
    let mut checked_lines = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "bad.arc" || name.ends_with(".bad") {
            continue;
        }
        let (records, skips) = read_all(&path);
        let (mut ours, mut theirs) = (as_index(&records), warcio_index(&path));
        if name.ends_with(".arc") {
            // warcio counts one byte more for the `filedesc://` record of a plain ARC file,
            // the first of the two line ends after its block.
            (ours[0].3, theirs[0].3) = (0, 0);
        }
        assert_eq!(ours, theirs, "{name}");
        for line in cdx.get(&name).into_iter().flatten() {
            let offset: u64 = line["offset"].parse().unwrap();
            let r = records
                .iter()
                .find(|r| r.location.offset == offset)
                .unwrap_or_else(|| panic!("{name}: no record at {offset}"));
            check_line(&name, r, line);
            checked_lines += 1;
        }
        // Only example.warc has bytes between records (a Content-Length three bytes short).
        match name.as_str() {
            "example.warc" => assert_eq!(skips.len(), 1, "{skips:?}"),
            _ => assert!(skips.is_empty(), "{name}: {skips:?}"),
        }
        let failed: Vec<(u64, &str)> = records
            .iter()
            .flat_map(|r| {
                let o = r.location.offset;
                [
                    r.block_digest.is_failed().then_some((o, "block")),
                    r.payload_digest.is_failed().then_some((o, "payload")),
                ]
            })
            .flatten()
            .collect();
        assert_eq!(failed, warcio_failures(&path), "{name}");
        records.iter().for_each(reopen_agrees);
    }
    assert!(checked_lines > 40, "{checked_lines} CDX lines checked");
}

/// The digests `warcio check -v` finds failed: (record offset, `block` or `payload`).
fn warcio_failures(path: &std::path::Path) -> Vec<(u64, &'static str)> {
    let warcio = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/warcio");
    let out = std::process::Command::new(warcio)
        .args(["check", "-v"])
        .arg(path)
        .output()
        .unwrap();
    let mut failed = Vec::new();
    let mut offset = 0;
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("offset ") {
            offset = rest.split(' ').next().unwrap().parse().unwrap();
        } else if line.starts_with("block digest failed") {
            failed.push((offset, "block"));
        } else if line.starts_with("payload digest failed") {
            failed.push((offset, "payload"));
        }
    }
    failed
}

fn check_line(name: &str, r: &modoai_archive::any::Record, line: &HashMap<String, String>) {
    let at = format!("{name} at {}", r.location.offset);
    assert_eq!(r.location.length.to_string(), line["length"], "{at}");
    assert_eq!(
        r.fields.target_uri.as_deref(),
        Some(line["url"].as_str()),
        "{at}"
    );
    let stamp = r.fields.date.unwrap();
    let ours = format!(
        "{:04}{:02}{:02}{:02}{:02}{:02}",
        stamp.year(),
        u8::from(stamp.month()),
        stamp.day(),
        stamp.hour(),
        stamp.minute(),
        stamp.second()
    );
    assert_eq!(ours, line["timestamp"], "{at}");
    if let Some(status) = line.get("status") {
        let ours = r.http.as_ref().map(|h| h.status.to_string());
        assert_eq!(ours.as_ref(), Some(status), "{at}");
    }
    if let Some(mime) = line.get("mime").filter(|m| *m != "unk") {
        assert_eq!(r.mime().as_deref(), Some(mime.as_str()), "{at}");
    }
    if let Some(digest) = line.get("digest") {
        let want = Digest::parse(digest).value;
        let declared = r.fields.payload_digest.as_ref().map(|d| d.value.clone());
        let computed = r.payload_sha1.as_deref().map(|d| Digest::parse(d).value);
        assert!(
            declared.as_ref() == Some(&want) || computed.as_ref() == Some(&want),
            "{at}: {digest} against {declared:?} / {computed:?}"
        );
    }
}

/// `open(location)` gives the same record again.
fn reopen_agrees(r: &modoai_archive::any::Record) {
    use std::io::Read;
    let opened = open(&r.location).unwrap();
    assert_eq!(opened.kind, r.kind);
    assert_eq!(opened.fields, r.fields);
    assert_eq!(opened.http, r.http);
    let mut block = Vec::new();
    opened.block().read_to_end(&mut block).unwrap();
    assert_eq!(block.len() as u64, r.block_len);
    assert!(block.starts_with(&r.block));
}

/// `example-bad.warc.gz.bad` is example.warc compressed as one gzip stream: the same records,
/// located inside the stream at example.warc's offsets, and read again from there.
#[test]
fn one_gzip_stream_is_read_with_offsets_in_the_stream() {
    let dir = sample_archive().join("warcs");
    let (plain, _) = read_all(&dir.join("example.warc"));
    let (stream, skips) = read_all(&dir.join("example-bad.warc.gz.bad"));
    // The compressed copy has the Content-Length that example.warc gets three bytes short.
    assert!(skips.is_empty(), "{skips:?}");
    assert_eq!(stream.len(), plain.len());
    for (s, p) in stream.iter().zip(&plain) {
        assert_eq!(s.location.offset, 0);
        assert_eq!(
            s.location.framing,
            Framing::GzipStream {
                skip: p.location.offset
            }
        );
        assert_eq!(
            (&s.fields.record_id, &s.http),
            (&p.fields.record_id, &p.http)
        );
        reopen_agrees(s);
    }
}

/// `bad.arc`: a header record and two records with lengths that are not numbers are reported;
/// the one good record between them is read.
#[test]
fn bad_arc_reports_and_goes_on() {
    let (records, skips) = read_all(&sample_archive().join("warcs/bad.arc"));
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].kind, RecordKind::Response);
    assert_eq!(records[0].block_len, 1);
    assert!(!skips.is_empty());
    assert!(skips
        .iter()
        .all(|s| matches!(s.reason, SkipReason::Garbage | SkipReason::Head(_))));
    assert_eq!(records[0].payload_digest, DigestCheck::Absent);
}

//! Ingest speed of an incompressible payload against `gzip -1` on the same bytes.

use std::fs;
use std::process::{Command, Stdio};
use std::time::Instant;

use modoai_archive::warc::{Writer, WriterConfig};
use time::OffsetDateTime;

use super::{is_stored, random_bytes};

const SIZE: usize = 256 << 20;

fn mb_per_s(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / secs / 1e6
}

/// Prints both figures; no wall-clock assertion (machines differ), only that the record is
/// stored and barely larger than its payload.
#[test]
fn stored_ingest_beats_gzip_1() {
    let dir = tempfile::tempdir().unwrap();
    let data = random_bytes(42, SIZE);
    let raw = dir.path().join("payload.jpg");
    fs::write(&raw, &data).unwrap();

    let mut w = Writer::new(WriterConfig::new(dir.path(), "speed"));
    let start = Instant::now();
    let r = w.write_resource(
        "urn:x:jpg",
        "image/jpeg",
        OffsetDateTime::now_utc(),
        &[],
        &data[..],
    );
    let r = r.unwrap();
    let ingest = start.elapsed().as_secs_f64();
    let path = w.close().unwrap().remove(0);
    let with_fsync = start.elapsed().as_secs_f64();

    let start = Instant::now();
    let status = Command::new("gzip")
        .args(["-1", "-c"])
        .arg(&raw)
        .stdout(Stdio::null())
        .status()
        .expect("gzip runs");
    let gzip = start.elapsed().as_secs_f64();
    assert!(status.success());

    eprintln!(
        "WARC ingest of {} MiB image/jpeg: {:.0} MB/s (write_resource), {:.0} MB/s with close \
         (fsync); gzip -1 on the same bytes: {:.0} MB/s",
        SIZE >> 20,
        mb_per_s(SIZE, ingest),
        mb_per_s(SIZE, with_fsync),
        mb_per_s(SIZE, gzip)
    );
    let bytes = fs::read(&path).unwrap();
    assert!(is_stored(&bytes, r.offset));
    assert!(
        r.length < SIZE as u64 + SIZE as u64 / 100,
        "stored overhead under 1 %"
    );
}

//! A WARC export far larger than what the server may hold: its records stream through, and the
//! server's peak RSS (`VmHWM`) grows by far less than the export weighs.

use std::io::Write;
use std::path::Path;

use integration_tests::http::{read_some, send_get};
use integration_tests::process::vm_hwm;

use super::{work_dir, Explorer};

const MIB: u64 = 1 << 20;
/// Records of the collection, and the payload of each.
const RECORDS: u64 = 16;
const PAYLOAD: u64 = 16 * MIB;
/// What the server's peak RSS may grow by during the export.
const GROWTH_KIB: u64 = 64 * 1024;

/// Writes `big.warc.gz`: [`RECORDS`] `resource` records of [`PAYLOAD`] bytes, one gzip member
/// each, stored rather than deflated (so the file weighs what the export does).
fn write_collection(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let mut file = std::io::BufWriter::new(std::fs::File::create(dir.join("big.warc.gz")).unwrap());
    let block = vec![b'x'; MIB as usize];
    for i in 0..RECORDS {
        let mut gz = flate2::write::GzEncoder::new(&mut file, flate2::Compression::none());
        write!(
            gz,
            "WARC/1.1\r\nWARC-Type: resource\r\n\
             WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{i:012}>\r\n\
             WARC-Date: 2020-01-01T00:00:{i:02}Z\r\n\
             WARC-Target-URI: http://big.example/{i}.bin\r\n\
             Content-Type: application/octet-stream\r\nContent-Length: {PAYLOAD}\r\n\r\n"
        )
        .unwrap();
        for _ in 0..PAYLOAD / MIB {
            gz.write_all(&block).unwrap();
        }
        gz.write_all(b"\r\n\r\n").unwrap();
        gz.finish().unwrap();
    }
    file.flush().unwrap();
}

#[test]
fn a_warc_export_far_larger_than_the_servers_memory_streams_through() {
    let work = work_dir("export-memory");
    let crawl = work.join("big");
    write_collection(&crawl);
    let indexes = work.join("indexes");
    let named = format!("big={}", crawl.display());
    let explorer = Explorer::start_with(
        &[
            "--archive",
            &named,
            "--index-dir",
            indexes.to_str().unwrap(),
            "--settle",
            "0",
        ],
        &work,
        "[access]\nanonymous-api = true\n",
    );
    let total = explorer.get_ready("/api/v1/search?q=", None).json()["total"]
        .as_u64()
        .unwrap();
    assert_eq!(total, RECORDS);
    let before = vm_hwm(explorer.pid()).expect("VmHWM in /proc/PID/status");

    let mut stream = send_get(explorer.port, "/api/v1/export?format=warc", &[]).unwrap();
    let mut buf = vec![0u8; 256 * 1024];
    let mut received = 0u64;
    loop {
        let n = read_some(&mut stream, &mut buf).unwrap();
        if n == 0 {
            break;
        }
        received += n as u64;
    }
    let after = vm_hwm(explorer.pid()).expect("VmHWM in /proc/PID/status");
    assert!(
        received > RECORDS * PAYLOAD,
        "the whole export: {received} bytes"
    );
    assert!(
        after.saturating_sub(before) < GROWTH_KIB,
        "peak RSS grew from {before} KiB to {after} KiB for an export of {} MiB",
        received / MIB
    );
    let _ = std::fs::remove_dir_all(&work);
}

//! Streaming: a GetRecord of a 1 GiB file in oai_didl keeps the server's peak RSS bounded.
//! The server runs as its own process (the `modoai` binary), so its peak RSS is its own.

use std::process::Stdio;
use std::time::{Duration, Instant};

use integration_tests::http::{get, read_some, send_get};
use integration_tests::process::{free_port, modoai, vm_hwm, Running};

const GIB: u64 = 1 << 30;
const LIMIT_KIB: u64 = 64 * 1024;

fn peak_rss_kib(pid: u32) -> u64 {
    vm_hwm(pid).expect("VmHWM in /proc/PID/status")
}

/// Sends a GET and reads the whole response through a small buffer; returns (bytes, tail).
fn fetch(port: u16, target: &str) -> (u64, Vec<u8>) {
    let mut s = send_get(port, target, &[]).expect("the server listens");
    let mut buf = vec![0u8; 256 * 1024];
    let (mut total, mut tail) = (0u64, Vec::new());
    loop {
        let n = read_some(&mut s, &mut buf).unwrap();
        if n == 0 {
            return (total, tail);
        }
        total += n as u64;
        tail.extend_from_slice(&buf[..n]);
        if tail.len() > 4096 {
            tail.drain(..tail.len() - 4096);
        }
    }
}

#[test]
fn getrecord_of_a_1_gib_file_streams_in_bounded_memory() {
    let root = tempfile::tempdir().unwrap();
    let big = std::fs::File::create(root.path().join("big.bin")).unwrap();
    big.set_len(GIB).unwrap(); // sparse: costs no disk
    drop(big);
    let port = free_port();
    let child = modoai()
        .args(["serve", "--root"])
        .arg(root.path())
        .args([
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--inline-max",
            &(2 * GIB).to_string(),
            "--no-watch",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the modoai binary starts");
    let server = Running(child);
    let id = format!("http://127.0.0.1:{port}/big.bin");
    let target = format!("/modoai?verb=GetRecord&metadataPrefix=oai_didl&identifier={id}");
    let started = Instant::now();
    loop {
        if get(port, "/modoai?verb=Identify").starts_with(b"HTTP/1.0 200") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let before = peak_rss_kib(server.0.id());
    let t = Instant::now();
    let (bytes, tail) = fetch(port, &target);
    let secs = t.elapsed().as_secs_f64();
    let peak = peak_rss_kib(server.0.id());
    let base64_len = GIB.div_ceil(3) * 4;
    assert!(
        bytes > base64_len,
        "the whole file came through: {bytes} bytes"
    );
    assert!(
        String::from_utf8_lossy(&tail)
            .trim_end()
            .ends_with("</OAI-PMH>\r\n\r\n0")
            || String::from_utf8_lossy(&tail).contains("</OAI-PMH>"),
        "complete document"
    );
    eprintln!("1 GiB GetRecord oai_didl: {bytes} bytes in {secs:.1} s ({:.0} MB/s); server peak RSS {} KiB (idle {} KiB)", bytes as f64 / secs / 1e6, peak, before);
    assert!(
        peak < LIMIT_KIB,
        "peak RSS {peak} KiB exceeds {LIMIT_KIB} KiB"
    );
}

//! Peak memory of the harvester for a 1 GiB file sent inline (Base64) in one record, and of
//! `profile compact` on a MementoMap profile of 2 million lines.

use std::fs::File;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use integration_tests::process::program;
use integration_tests::{Server, TestSite};

use integration_tests::process::vm_hwm;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_gib_file_is_harvested_in_bounded_memory() {
    const SIZE: u64 = 1 << 30;
    let site = TestSite::empty();
    let path = site.write("big.iso", b"", Some(1_700_000_000));
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(SIZE).unwrap(); // sparse: zeros
    drop(f);
    integration_tests::set_mtime(&path, 1_700_000_000);
    let server = Server::start(site.path(), |c| c.inline_max(2 * SIZE).page_bytes(4 * SIZE)).await;
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("archive");
    let a = archive.to_str().unwrap().to_owned();
    let oai = server.oai.clone();
    let (peak_kib, status) = tokio::task::spawn_blocking(move || {
        let mut child = Command::new(program("modoai-harvester"))
            .args([
                "harvest",
                &oai,
                "--archive",
                &a,
                "--metadata-prefix",
                "oai_didl",
                "--quiet",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut peak = 0;
        loop {
            if let Some(kib) = vm_hwm(child.id()) {
                peak = peak.max(kib);
            }
            if let Some(status) = child.try_wait().unwrap() {
                return (peak, status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    })
    .await
    .unwrap();
    assert!(status.success(), "{status}");
    let entries = super::ledger(&archive);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].bytes, SIZE);
    let digest_of_zeros = {
        use sha1::Digest as _;
        let mut h = sha1::Sha1::new();
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..1024 {
            h.update(&zeros);
        }
        format!("sha1:{}", modoai_archive::warc::base32(&h.finalize()))
    };
    assert_eq!(entries[0].records[0].digest, digest_of_zeros);
    println!(
        "harvester peak RSS for a 1 GiB inline file: {:.1} MiB",
        peak_kib as f64 / 1024.0
    );
    assert!(peak_kib < 64 * 1024, "peak RSS {peak_kib} KiB");
    server.stop().await;
}

#[test]
fn compaction_memory_is_bounded_by_depth_not_size() {
    const LINES: u64 = 2_000_000;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.ukvs");
    let mut w = std::io::BufWriter::new(File::create(&input).unwrap());
    for i in 0..LINES {
        // 2,000 hosts of 1,000 paths in 10 folders: every folder rolls up at factor 1.
        let (host, path) = (i / 1000, i % 1000);
        writeln!(
            w,
            "com,h{host:06})/d{}/p{path:04}.html {}/1",
            path / 100,
            i % 7 + 1
        )
        .unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let output = dir.path().join("small.ukvs");
    let mut child = Command::new(program("modoai-harvester"))
        .args([
            "profile",
            "compact",
            input.to_str().unwrap(),
            output.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = vm_hwm(child.id()) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let size = std::fs::metadata(&input).unwrap().len();
    eprintln!(
        "compacting {LINES} lines ({} MB): peak RSS {} KiB",
        size / 1_000_000,
        peak
    );
    assert!(
        peak > 0 && peak < 32 * 1024,
        "peak RSS {peak} KiB for a {size}-byte input"
    );
    let out = profile_lines(&output);
    assert_eq!(
        out.len(),
        2000 * 10,
        "one roll-up per folder: {:?}",
        &out[..3]
    );
    assert!(out[0].starts_with("com,h000000)/d0/* "), "{}", out[0]);
}

/// The data lines of a profile, without its `!` header lines.
fn profile_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('!'))
        .map(str::to_owned)
        .collect()
}

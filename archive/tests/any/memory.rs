//! A record of 200 MB read in sequence and again by its location, in a child process whose
//! peak RSS stays far below the record's size.

use std::io::Read;
use std::process::Command;

use modoai_archive::any::{open, DigestCheck, Found, ReadOptions, Records, Source};
use modoai_archive::warc::{Writer, WriterConfig};

const PAYLOAD: u64 = 200 << 20;
const CHILD: &str = "MODOAI_ANY_LARGE_RECORD";

/// Pseudo-random bytes that do not compress, so the file holds the whole payload.
struct Noise {
    left: u64,
    state: u64,
}

impl Read for Noise {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (buf.len() as u64).min(self.left) as usize & !7;
        for chunk in buf[..n].chunks_exact_mut(8) {
            self.state = self
                .state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            chunk.copy_from_slice(&self.state.to_le_bytes());
        }
        self.left -= n as u64;
        Ok(n)
    }
}

#[test]
fn a_200_mb_record_is_read_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = Writer::new(WriterConfig::new(dir.path(), "big").host("h"));
    let now = time::OffsetDateTime::now_utc();
    let noise = Noise {
        left: PAYLOAD,
        state: 1,
    };
    writer
        .write_resource("http://example.org/big.jpg", "image/jpeg", now, &[], noise)
        .unwrap();
    let file = writer.close().unwrap().remove(0);
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "any::memory::read_large_record_child",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .env(CHILD, &file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let peak: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("peak-kb "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        peak < 96 * 1024,
        "peak RSS {peak} kB reading a 200 MB record"
    );
}

/// Run by the test above in a process of its own.
#[test]
#[ignore = "run by a_200_mb_record_is_read_in_bounded_memory"]
fn read_large_record_child() {
    let file = std::env::var_os(CHILD).unwrap();
    let source = Source::file(file);
    let mut large = None;
    for found in Records::open(&source, ReadOptions::default()).unwrap() {
        let Found::Record(r) = found else {
            panic!("{found:?}")
        };
        assert!(!r.block_digest.is_failed());
        if r.block_len >= PAYLOAD {
            assert_eq!(r.payload_digest, DigestCheck::Passed);
            assert_eq!(r.block.len(), 1 << 20);
            large = Some(r.location.clone());
        }
    }
    let mut payload = open(&large.unwrap()).unwrap().payload();
    assert_eq!(
        std::io::copy(&mut payload, &mut std::io::sink()).unwrap(),
        PAYLOAD
    );
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let peak = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .unwrap();
    println!("peak-kb {}", peak.trim().trim_end_matches("kB").trim());
}

//! The WARC writer against warcio 1.8.1 (`<repo>/.venv`, installed by `scripts/setup`) and against
//! its own record reader.

use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use flate2::read::MultiGzDecoder;
use rand::{RngCore, SeedableRng};

mod oracle;
mod recovery;
mod throughput;

/// `count` deterministic pseudo-random bytes.
fn random_bytes(seed: u64, count: usize) -> Vec<u8> {
    let mut data = vec![0; count];
    rand::rngs::StdRng::seed_from_u64(seed).fill_bytes(&mut data);
    data
}

fn warcio() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/warcio");
    assert!(
        path.exists(),
        "warcio not found at {}: run scripts/setup to install the test oracles",
        path.display()
    );
    path
}

fn run_warcio(args: &[&str], file: &Path) -> Vec<u8> {
    let out = Command::new(warcio())
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "warcio {args:?} {} failed: {}\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `warcio check -v` passes and verified a digest in every record but revisits.
fn warcio_check(file: &Path) -> String {
    let out = String::from_utf8(run_warcio(&["check", "-v"], file)).unwrap();
    assert!(!out.contains("fail"), "{out}");
    assert!(!out.contains("no digest"), "{out}");
    out
}

/// `warcio index` rows: (warc-type, warc-target-uri, offset, length).
fn warcio_index(file: &Path) -> Vec<(String, Option<String>, u64, u64)> {
    let fields = "warc-type,warc-target-uri,offset,length";
    let out = String::from_utf8(run_warcio(&["index", "-f", fields], file)).unwrap();
    out.lines()
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

fn warcio_payload(file: &Path, offset: u64) -> Vec<u8> {
    let out = Command::new(warcio())
        .args(["extract", "--payload"])
        .arg(file)
        .arg(offset.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// One record read back: its header fields (lower-cased names) and block.
#[derive(Debug)]
struct Parsed {
    fields: HashMap<String, Vec<String>>,
    block: Vec<u8>,
}

impl Parsed {
    fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .get(&name.to_ascii_lowercase())
            .map(|v| v[0].as_str())
    }
}

/// Decodes the gzip member at `offset..offset + length` into one record.
fn parse_member(file: &[u8], offset: u64, length: u64) -> Parsed {
    let member = &file[offset as usize..(offset + length) as usize];
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(member)
        .read_to_end(&mut raw)
        .unwrap();
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = std::str::from_utf8(&raw[..end]).unwrap();
    let mut lines = head.split("\r\n");
    assert_eq!(lines.next(), Some("WARC/1.1"));
    let mut fields: HashMap<String, Vec<String>> = HashMap::new();
    for line in lines {
        let (name, value) = line.split_once(": ").unwrap();
        fields
            .entry(name.to_ascii_lowercase())
            .or_default()
            .push(value.to_owned());
    }
    let block = raw[end + 4..].to_vec();
    let parsed = Parsed { fields, block };
    let len: usize = parsed.get("Content-Length").unwrap().parse().unwrap();
    assert_eq!(parsed.block.len(), len + 4, "block + CRLF CRLF");
    assert!(parsed.block.ends_with(b"\r\n\r\n"));
    Parsed {
        block: parsed.block[..len].to_vec(),
        ..parsed
    }
}

/// Whether the member's first deflate block is stored (BTYPE 00, RFC 1951 §3.2.3); our members
/// have a bare 10-byte gzip header.
fn is_stored(file: &[u8], offset: u64) -> bool {
    file[offset as usize + 10] & 0b110 == 0
}

/// The whole file decodes as a multi-member gzip stream.
fn gunzip_all(path: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    MultiGzDecoder::new(fs::File::open(path).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}

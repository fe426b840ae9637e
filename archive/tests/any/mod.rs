//! The reader of any web archive (`modoai_archive::any`) against pywb's sample archive and its
//! CDX indexes, warcio-written files of every case, damaged files, a WACZ made by `wacz create`,
//! and a record of 200 MB read in bounded memory.

use std::path::{Path, PathBuf};
use std::process::Command;

use modoai_archive::any::{Found, ReadOptions, Record, Records, Skipped, Source};

mod damage;
mod memory;
mod sample;
mod wacz;
mod written;

/// Everything a file yields: its records and its skips.
fn read_all(path: &Path) -> (Vec<Record>, Vec<Skipped>) {
    let source = Source::file(path);
    let mut records = Vec::new();
    let mut skips = Vec::new();
    for found in Records::open(&source, ReadOptions::default()).unwrap() {
        match found {
            Found::Record(r) => records.push(*r),
            Found::Skipped(s) => skips.push(s),
        }
    }
    (records, skips)
}

/// `warcio index` of a file: (type, target URI, offset, length) of every record.
fn warcio_index(path: &Path) -> Vec<(String, Option<String>, u64, u64)> {
    let warcio = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/warcio");
    let out = Command::new(&warcio)
        .args(["index", "-f", "warc-type,warc-target-uri,offset,length"])
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}; run scripts/setup", warcio.display()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
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

/// Our records as warcio indexes them.
fn as_index(records: &[Record]) -> Vec<(String, Option<String>, u64, u64)> {
    records
        .iter()
        .map(|r| {
            let uri = match r.kind.as_str() {
                "warcinfo" => None,
                _ => r.fields.target_uri.clone(),
            };
            (
                r.kind.as_str().to_owned(),
                uri,
                r.location.offset,
                r.location.length,
            )
        })
        .collect()
}

/// pywb's sample archive, installed with pywb in the venv.
fn sample_archive() -> PathBuf {
    let python = crate::support::venv_python("pywb");
    let out = Command::new(python)
        .args(["-c", "import sys; print(sys.prefix)"])
        .output()
        .unwrap();
    let prefix = String::from_utf8(out.stdout).unwrap();
    let dir = Path::new(prefix.trim()).join("sample_archive");
    assert!(
        dir.join("warcs").is_dir(),
        "{} missing; run scripts/setup",
        dir.display()
    );
    dir
}

//! Files cut at many offsets: no panic, and every record that ends before the cut is found
//! whole, in plain, gzip-per-record and one-gzip-stream files.

use std::io::Read;

use flate2::read::GzDecoder;
use modoai_archive::any::{Framing, Record, Truncation};
use rand::{Rng, SeedableRng};

use super::read_all;
use super::written::cases;

/// Where a record's bytes end: in the file, or in the decompressed stream.
fn end(r: &Record) -> u64 {
    match r.location.framing {
        Framing::GzipStream { skip } => skip + r.location.length,
        _ => r.location.offset + r.location.length,
    }
}

/// How many decompressed bytes a cut gzip stream still gives.
fn readable(cut: &[u8]) -> u64 {
    let mut decoder = GzDecoder::new(cut);
    let mut buf = [0u8; 8192];
    let mut total = 0;
    while let Ok(n) = decoder.read(&mut buf) {
        if n == 0 {
            break;
        }
        total += n as u64;
    }
    total
}

#[test]
fn cuts_at_random_offsets_keep_everything_before_them() {
    let (_dir, dir) = cases();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for name in ["plain-1.1.warc", "records.warc.gz", "whole.warc.gz"] {
        let path = dir.join(name);
        let bytes = std::fs::read(&path).unwrap();
        let (full, _) = read_all(&path);
        for _ in 0..60 {
            let cut = rng.random_range(0..bytes.len());
            let cut_path = dir.join(format!("cut-{name}"));
            std::fs::write(&cut_path, &bytes[..cut]).unwrap();
            let limit = match name {
                "whole.warc.gz" => readable(&bytes[..cut]),
                _ => cut as u64,
            };
            let (records, _) = read_all(&cut_path);
            for r in full.iter().filter(|r| end(r) <= limit) {
                let found = records
                    .iter()
                    .find(|f| f.fields.record_id == r.fields.record_id);
                let found =
                    found.unwrap_or_else(|| panic!("{name} cut at {cut}: {:?}", r.location));
                assert_eq!(found.block, r.block, "{name} cut at {cut}");
            }
            for r in &records {
                if r.truncated == Some(Truncation::Cut) {
                    assert!(end(r) > limit || r.block.len() < r.block_len as usize);
                }
            }
        }
    }
}

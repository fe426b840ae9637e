//! `recover` on files cut at random offsets (a crash mid-write), and after a dropped writer.

use std::fs;
use std::path::{Path, PathBuf};

use modoai_archive::warc::{recover, Writer, WriterConfig};
use rand::{Rng, SeedableRng};
use time::OffsetDateTime;

use super::{random_bytes, warcio_check, warcio_index};

/// A closed file with stored and deflated records of various sizes, and its record ends.
fn sample(dir: &Path) -> (PathBuf, Vec<u64>) {
    let mut w = Writer::new(WriterConfig::new(dir, "rec").host("h"));
    let date = OffsetDateTime::now_utc();
    for (i, size) in [0usize, 10, 70_000, 300_000, 5, 150_000]
        .into_iter()
        .enumerate()
    {
        let data = random_bytes(i as u64, size);
        let ct = if i % 2 == 0 {
            "image/gif"
        } else {
            "text/plain"
        };
        w.write_resource("urn:x:r", ct, date, &[], &data[..])
            .unwrap();
    }
    let path = w.close().unwrap().remove(0);
    let ends = warcio_index(&path)
        .iter()
        .map(|row| row.2 + row.3)
        .collect();
    (path, ends)
}

/// Writes the first `cut` bytes of `bytes` as a left-over `.open` file and recovers it.
fn recover_cut(dir: &Path, bytes: &[u8], cut: usize) -> (modoai_archive::warc::Recovered, PathBuf) {
    let open = dir.join("cut.warc.gz.open");
    fs::write(&open, &bytes[..cut]).unwrap();
    let r = recover(&open).unwrap();
    assert!(!open.exists(), "no .open file remains");
    (r, dir.join("cut.warc.gz"))
}

#[test]
fn recover_truncated_at_random_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let (path, ends) = sample(dir.path());
    let bytes = fs::read(&path).unwrap();
    let work = dir.path().join("work");
    fs::create_dir(&work).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut cuts: Vec<usize> = (0..300)
        .map(|_| rng.random_range(0..=bytes.len()))
        .collect();
    for &e in &ends {
        cuts.extend([e as usize - 1, e as usize, e as usize + 1]);
    }
    cuts.retain(|&c| c <= bytes.len());
    for (i, &cut) in cuts.iter().enumerate() {
        let (r, closed) = recover_cut(&work, &bytes, cut);
        let kept = ends.iter().filter(|&&e| e <= cut as u64).count();
        let want = if kept == 0 { 0 } else { ends[kept - 1] };
        assert_eq!((r.records, r.length), (kept, want), "cut at {cut}");
        assert_eq!(r.dropped, cut as u64 - want);
        if kept == 0 {
            assert_eq!(r.path, None);
            assert!(!closed.exists());
        } else {
            assert_eq!(r.path.as_deref(), Some(closed.as_path()));
            assert_eq!(fs::read(&closed).unwrap(), bytes[..want as usize]);
            if i % 60 == 0 {
                warcio_check(&closed);
            }
            fs::remove_file(&closed).unwrap();
        }
    }
}

#[test]
fn recover_stops_at_a_corrupt_member() {
    let dir = tempfile::tempdir().unwrap();
    let (path, ends) = sample(dir.path());
    let mut bytes = fs::read(&path).unwrap();
    let middle = (ends[3] + ends[4]) / 2;
    bytes[middle as usize] ^= 0x55;
    let work = dir.path().join("work");
    fs::create_dir(&work).unwrap();
    let (r, closed) = recover_cut(&work, &bytes, bytes.len());
    assert_eq!((r.records, r.length), (4, ends[3]));
    warcio_check(&closed);
}

#[test]
fn recover_after_a_dropped_writer() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::new(WriterConfig::new(dir.path(), "drop").host("h"));
    let data = random_bytes(9, 2_000_000);
    let date = OffsetDateTime::now_utc();
    let r = w
        .write_resource("urn:x:a", "video/mp4", date, &[], &data[..])
        .unwrap();
    let end = w.sync().unwrap().unwrap();
    drop(w);
    let open = dir.path().join(format!("{}.open", end.file_name));
    assert!(open.exists());
    let rec = recover(&open).unwrap();
    assert_eq!(
        (rec.records, rec.length, rec.dropped),
        (2, r.offset + r.length, 0)
    );
    assert_eq!(rec.path, Some(dir.path().join(&end.file_name)));
    warcio_check(rec.path.as_ref().unwrap());
}

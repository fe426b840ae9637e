//! The package's index in the ZipNum form that both ReplayWeb.page and pywb read:
//! `indexes/index.cdx.gz`, independent gzip members of [`BLOCK`] sorted CDXJ lines each, and
//! `indexes/index.idx`, one line per member (its first key and timestamp, then its offset,
//! length and sha256 inside `index.cdx.gz`).

use std::collections::HashSet;
use std::io::{self, BufRead, Write};

use flate2::write::GzEncoder;
use flate2::Compression;
use serde_json::json;

use super::digest::sha256;

/// CDXJ lines per gzip member (py-wacz's block size).
pub(crate) const BLOCK: usize = 1024;

/// The first line of `index.idx`.
pub(crate) const IDX_META: &str =
    r#"!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}"#;

/// What [`write_zipnum`] wrote.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Written {
    /// CDXJ lines in `index.cdx.gz`.
    pub(crate) lines: u64,
    /// Gzip members (lines of `index.idx` after its `!meta` line).
    pub(crate) blocks: u64,
}

/// Copies the sorted CDXJ `lines` whose `filename` is one of `files` into `cdx` as gzip blocks,
/// and writes the matching `index.idx` (its `!meta` line first) to `idx`.
pub(crate) fn write_zipnum(
    lines: impl BufRead,
    files: &HashSet<String>,
    cdx: &mut dyn Write,
    idx: &mut dyn Write,
) -> io::Result<Written> {
    writeln!(idx, "{IDX_META}")?;
    let mut out = Written::default();
    let mut block = Block::default();
    let mut offset = 0u64;
    let mut previous: Option<String> = None;
    for line in lines.lines() {
        let line = line?;
        if line.is_empty() || !names_one_of(&line, files)? {
            continue;
        }
        // The index may list a line twice when it was merged while it was read.
        if previous.as_deref() == Some(line.as_str()) {
            continue;
        }
        block.push(&line)?;
        out.lines += 1;
        if block.count == BLOCK {
            offset += block.finish(offset, cdx, idx)?;
            out.blocks += 1;
            block = Block::default();
        }
        previous = Some(line);
    }
    if block.count > 0 {
        block.finish(offset, cdx, idx)?;
        out.blocks += 1;
    }
    Ok(out)
}

/// Whether a CDXJ line's `filename` is one of `files`.
fn names_one_of(line: &str, files: &HashSet<String>) -> io::Result<bool> {
    let json = line.splitn(3, ' ').nth(2).unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a CDXJ line of the archive's index is damaged ({e}): {line}"),
        )
    })?;
    Ok(value["filename"]
        .as_str()
        .is_some_and(|f| files.contains(f)))
}

/// One gzip member being filled.
struct Block {
    gz: GzEncoder<Vec<u8>>,
    first: String,
    count: usize,
}

impl Default for Block {
    fn default() -> Self {
        Block {
            gz: GzEncoder::new(Vec::new(), Compression::default()),
            first: String::new(),
            count: 0,
        }
    }
}

impl Block {
    fn push(&mut self, line: &str) -> io::Result<()> {
        if self.count == 0 {
            // The SURT key and the timestamp.
            self.first = line.splitn(3, ' ').take(2).collect::<Vec<_>>().join(" ");
        }
        self.gz.write_all(line.as_bytes())?;
        self.gz.write_all(b"\n")?;
        self.count += 1;
        Ok(())
    }

    /// Writes the member at `offset` of `cdx` and its line to `idx`; returns its length.
    fn finish(self, offset: u64, cdx: &mut dyn Write, idx: &mut dyn Write) -> io::Result<u64> {
        let bytes = self.gz.finish()?;
        cdx.write_all(&bytes)?;
        let at = json!({"offset": offset, "length": bytes.len(), "digest": sha256(&bytes)});
        writeln!(idx, "{} {at}", self.first)?;
        Ok(bytes.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use flate2::read::MultiGzDecoder;

    use super::*;

    fn line(i: usize, file: &str) -> String {
        format!("org,example)/f{i:05} 20260101000000 {{\"url\":\"http://example.org/f{i:05}\",\"filename\":\"{file}\",\"offset\":\"0\",\"length\":\"1\"}}")
    }

    #[test]
    fn blocks_hold_the_kept_lines_in_order_and_the_idx_points_at_each() {
        let mut input = String::new();
        let mut kept = String::new();
        for i in 0..2500 {
            let file = if i % 5 == 0 {
                "other.warc.gz"
            } else {
                "a.warc.gz"
            };
            let l = line(i, file);
            input.push_str(&l);
            input.push('\n');
            if i % 5 != 0 {
                kept.push_str(&l);
                kept.push('\n');
            }
        }
        let files = HashSet::from(["a.warc.gz".to_owned()]);
        let (mut cdx, mut idx) = (Vec::new(), Vec::new());
        let written = write_zipnum(input.as_bytes(), &files, &mut cdx, &mut idx).unwrap();
        assert_eq!(
            written,
            Written {
                lines: 2000,
                blocks: 2
            }
        );
        let mut all = String::new();
        MultiGzDecoder::new(&cdx[..])
            .read_to_string(&mut all)
            .unwrap();
        assert_eq!(all, kept);
        let idx = String::from_utf8(idx).unwrap();
        let idx: Vec<&str> = idx.lines().collect();
        assert_eq!(idx[0], IDX_META);
        assert_eq!(idx.len(), 3);
        for (n, l) in idx[1..].iter().enumerate() {
            let (key, rest) = l.split_at(l.find(" {").unwrap());
            let at: serde_json::Value = serde_json::from_str(rest.trim()).unwrap();
            let (o, len) = (
                at["offset"].as_u64().unwrap() as usize,
                at["length"].as_u64().unwrap() as usize,
            );
            let mut block = String::new();
            MultiGzDecoder::new(&cdx[o..o + len])
                .read_to_string(&mut block)
                .unwrap();
            assert_eq!(
                block.lines().count(),
                if n == 0 { BLOCK } else { 2000 - BLOCK }
            );
            assert!(block.starts_with(key), "{key}");
            assert_eq!(at["digest"], sha256(&cdx[o..o + len]));
        }
    }

    #[test]
    fn a_damaged_line_is_an_error_that_shows_it() {
        let err = write_zipnum(
            "k 1 {oops\n".as_bytes(),
            &HashSet::new(),
            &mut Vec::new(),
            &mut Vec::new(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("k 1 {oops"), "{err}");
    }
}

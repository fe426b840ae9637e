//! Checking an index's files against the checksums in their footers, reading them in blocks.
//!
//! tantivy's own check reads each file through its memory map, so a server checking its index
//! at start-up counted every page of the largest file in its resident memory (a 1 GB document
//! store, at a million captures). Read in blocks, the check's memory is one block.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use tantivy::directory::footer::Footer;
use tantivy::directory::FileSlice;
use tantivy::Index;

/// Bytes read at a time.
const BLOCK: usize = 1 << 20;
/// The footer's fixed end: its length and its magic number, two little-endian `u32`.
const FOOTER_END: u64 = 8;

/// The files of `index`'s live segments whose content does not match their checksum (or whose
/// footer cannot be read). Files a segment does not have (no deletes) are not looked for.
pub(super) fn damaged_files(index: &Index, dir: &Path) -> io::Result<Vec<PathBuf>> {
    let metas = index
        .load_metas()
        .map_err(|e| io::Error::other(e.to_string()))?;
    let segments: Vec<String> = metas
        .segments
        .iter()
        .map(|s| s.id().uuid_string())
        .collect();
    let mut damaged = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let live = name.is_some_and(|n| segments.iter().any(|s| n.starts_with(s.as_str())));
        if live && !is_intact(&path)? {
            damaged.push(path);
        }
    }
    damaged.sort();
    Ok(damaged)
}

/// Whether the file's body matches the CRC-32 of its footer.
fn is_intact(path: &Path) -> io::Result<bool> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let Some((crc, body)) = footer(&mut file, len)? else {
        return Ok(false);
    };
    file.seek(SeekFrom::Start(0))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut block = vec![0; BLOCK];
    let mut left = body;
    while left > 0 {
        let n = block.len().min(left as usize);
        file.read_exact(&mut block[..n])?;
        hasher.update(&block[..n]);
        left -= n as u64;
    }
    Ok(hasher.finalize() == crc)
}

/// The footer's checksum and the length of the body it covers; `None` when the footer is not
/// one.
fn footer(file: &mut File, len: u64) -> io::Result<Option<(u32, u64)>> {
    if len < FOOTER_END {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(len - FOOTER_END))?;
    let mut end = [0; FOOTER_END as usize];
    file.read_exact(&mut end)?;
    let footer_len = u64::from(u32::from_le_bytes([end[0], end[1], end[2], end[3]]));
    let tail = footer_len + FOOTER_END;
    if tail > len {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(len - tail))?;
    let mut bytes = vec![0; tail as usize];
    file.read_exact(&mut bytes)?;
    // tantivy reads the footer it wrote: magic number, length, version.
    match Footer::extract_footer(FileSlice::from(bytes)) {
        Ok((footer, _)) if footer.is_compatible().is_ok() => Ok(Some((footer.crc, len - tail))),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::ArchiveIndex;

    #[test]
    fn a_changed_byte_is_found_and_intact_files_pass() {
        let archive = tempfile::tempdir().unwrap();
        let index = ArchiveIndex::create(archive.path()).unwrap();
        let mut writer: tantivy::IndexWriter = index.index().writer(30 << 20).unwrap();
        let mut doc = tantivy::TantivyDocument::new();
        doc.add_text(index.fields().title, "sunset over the sea");
        writer.add_document(doc).unwrap();
        writer.commit().unwrap();
        assert_eq!(
            damaged_files(index.index(), index.path()).unwrap(),
            Vec::<PathBuf>::new()
        );
        let store = std::fs::read_dir(index.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "store"))
            .unwrap();
        let mut bytes = std::fs::read(&store).unwrap();
        bytes[0] ^= 0x5a;
        std::fs::write(&store, &bytes).unwrap();
        assert_eq!(
            damaged_files(index.index(), index.path()).unwrap(),
            [store.clone()]
        );
        std::fs::write(&store, b"short").unwrap();
        assert_eq!(damaged_files(index.index(), index.path()).unwrap(), [store]);
    }
}

//! The WARC files of a WACZ package (`archive/*.warc.gz`, …), read in place: a stored entry at
//! its data offset in the package, a deflated one decompressed as it streams; never unpacked.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use zip::CompressionMethod;

use super::input_error::InputError;
use super::location::{Source, ZipEntry};

/// The package's WARC and ARC entries under `archive/`, in name order.
pub(crate) fn wacz_sources(path: &Path) -> Result<Vec<Source>, InputError> {
    let bad = |reason: String| InputError::BadWacz {
        path: path.to_owned(),
        reason,
    };
    let file = File::open(path).map_err(|error| InputError::Io {
        path: path.to_owned(),
        error,
    })?;
    let mut zip = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| bad(e.to_string()))?;
    let mut sources = Vec::new();
    for i in 0..zip.len() {
        let entry = zip.by_index_raw(i).map_err(|e| bad(e.to_string()))?;
        let name = entry.name().map_err(|e| bad(e.to_string()))?.into_owned();
        let is_warc = [".warc", ".warc.gz", ".arc", ".arc.gz"]
            .iter()
            .any(|s| name.ends_with(s));
        if !name.starts_with("archive/") || !is_warc {
            continue;
        }
        let deflated = match entry.compression() {
            CompressionMethod::Stored => false,
            CompressionMethod::Deflated => true,
            other => return Err(bad(format!("{name} is compressed with {other}"))),
        };
        let data_start = entry
            .data_start()
            .ok_or_else(|| bad(format!("{name}: no data offset")))?;
        sources.push(Source {
            path: path.to_owned(),
            entry: Some(ZipEntry {
                name,
                data_start,
                compressed_size: entry.compressed_size(),
                size: entry.size(),
                deflated,
            }),
        });
    }
    if !zip
        .file_names()
        .any(|n| n.is_ok_and(|n| n == "datapackage.json"))
    {
        return Err(bad("no datapackage.json".to_owned()));
    }
    sources.sort_by(|a, b| {
        a.entry
            .as_ref()
            .map(|e| &e.name)
            .cmp(&b.entry.as_ref().map(|e| &e.name))
    });
    Ok(sources)
}

//! Per-record compression choice: one gzip member per record (WARC 1.1 Annex D), deflated fast
//! when it pays, stored when the payload is already compressed (deflate of incompressible bytes runs at
//! ~30 MB/s and grows them; stored runs at ~1.8 GB/s).

use std::io::{self, Write};

use super::spool::Spool;

/// How one record's gzip member is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Deflate level 1.
    Fast,
    /// Level 0: stored deflate blocks, still a valid gzip member.
    Stored,
}

/// Bytes deflated to decide whether a payload compresses.
const PROBE: usize = 64 * 1024;

/// Media types that are compressed containers or compressed encodings.
const INCOMPRESSIBLE: &[&str] = &[
    "image/jpeg",
    "image/jpg",
    "image/png",
    "image/gif",
    "image/webp",
    "image/jp2",
    "image/jpx",
    "image/avif",
    "image/heic",
    "audio/mpeg",
    "audio/mp4",
    "audio/aac",
    "audio/ogg",
    "audio/opus",
    "audio/flac",
    "application/zip",
    "application/gzip",
    "application/x-gzip",
    "application/x-bzip2",
    "application/x-xz",
    "application/zstd",
    "application/x-7z-compressed",
    "application/vnd.rar",
    "application/x-rar-compressed",
    "application/pdf",
    "application/epub+zip",
    "application/java-archive",
    "application/ogg",
];

impl Compression {
    /// Stored for already-compressed media types (JPEG, PNG, GIF, MP3, all `video/*`, ZIP-based
    /// formats, gzip, PDF, …), [`Fast`](Self::Fast) for everything else (text, XML, JSON, HTML,
    /// unknown types). Parameters (`; charset=…`) and case are ignored.
    pub fn for_content_type(content_type: &str) -> Self {
        let essence = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let zipped_office = essence.starts_with("application/vnd.openxmlformats-")
            || essence.starts_with("application/vnd.oasis.opendocument.");
        if essence.starts_with("video/") || zipped_office || INCOMPRESSIBLE.contains(&&*essence) {
            Self::Stored
        } else {
            Self::Fast
        }
    }

    /// [`for_content_type`](Self::for_content_type), then a probe for types that are usually
    /// worth deflating: if the first 64 KiB of the payload shrink by less than 10 % at level 1,
    /// the payload is stored (random or already-compressed bytes under a generic type).
    pub(crate) fn for_payload(content_type: &str, payload: &mut Spool) -> io::Result<Self> {
        let by_type = Self::for_content_type(content_type);
        if by_type == Self::Stored || payload.len() < PROBE as u64 {
            return Ok(by_type);
        }
        let sample = payload.head(PROBE)?;
        let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(&sample)?;
        let packed = z.finish()?.len();
        Ok(if packed * 10 > sample.len() * 9 {
            Self::Stored
        } else {
            Self::Fast
        })
    }

    pub(crate) fn level(self) -> flate2::Compression {
        match self {
            Self::Fast => flate2::Compression::fast(),
            Self::Stored => flate2::Compression::none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Compression::{self, Fast, Stored};

    #[test]
    fn choice_by_type() {
        for (ct, want) in [
            ("text/plain; charset=utf-8", Fast),
            ("application/xml", Fast),
            ("application/json", Fast),
            ("text/html", Fast),
            ("image/svg+xml", Fast),
            ("application/octet-stream", Fast),
            ("", Fast),
            ("image/JPEG", Stored),
            ("image/png", Stored),
            ("image/gif", Stored),
            ("audio/mpeg", Stored),
            ("video/mp4", Stored),
            ("application/zip", Stored),
            ("application/gzip", Stored),
            ("application/pdf ; x=y", Stored),
            (
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                Stored,
            ),
        ] {
            assert_eq!(Compression::for_content_type(ct), want, "{ct}");
        }
    }
}

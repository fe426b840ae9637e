//! [`Format`]: the metadataPrefixes on offer, their schemas and namespaces, and the DCMI type of
//! a MIME type.

use modoai_protocol::ns;

/// A format this repository can disseminate for every record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// Simple Dublin Core, mandatory for every item (§3.4).
    Dc,
    /// The file itself, Base64-encoded in MPEG-21 DIDL, with its HTTP headers.
    Didl,
    /// A CRATE: the DIDL of `oai_didl` plus the output of the configured metadata tools.
    Crate,
}

impl Format {
    pub(crate) const ALL: [Format; 3] = [Format::Dc, Format::Didl, Format::Crate];

    /// The format of `prefix`, among those `with_crate` makes available.
    pub(crate) fn from_prefix(prefix: &str, with_crate: bool) -> Option<Format> {
        Format::available(with_crate).find(|f| f.prefix() == prefix)
    }

    /// The formats this repository disseminates: `oai_crate` only when plugins are configured.
    pub(crate) fn available(with_crate: bool) -> impl Iterator<Item = Format> {
        Format::ALL
            .into_iter()
            .filter(move |f| with_crate || *f != Format::Crate)
    }

    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Format::Dc => ns::PREFIX_OAI_DC,
            Format::Didl => ns::PREFIX_OAI_DIDL,
            Format::Crate => ns::PREFIX_OAI_CRATE,
        }
    }

    pub(crate) fn schema(self) -> &'static str {
        match self {
            Format::Dc => ns::OAI_DC_XSD,
            Format::Didl | Format::Crate => ns::DIDL_XSD,
        }
    }

    pub(crate) fn namespace(self) -> &'static str {
        match self {
            Format::Dc => ns::OAI_DC,
            Format::Didl | Format::Crate => ns::DIDL,
        }
    }

    /// Bytes a record of this format is expected to take, for closing pages at a byte budget.
    pub(crate) fn estimate(self, size: u64, inline_max: u64) -> u64 {
        match self {
            Format::Dc => 1_000,
            Format::Didl if size <= inline_max => 2_000 + size.div_ceil(3) * 4,
            Format::Didl => 2_000,
            Format::Crate => 64_000 + Format::Didl.estimate(size, inline_max),
        }
    }
}

/// The DCMI Type Vocabulary term for a MIME type.
pub(crate) fn dcmi_type(mime: &str) -> &'static str {
    let (ty, sub) = mime.split_once('/').unwrap_or((mime, ""));
    match ty {
        "image" => "StillImage",
        "video" => "MovingImage",
        "audio" => "Sound",
        "text" if matches!(sub, "csv" | "tab-separated-values") => "Dataset",
        "text"
            if matches!(
                sub,
                "javascript" | "x-python" | "x-shellscript" | "x-c" | "x-rust"
            ) =>
        {
            "Software"
        }
        "text" => "Text",
        "application" => match sub {
            "pdf"
            | "msword"
            | "rtf"
            | "xhtml+xml"
            | "epub+zip"
            | "postscript"
            | "vnd.oasis.opendocument.text"
            | "vnd.openxmlformats-officedocument.wordprocessingml.document" => "Text",
            "javascript" | "wasm" | "x-sh" | "x-executable" | "java-archive" | "x-elf"
            | "x-msdownload" => "Software",
            "zip" | "x-tar" | "gzip" | "x-7z-compressed" | "x-bzip2" | "x-xz" | "zstd" => {
                "Collection"
            }
            _ => "Dataset",
        },
        _ => "Dataset",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dcmi_types() {
        assert_eq!(dcmi_type("image/svg+xml"), "StillImage");
        assert_eq!(dcmi_type("text/html"), "Text");
        assert_eq!(dcmi_type("application/pdf"), "Text");
        assert_eq!(dcmi_type("audio/mpeg"), "Sound");
        assert_eq!(dcmi_type("video/mp4"), "MovingImage");
        assert_eq!(dcmi_type("application/zip"), "Collection");
        assert_eq!(dcmi_type("application/octet-stream"), "Dataset");
    }

    #[test]
    fn prefixes() {
        for f in Format::ALL {
            assert_eq!(Format::from_prefix(f.prefix(), true), Some(f));
        }
        assert_eq!(Format::from_prefix("oai_crate", false), None);
    }
}

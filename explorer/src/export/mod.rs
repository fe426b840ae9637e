//! Exports of a search: every capture it finds, written as CSV, JSON Lines, a CDXJ index, a
//! corpus definition or the WARC records themselves, a page at a time. Nothing here knows HTTP: a format is a [`Rows`] that turns a
//! page of captures into bytes, and says at its end whether the export is complete
//! ([`Ending`]); the API streams what it writes (`docs/explorer.md`, "Exports").

mod cdxj;
mod corpus;
mod csv;
mod jsonl;
mod wacz;
mod warc;

use std::fmt;
use std::str::FromStr;

pub use cdxj::{write_cdxj, CdxjError};
pub use corpus::CorpusContext;
pub use wacz::WaczExport;
pub use warc::{Chunks, WarcContext, WarcError, WarcExport};

use crate::search::{Item, Stored};

/// Captures read (and charged to a key's quota) at a time: an export costs one request of the
/// hourly quota per this many captures, the first of them paid by the request itself.
pub const EXPORT_UNIT: usize = 1000;

/// A format of export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// CSV (RFC 4180), one row per capture under a header row.
    Csv,
    /// JSON Lines, one object per capture.
    Jsonl,
    /// A CDXJ index (`SURT TIMESTAMP JSON` lines, sorted), as pywb reads it.
    Cdxj,
    /// A corpus definition (`schemas/corpus.xsd`), one PWID per part with its digest.
    Corpus,
    /// The captures' WARC records (and the originals their revisits need), one `.warc.gz`.
    Warc,
    /// A WACZ 1.1.1 package of the same WARC, its index and its pages.
    Wacz,
}

/// The formats, as `format=` names them.
pub const FORMATS: [Format; 6] = [
    Format::Csv,
    Format::Jsonl,
    Format::Cdxj,
    Format::Corpus,
    Format::Warc,
    Format::Wacz,
];

impl Format {
    /// The name `format=` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
            Format::Cdxj => "cdxj",
            Format::Corpus => "corpus",
            Format::Warc => "warc",
            Format::Wacz => "wacz",
        }
    }

    /// The media type of the answer.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Csv => "text/csv; charset=utf-8",
            Format::Jsonl => "application/jsonl",
            Format::Cdxj => "application/x-cdxj",
            Format::Corpus => "application/xml",
            Format::Warc => "application/warc",
            Format::Wacz => "application/wacz+zip",
        }
    }

    /// The file name's extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
            Format::Cdxj => "cdxj",
            Format::Corpus => "corpus.xml",
            Format::Warc => "warc.gz",
            Format::Wacz => "wacz",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        FORMATS
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| format!("format={s:?} is not an export format: use {}", names()))
    }
}

/// The formats' names, as an error message lists them (`csv, jsonl, … or warc`).
pub fn names() -> String {
    let names: Vec<&str> = FORMATS.iter().map(|f| f.name()).collect();
    let (last, rest) = names.split_last().expect("there are formats");
    format!("{} or {last}", rest.join(", "))
}

/// How an export ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every capture of the search was written.
    Complete,
    /// It stopped before the end: why, and what to do.
    Stopped(String),
}

/// A format's writer: a head, rows, and a tail that states how the export ended.
pub trait Rows: Send {
    /// What comes before the first capture.
    fn head(&mut self, out: &mut Vec<u8>);
    /// One capture.
    fn row(&mut self, out: &mut Vec<u8>, item: &Item, stored: &Stored);
    /// What comes after the last capture written (`written` of them).
    fn tail(&mut self, out: &mut Vec<u8>, written: u64, ending: &Ending);
}

/// The writer of `format` by rows (a CDXJ index is written by [`write_cdxj`], a WARC by
/// [`WarcExport`] and a WACZ by [`WaczExport`] instead); a corpus needs its `context`.
pub fn rows(format: Format, context: CorpusContext) -> Option<Box<dyn Rows>> {
    match format {
        Format::Csv => Some(Box::new(csv::Csv)),
        Format::Jsonl => Some(Box::new(jsonl::Jsonl)),
        Format::Corpus => Some(Box::new(corpus::Corpus::new(context))),
        Format::Cdxj | Format::Warc | Format::Wacz => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_named_and_others_refused() {
        for f in FORMATS {
            assert_eq!(f.name().parse::<Format>(), Ok(f));
        }
        let e = "warcx".parse::<Format>().unwrap_err();
        assert!(e.contains("csv, jsonl, cdxj, corpus, warc or wacz"), "{e}");
    }

    #[test]
    fn the_openapi_document_lists_every_format() {
        let doc: serde_json::Value = serde_json::from_str(crate::web::OPENAPI).unwrap();
        let export = &doc["paths"]["/api/v1/export"]["get"];
        let format = &export["parameters"][0];
        assert_eq!(format["name"], "format");
        let listed: Vec<&str> = format["schema"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let names: Vec<&str> = FORMATS.iter().map(|f| f.name()).collect();
        assert_eq!(listed, names);
        let content = &export["responses"]["200"]["content"];
        for f in FORMATS {
            let essence = f.media_type().split(';').next().unwrap();
            assert!(content.get(essence).is_some(), "{essence}");
        }
    }
}

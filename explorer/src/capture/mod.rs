//! Captures: one per archived payload record (a `resource`, or a `revisit` of identical bytes),
//! with everything known about it. [`Planner`] lists them from an archive's ledger (cheap, in
//! order); [`Loader::load`] reads their bytes and CRATE and extracts text and findings.

mod findings;
mod load;
mod plan;

pub use findings::Findings;
pub use load::{Loader, MAX_PDF_INPUT};
pub use plan::{capture_id, Planned, Planner, RecordAt};

use time::OffsetDateTime;

/// Whether a capture stored the bytes or refers to an identical earlier capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureKind {
    /// A `resource` record: the bytes are in this record.
    Resource,
    /// A `revisit` record (identical payload digest): the bytes are in an earlier capture.
    Revisit,
}

impl CaptureKind {
    /// `resource` or `revisit`, as the WARC-Type.
    pub fn as_str(self) -> &'static str {
        match self {
            CaptureKind::Resource => "resource",
            CaptureKind::Revisit => "revisit",
        }
    }
}

/// One capture with its extracted text and CRATE findings: one document of the index.
#[derive(Clone, Debug)]
pub struct Capture {
    /// What the ledger says about it.
    pub planned: Planned,
    /// Payload bytes.
    pub size: u64,
    /// The title (HTML `<title>`, an XML title element, a PDF's first line).
    pub title: String,
    /// The text, as much as is indexed.
    pub text: String,
    /// ISO 639-3 code of the text's language when it is recognised reliably.
    pub lang: Option<String>,
    /// The most frequent words of the text (the word cloud's material).
    pub keywords: Vec<String>,
    /// What the CRATE's tools found.
    pub findings: Findings,
    /// Why text extraction failed, if it did (the capture is indexed all the same).
    pub problem: Option<String>,
}

impl Capture {
    /// The capture time (`WARC-Date`).
    pub fn time(&self) -> OffsetDateTime {
        self.planned.time
    }
}

//! Captures: one per archived payload record (a `resource`, or a `revisit` of identical bytes),
//! with everything known about it. [`Planner`] lists them from an archive's ledger (cheap, in
//! order); [`Loader::load`] reads their bytes and CRATE and extracts text and findings.

mod findings;
mod foreign;
mod load;
mod plan;
mod pronom;
mod record_at;
pub mod tool_facts;

pub use findings::{Findings, JhoveStatus, UnknownStatus};
pub use foreign::{plan_record, revisit_of, Foreign, RevisitOf};
pub use load::{crate_facts, Loader, MAX_PDF_INPUT};
pub(crate) use plan::host_and_path;
pub use plan::{capture_id, Planned, Planner};
pub(crate) use pronom::siegfried as siegfried_pronom;
pub use pronom::{fido_findings, siegfried_findings};
pub use record_at::{RecordAt, RecordAtError};

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use time::OffsetDateTime;

/// Whether a capture stored the bytes or refers to an identical earlier capture. Written, stored
/// in the index and serialised as the WARC-Type (`resource`, `revisit`, `response`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CaptureKind {
    /// A `resource` record: the bytes are in this record.
    #[default]
    Resource,
    /// A `revisit` record (identical payload digest): the bytes are in an earlier capture.
    Revisit,
    /// A `response` record of a foreign input: an HTTP response, head and body.
    Response,
}

impl CaptureKind {
    /// `resource` or `revisit`, as the WARC-Type.
    pub fn as_str(self) -> &'static str {
        match self {
            CaptureKind::Resource => "resource",
            CaptureKind::Revisit => "revisit",
            CaptureKind::Response => "response",
        }
    }
}

impl fmt::Display for CaptureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A value that is neither `resource` nor `revisit`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a capture kind (resource, revisit, response)")]
pub struct UnknownKind(String);

impl FromStr for CaptureKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "resource" => Ok(CaptureKind::Resource),
            "revisit" => Ok(CaptureKind::Revisit),
            "response" => Ok(CaptureKind::Response),
            _ => Err(UnknownKind(s.to_owned())),
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

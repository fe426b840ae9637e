//! PDF text through poppler's `pdftotext`, run like the CRATE plugins (isolated, with their
//! timeout and output cap: [`ToolRunner`]).

use std::path::Path;

use modoai_tools::{Ended, ToolRunner};

/// Pages read at most: the first pages carry the title and most of what search needs.
const MAX_PAGES: u32 = 50;

/// Why a PDF gave no text.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PdfError {
    /// `pdftotext` is not installed.
    #[error("pdftotext is not installed (Debian: poppler-utils; scripts/setup installs it)")]
    Missing,
    /// It ran past the timeout and was killed.
    #[error("pdftotext ran past its timeout")]
    Timeout,
    /// It failed (a damaged or encrypted PDF).
    #[error("pdftotext failed: {0}")]
    Failed(String),
}

/// The text of the PDF at `path`: `pdftotext -enc UTF-8 -l 50 -q PATH -`, page breaks (form
/// feeds) as new lines.
pub async fn pdf_text(tools: &ToolRunner, path: &Path) -> Result<String, PdfError> {
    let argv = [
        "pdftotext".into(),
        "-enc".into(),
        "UTF-8".into(),
        "-l".into(),
        MAX_PAGES.to_string().into(),
        "-q".into(),
        path.as_os_str().to_owned(),
        "-".into(),
    ];
    let run = tools.run(&argv).await;
    match run.ended {
        Ended::Exited(Some(0)) => {
            let text = String::from_utf8_lossy(&run.stdout).replace('\u{c}', "\n");
            Ok(super::cut(text))
        }
        Ended::NotFound => Err(PdfError::Missing),
        Ended::TimedOut => Err(PdfError::Timeout),
        // Through prlimit, a missing program is its exit 127 ("failed to execute").
        Ended::Exited(Some(127)) => Err(PdfError::Missing),
        other => {
            let stderr = String::from_utf8_lossy(&run.stderr);
            let line = stderr.lines().next().unwrap_or_default();
            Err(PdfError::Failed(
                format!("{other:?} {line}").trim().to_owned(),
            ))
        }
    }
}

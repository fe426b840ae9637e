//! PDF text through MuPDF, kept-running `mutool run` workers run like the CRATE plugins'
//! resident tools (isolated, with their timeout and output cap: [`ToolRunner::pdf_text`]).

use std::path::Path;

use modoai_tools::{Ended, ToolRunner};

/// Pages read at most: the first pages carry the title and most of what search needs.
const MAX_PAGES: u32 = 50;

/// Why a PDF gave no text.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PdfError {
    /// `mutool` is not installed.
    #[error("mutool is not installed (Debian: mupdf-tools; scripts/setup installs it)")]
    Missing,
    /// It ran past the timeout and was killed.
    #[error("MuPDF ran past its timeout reading the PDF")]
    Timeout,
    /// It failed (a damaged or encrypted PDF, a worker that died).
    #[error("MuPDF could not read the PDF: {0}")]
    Failed(String),
}

/// The text of the first 50 pages of the PDF at `path`, a line of text per line.
pub async fn pdf_text(tools: &ToolRunner, path: &Path) -> Result<String, PdfError> {
    let run = tools.pdf_text(path, MAX_PAGES).await;
    match run.ended {
        Ended::Exited(Some(0)) => Ok(super::cut(
            String::from_utf8_lossy(&run.stdout).into_owned(),
        )),
        Ended::NotFound => Err(PdfError::Missing),
        Ended::TimedOut => Err(PdfError::Timeout),
        other => {
            let stderr = String::from_utf8_lossy(&run.stderr);
            let line = stderr.lines().next().unwrap_or_default();
            let why = match other {
                Ended::Exited(Some(1)) => line.to_owned(),
                other => format!("{other:?} {line}"),
            };
            Err(PdfError::Failed(why.trim().to_owned()))
        }
    }
}

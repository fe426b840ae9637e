//! Reading a planned capture's payload and CRATE: size, MIME type, text, findings.

use std::io::{self, Read};

use modoai_archive::archive::{Reader, Resolved};
use modoai_archive::facts::Facts;
use modoai_archive::warc::read_record;
use modoai_tools::ToolRunner;

use modoai_archive::any::{open, BodyLimits};

use super::{Capture, Findings, Foreign, Planned, RecordAt};
use crate::extract::{
    inner_kind, keywords, language, pdf_text, text_of, title_of, Compression, TextKind,
    MAX_TEXT_INPUT,
};

/// PDF bytes given to MuPDF at most (as the plugins' `max-input-bytes`): larger PDFs are
/// indexed without text.
pub const MAX_PDF_INPUT: u64 = 256 << 20;
/// PDFs up to this size are written for MuPDF to the memory-backed scratch folder
/// (`modoai_tools::scratch`: a file made and removed on a disk file system costs an inode search,
/// a few per cent of a foreign crawl's time); larger ones to the system's temporary folder.
const PDF_IN_SCRATCH: u64 = 8 << 20;

/// The CRATE record at `at` in the archive at `dir`, read: its HTTP status and headers and each
/// plugin's results. `None` when it cannot be read.
pub fn crate_facts(dir: &std::path::Path, at: &RecordAt) -> Option<Facts> {
    let reader = Reader::open(dir).ok()?;
    let found = reader.warc_file(&at.file).ok()??;
    let record = read_record(&found.path, at.offset).ok()?;
    Some(Facts::read(record.block))
}

/// Loads captures of one archive (or foreign collection). Cheap to clone; one per worker thread.
#[derive(Clone, Debug)]
pub struct Loader<'a> {
    reader: Option<&'a Reader>,
    tools: ToolRunner,
    runtime: tokio::runtime::Handle,
}

impl<'a> Loader<'a> {
    /// A loader reading `reader`'s archive, reading PDF text through `tools` on `runtime`.
    pub fn new(reader: &'a Reader, tools: ToolRunner, runtime: tokio::runtime::Handle) -> Self {
        Loader {
            reader: Some(reader),
            tools,
            runtime,
        }
    }

    /// A loader of foreign captures (their payloads read through their [`Foreign`] locations).
    pub fn foreign(tools: ToolRunner, runtime: tokio::runtime::Handle) -> Loader<'static> {
        Loader {
            reader: None,
            tools,
            runtime,
        }
    }

    /// Reads everything about `planned`. A payload that cannot be read or a PDF that gives no
    /// text leaves the capture without text, with the reason in [`Capture::problem`]; only a
    /// missing WARC file is an error.
    pub fn load(&self, planned: Planned) -> io::Result<Capture> {
        let mut capture = Capture {
            planned,
            size: 0,
            title: String::new(),
            text: String::new(),
            lang: None,
            keywords: Vec::new(),
            findings: Findings::default(),
            problem: None,
        };
        if let Some(at) = &capture.planned.crate_record {
            capture.findings = self.findings(at).unwrap_or_default();
        }
        if let Some(at) = capture
            .planned
            .foreign
            .as_ref()
            .and_then(|f| f.metadata.as_ref())
        {
            capture.findings = foreign_crate(at).unwrap_or_default();
        }
        // An `oai_didl` item's metadata record has no tool output: no findings to source.
        if capture.findings != Findings::default() {
            let harvested = capture.planned.time.date();
            capture.findings.source = Some(format!("CRATE, harvested {harvested}"));
        }
        let read = match capture.planned.foreign.clone() {
            Some(foreign) => self.foreign_payload(&mut capture, &foreign),
            None => self.payload(&mut capture),
        };
        if let Err(e) = read {
            if e.kind() == io::ErrorKind::NotFound {
                return Err(e);
            }
            capture.problem = Some(e.to_string());
        }
        if capture.title.is_empty() {
            capture.title = title_of(&capture.text);
        }
        capture.lang = language(&capture.text);
        capture.keywords = keywords(&capture.text);
        Ok(capture)
    }

    fn archive(&self) -> io::Result<&'a Reader> {
        self.reader
            .ok_or_else(|| io::Error::other("a capture of an archive given to a foreign loader"))
    }

    /// Copies the payload of `planned` to `to`: the bytes as archived, or a foreign record's
    /// body with its transfer and content codings taken off; the bytes copied.
    pub fn copy_payload(&self, planned: &Planned, to: &mut dyn io::Write) -> io::Result<u64> {
        if let Some(foreign) = &planned.foreign {
            let Some(at) = &foreign.payload else {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    "a revisit whose original is not in the collection",
                ));
            };
            let opened = open(at)?;
            let mut body = opened
                .body(&BodyLimits::default())
                .map_err(io::Error::other)?;
            return io::copy(&mut body, to);
        }
        let at = self.resolved(&planned.record, &planned.mime)?;
        let mut record = self
            .archive()?
            .open_payload(&at)
            .map_err(io::Error::other)?;
        io::copy(&mut record.block, to)
    }

    fn resolved(&self, at: &RecordAt, mime: &str) -> io::Result<Resolved> {
        let file = self.archive()?.warc_file(&at.file)?.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} is not in the archive's warcs/", at.file),
            )
        })?;
        Ok(Resolved {
            file: file.path,
            offset: at.offset,
            length: at.length,
            mime: mime.to_owned(),
            digest: String::new(),
        })
    }

    fn payload(&self, capture: &mut Capture) -> io::Result<()> {
        let at = self.resolved(&capture.planned.record, &capture.planned.mime)?;
        let mut record = self
            .archive()?
            .open_payload(&at)
            .map_err(io::Error::other)?;
        if let Some(mime) = record.header("Content-Type") {
            capture.planned.mime = mime.split(';').next().unwrap_or(mime).trim().to_owned();
        }
        capture.size = record
            .header("Content-Length")
            .and_then(|l| l.parse().ok())
            .unwrap_or_default();
        self.extract(capture, &mut record.block)
    }

    /// Reads a foreign capture's payload through its location: the body decoded (chunked
    /// transfer-coding, gzip/deflate/br content-coding), never the raw bytes. A revisit whose
    /// original is nowhere has no payload to read.
    fn foreign_payload(&self, capture: &mut Capture, foreign: &Foreign) -> io::Result<()> {
        let Some(at) = &foreign.payload else {
            return Ok(());
        };
        let opened = open(at)?;
        let mime = match &opened.http {
            Some(head) => head.mime(),
            None => opened.fields.content_type.as_deref().map(bare_mime),
        };
        if let Some(mime) = mime.filter(|m| !m.is_empty()) {
            capture.planned.mime = mime;
        }
        let head_len = opened.http.as_ref().map_or(0, |h| h.body_offset);
        capture.size = opened.block_len.saturating_sub(head_len);
        let mut body = opened
            .body(&BodyLimits::default())
            .map_err(io::Error::other)?;
        self.extract(capture, &mut body)
    }

    /// Title and text of the payload `block`, by the capture's MIME type.
    fn extract(&self, capture: &mut Capture, block: &mut dyn Read) -> io::Result<()> {
        if let Some(format) = Compression::of(&capture.planned.mime, &capture.planned.path) {
            let bytes = format.decompress(block).map_err(io::Error::other)?;
            let kind = inner_kind(&capture.planned.path, &bytes);
            (capture.title, capture.text) = text_of(kind, &bytes);
            return Ok(());
        }
        match TextKind::of(&capture.planned.mime) {
            TextKind::None => Ok(()),
            TextKind::Pdf if capture.size > MAX_PDF_INPUT => Ok(()),
            TextKind::Pdf => {
                let mut file = if capture.size <= PDF_IN_SCRATCH {
                    tempfile::NamedTempFile::new_in(modoai_tools::scratch::folder())?
                } else {
                    tempfile::NamedTempFile::new()?
                };
                io::copy(block, &mut file)?;
                let text = self
                    .runtime
                    .block_on(pdf_text(&self.tools, file.path()))
                    .map_err(io::Error::other)?;
                capture.text = text;
                Ok(())
            }
            kind => {
                let mut bytes = Vec::new();
                block.take(MAX_TEXT_INPUT).read_to_end(&mut bytes)?;
                (capture.title, capture.text) = text_of(kind, &bytes);
                Ok(())
            }
        }
    }

    fn findings(&self, at: &RecordAt) -> io::Result<Findings> {
        let file = self.resolved(at, "application/xml")?;
        let record = read_record(&file.file, file.offset)?;
        Ok(Findings::of(&Facts::read(record.block)))
    }
}

/// The findings of the CRATE `metadata` record at `at` tied to a foreign capture, with its
/// tools' results kept to be shown (the capture page cannot read a foreign CRATE by its place
/// in a modoai archive).
fn foreign_crate(at: &modoai_archive::any::Location) -> io::Result<Findings> {
    let facts = Facts::read(open(at)?.block());
    Ok(Findings {
        tools: facts.plugins.clone(),
        ..Findings::of(&facts)
    })
}

/// A MIME type without parameters, lower case.
fn bare_mime(value: &str) -> String {
    value
        .split(';')
        .next()
        .unwrap_or(value)
        .trim()
        .to_ascii_lowercase()
}

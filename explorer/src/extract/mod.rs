//! Text from archived files: title and text of HTML, plain text, XML and PDF (through
//! MuPDF), also when compressed (gzip, bzip2, xz), the language of the text, and its most frequent words.

mod compressed;
mod html;
mod keywords;
mod lang;
mod pdf;
mod title;
mod xml;

pub use compressed::{inner_kind, CompressedError, Compression, MAX_RATIO};
pub use keywords::{keywords, KEYWORDS};
pub use lang::language;
pub use pdf::{pdf_text, PdfError};
pub use title::title_of;

/// Payload bytes read for text extraction at most (HTML, text, XML); the rest is not indexed.
pub const MAX_TEXT_INPUT: u64 = 8 << 20;
/// Characters of text indexed per capture at most.
pub const MAX_TEXT_CHARS: usize = 256 * 1024;

/// How text is taken out of a MIME type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextKind {
    /// `text/html`, `application/xhtml+xml`.
    Html,
    /// `application/xml`, `text/xml`, `*+xml`.
    Xml,
    /// `application/pdf`, through MuPDF's kept-running workers.
    Pdf,
    /// Other `text/*`, JSON.
    Plain,
    /// Anything else: no text.
    None,
}

impl TextKind {
    /// The kind of a MIME type (parameters ignored).
    pub fn of(mime: &str) -> TextKind {
        let mime = mime.split(';').next().unwrap_or_default().trim();
        match mime {
            "text/html" | "application/xhtml+xml" => TextKind::Html,
            "application/pdf" => TextKind::Pdf,
            "application/xml" | "text/xml" => TextKind::Xml,
            m if m.ends_with("+xml") => TextKind::Xml,
            "application/json" => TextKind::Plain,
            m if m.starts_with("text/") => TextKind::Plain,
            _ => TextKind::None,
        }
    }
}

/// Title and text of `bytes` of kind `kind` (not PDF: see [`pdf_text`]).
pub fn text_of(kind: TextKind, bytes: &[u8]) -> (String, String) {
    let (title, text) = match kind {
        TextKind::Html => html::title_and_text(&String::from_utf8_lossy(bytes)),
        TextKind::Xml => xml::title_and_text(bytes),
        TextKind::Plain => (String::new(), String::from_utf8_lossy(bytes).into_owned()),
        TextKind::Pdf | TextKind::None => (String::new(), String::new()),
    };
    (title, cut(text))
}

/// `text` cut to [`MAX_TEXT_CHARS`].
pub(crate) fn cut(mut text: String) -> String {
    if let Some((i, _)) = text.char_indices().nth(MAX_TEXT_CHARS) {
        text.truncate(i);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_of_mime_types() {
        assert_eq!(TextKind::of("text/html; charset=utf-8"), TextKind::Html);
        assert_eq!(TextKind::of("image/svg+xml"), TextKind::Xml);
        assert_eq!(TextKind::of("text/csv"), TextKind::Plain);
        assert_eq!(TextKind::of("application/pdf"), TextKind::Pdf);
        assert_eq!(TextKind::of("image/jpeg"), TextKind::None);
        assert_eq!(
            text_of(TextKind::None, b"x"),
            (String::new(), String::new())
        );
    }
}

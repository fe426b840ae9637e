//! One MIME detection for a file: by extension first, then by content where the extension says
//! nothing useful. The standalone server sends the result as `Content-Type`, and the index files
//! the record under the same type, so visitors and harvesters always agree.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The type used when nothing better is known.
pub const OCTET_STREAM: &str = "application/octet-stream";

/// How many leading bytes content sniffing reads.
const SNIFF_LEN: usize = 8192;

/// Detects the MIME type of the regular file at `path`.
///
/// ```
/// # let dir = tempfile::tempdir()?;
/// let png = dir.path().join("noext");
/// std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")?;
/// assert_eq!(modoai::mime::detect(&png), "image/png");
/// std::fs::write(dir.path().join("a.css"), b"")?;
/// assert_eq!(modoai::mime::detect(&dir.path().join("a.css")), "text/css");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn detect(path: &Path) -> String {
    match by_extension(path) {
        Some(m) => m,
        None => sniff(path).unwrap_or_else(|| OCTET_STREAM.to_owned()),
    }
}

/// The type the file name's extension gives, unless it is missing or only `application/octet-stream`.
pub fn by_extension(path: &Path) -> Option<String> {
    let guess = mime_guess::from_path(path).first()?;
    let essence = guess.essence_str();
    (essence != OCTET_STREAM).then(|| essence.to_owned())
}

/// The type the file's first bytes give (magic numbers, then plain UTF-8 text), if any.
pub fn sniff(path: &Path) -> Option<String> {
    let mut head = Vec::with_capacity(SNIFF_LEN);
    File::open(path)
        .ok()?
        .take(SNIFF_LEN as u64)
        .read_to_end(&mut head)
        .ok()?;
    if let Some(kind) = infer::get(&head) {
        return Some(kind.mime_type().to_owned());
    }
    is_text(&head).then(|| "text/plain".to_owned())
}

/// Non-empty UTF-8 without NUL or other control bytes besides white space. A multi-byte character
/// cut at the end of the sample still counts as text.
fn is_text(head: &[u8]) -> bool {
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or("")
        }
        Err(_) => return false,
    };
    !valid.is_empty()
        && !valid
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\x0c'))
}

/// The essence of a `Content-Type` value: the type without parameters, lower-cased.
pub fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_binary() {
        assert!(is_text(b"hello\nworld"));
        assert!(!is_text(b"a\0b"));
        assert!(!is_text(b""));
        assert!(is_text("h\u{e9}".as_bytes()));
        assert!(is_text(&"a\u{e9}".as_bytes()[..2]), "cut multi-byte tail");
        assert!(!is_text(b"\xff\xfe"));
    }

    #[test]
    fn essence_strips_parameters() {
        assert_eq!(essence("Text/HTML; charset=UTF-8"), "text/html");
    }
}

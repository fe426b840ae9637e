//! Set specs (§2.7.2) and the two set hierarchies modoai builds from them: MIME types and folders.
//!
//! A file of type `image/svg+xml` belongs to the sets `mime`, `mime:image` and `mime:image:svg*2Bxml`;
//! a file in the folder `docs/annual reports/` to `path:docs:annual*20reports` (and so, by the
//! hierarchy, to `path:docs` and `path`). Every byte outside the setSpec alphabet, and `*` itself,
//! is written `*` plus two upper-case hex digits (the aDORe convention), so the mapping is
//! reversible and never collides with a name that really contains `.` or `_`.
//!
//! ```
//! use modoai_protocol::setspec::{folder_from_set_spec, folder_set_spec, mime_from_set_spec, mime_set_specs};
//!
//! let specs = mime_set_specs("image/svg+xml");
//! assert_eq!(specs, ["mime", "mime:image", "mime:image:svg*2Bxml"]);
//! assert_eq!(mime_from_set_spec(&specs[2]).as_deref(), Some("image/svg+xml"));
//!
//! let spec = folder_set_spec("docs/annual reports".as_bytes());
//! assert_eq!(spec, "path:docs:annual*20reports");
//! assert_eq!(folder_from_set_spec(&spec).as_deref(), Some("docs/annual reports".as_bytes()));
//! ```

use std::fmt;

/// The root of the MIME-type hierarchy.
pub const MIME_ROOT: &str = "mime";

/// The root of the folder hierarchy: the site's root folder, so the set of every file.
pub const PATH_ROOT: &str = "path";

/// True when `spec` lies in one of the hierarchies modoai makes itself (`mime…`, `path…`), which
/// named sets of a configuration may not use.
pub fn is_reserved(spec: &str) -> bool {
    let root = spec.split(':').next().unwrap_or("");
    root == MIME_ROOT || root == PATH_ROOT
}

/// The set spec of a folder, given as the bytes of its path relative to the site root with `/`
/// between its names (empty for the root folder): `path`, then one part per name, each byte
/// outside the setSpec alphabet (and `*`) written `*XX`.
pub fn folder_set_spec(folder: &[u8]) -> String {
    let mut spec = PATH_ROOT.to_owned();
    for name in folder.split(|&b| b == b'/').filter(|n| !n.is_empty()) {
        spec.push(':');
        spec.push_str(&escape_bytes(name));
    }
    spec
}

/// The folder (its path relative to the site root, `/` between names; empty for the root) whose
/// set `spec` is, if `spec` is a folder set spec.
pub fn folder_from_set_spec(spec: &str) -> Option<Vec<u8>> {
    let rest = spec.strip_prefix(PATH_ROOT)?;
    if rest.is_empty() {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    for (i, part) in rest.strip_prefix(':')?.split(':').enumerate() {
        let name = unescape_bytes(part)?;
        if name.is_empty() || name.contains(&b'/') {
            return None;
        }
        if i > 0 {
            out.push(b'/');
        }
        out.extend_from_slice(&name);
    }
    Some(out)
}

/// A syntactically valid setSpec.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SetSpec(String);

impl SetSpec {
    /// Checks `s` against the XSD pattern `([A-Za-z0-9\-_\.!~\*'\(\)])+(:[A-Za-z0-9\-_\.!~\*'\(\)]+)*`.
    pub fn parse(s: &str) -> Option<SetSpec> {
        let valid = s
            .split(':')
            .all(|part| !part.is_empty() && part.bytes().all(is_spec_char));
        valid.then(|| SetSpec(s.to_owned()))
    }

    /// The spec as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True if `other` is this set or lies below it in the hierarchy (§2.7.2: harvesting a set
    /// includes its descendants).
    pub fn contains(&self, other: &str) -> bool {
        other == self.0 || (other.starts_with(&self.0) && other.as_bytes()[self.0.len()] == b':')
    }
}

impl fmt::Display for SetSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A byte of the setSpec (and metadataPrefix) alphabet.
pub fn is_spec_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b)
}

/// The three set specs of a MIME type: the root, the top-level type and the full type.
/// Parameters are dropped and the type is lower-cased first.
pub fn mime_set_specs(mime: &str) -> [String; 3] {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let (ty, sub) = essence.split_once('/').unwrap_or((&essence, ""));
    let ty = escape(ty);
    let full = format!("{MIME_ROOT}:{ty}:{}", escape(sub));
    [MIME_ROOT.to_owned(), format!("{MIME_ROOT}:{ty}"), full]
}

/// The MIME type (or top-level type) a set spec of the hierarchy stands for.
pub fn mime_from_set_spec(spec: &str) -> Option<String> {
    let rest = spec.strip_prefix(MIME_ROOT)?.strip_prefix(':')?;
    match rest.split_once(':') {
        Some((ty, sub)) => Some(format!("{}/{}", unescape(ty)?, unescape(sub)?)),
        None => unescape(rest),
    }
}

/// A human-readable name for a set of the hierarchy.
pub fn mime_set_name(spec: &str) -> String {
    match mime_from_set_spec(spec) {
        None => "All files, by MIME type".to_owned(),
        Some(m) if m.contains('/') => format!("Files of MIME type {m}"),
        Some(m) => format!("Files of MIME media type {m}/*"),
    }
}

fn escape(part: &str) -> String {
    escape_bytes(part.as_bytes())
}

fn escape_bytes(part: &[u8]) -> String {
    let mut out = String::with_capacity(part.len());
    for &b in part {
        if is_spec_char(b) && b != b'*' {
            out.push(b as char);
        } else {
            out.push_str(&format!("*{b:02X}"));
        }
    }
    if out.is_empty() {
        out.push_str("*00");
    }
    out
}

fn unescape(part: &str) -> Option<String> {
    String::from_utf8(unescape_bytes(part)?).ok()
}

fn unescape_bytes(part: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(part.len());
    let mut bytes = part.bytes();
    while let Some(b) = bytes.next() {
        if b == b'*' {
            let hex = [bytes.next()?, bytes.next()?];
            let v = u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?;
            if v != 0 {
                out.push(v);
            }
        } else {
            out.push(b);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_are_valid_and_reversible() {
        for mime in [
            "image/jpeg",
            "image/svg+xml",
            "application/atom+xml",
            "application/vnd.ms-excel",
            "application/x-foo_bar",
            "text/x-weird*type",
            "text/plain; charset=utf-8",
        ] {
            for spec in mime_set_specs(mime) {
                assert!(SetSpec::parse(&spec).is_some(), "{spec} from {mime}");
            }
            let full = &mime_set_specs(mime)[2];
            let essence = mime.split(';').next().unwrap();
            assert_eq!(mime_from_set_spec(full).as_deref(), Some(essence));
        }
        assert_eq!(
            mime_set_specs("text/x-weird*type")[2],
            "mime:text:x-weird*2Atype"
        );
        assert_eq!(mime_set_specs("Image/JPEG")[2], "mime:image:jpeg");
    }

    #[test]
    fn hierarchy() {
        let image = SetSpec::parse("mime:image").unwrap();
        assert!(image.contains("mime:image"));
        assert!(image.contains("mime:image:jpeg"));
        assert!(!image.contains("mime:imagex"));
        assert!(!image.contains("mime"));
    }

    #[test]
    fn invalid_specs() {
        for bad in [
            "",
            ":",
            "a:",
            ":a",
            "a::b",
            "image/jpeg",
            "svg+xml",
            "a b",
            "a%2F",
        ] {
            assert!(SetSpec::parse(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn folder_specs_are_valid_reversible_and_apart_from_mime() {
        for folder in [
            "",
            "docs",
            "docs/reports",
            "annual reports/2019",
            "caf\u{e9}/100%/a*b+c",
            "x.y_z-(1)!~'",
        ] {
            let spec = folder_set_spec(folder.as_bytes());
            assert!(SetSpec::parse(&spec).is_some(), "{spec} from {folder:?}");
            assert!(is_reserved(&spec) && mime_from_set_spec(&spec).is_none());
            assert_eq!(
                folder_from_set_spec(&spec).as_deref(),
                Some(folder.as_bytes())
            );
        }
        let odd = [b'a', 0xff, b' ', b'/', b'b'];
        let spec = folder_set_spec(&odd);
        assert_eq!(spec, "path:a*FF*20:b");
        assert_eq!(folder_from_set_spec(&spec).as_deref(), Some(&odd[..]));
        assert_eq!(folder_set_spec(b"100%"), "path:100*25");
        assert!(SetSpec::parse("path:docs")
            .unwrap()
            .contains("path:docs:reports"));
        assert_eq!(folder_from_set_spec("pathx"), None);
        assert_eq!(
            folder_from_set_spec("path:a*2Fb"),
            None,
            "no / inside a name"
        );
        assert_eq!(folder_from_set_spec("mime:image"), None);
        assert!(!is_reserved("reports") && !is_reserved("pathways:x"));
        assert!(is_reserved("mime:x") && is_reserved("path"));
    }

    #[test]
    fn names() {
        assert_eq!(mime_set_name("mime"), "All files, by MIME type");
        assert_eq!(
            mime_set_name("mime:image"),
            "Files of MIME media type image/*"
        );
        assert_eq!(
            mime_set_name("mime:image:svg*2Bxml"),
            "Files of MIME type image/svg+xml"
        );
    }
}

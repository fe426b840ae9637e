//! URL paths of records: each file's relative path, one canonical percent-encoded form.

use std::borrow::Cow;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use percent_encoding::{percent_decode_str, percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Everything but the unreserved characters of RFC 3986 (§2.3) is percent-encoded: in a path
/// segment, which gives each file one canonical identifier, and in a query value.
pub(crate) const UNRESERVED_ONLY: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The URL path of a relative file path: each segment's bytes percent-encoded, joined by `/`.
pub(crate) fn encode(rel: &Path) -> String {
    let segments: Vec<String> = rel
        .components()
        .map(|c| percent_encode(c.as_os_str().as_bytes(), UNRESERVED_ONLY).to_string())
        .collect();
    segments.join("/")
}

/// The canonical form of a URL path, `encode(&decode(path))`, without a copy when `path` is
/// already canonical: segments of unreserved characters only (RFC 3986 §2.3), none empty, none
/// `.`, the case of almost every request.
pub(crate) fn canonical(path: &str) -> Cow<'_, str> {
    // A segment `encode` leaves as it is: the encoder borrows it rather than copy it.
    let kept = |segment: &str| {
        matches!(
            Cow::from(percent_encode(segment.as_bytes(), UNRESERVED_ONLY)),
            Cow::Borrowed(_)
        )
    };
    let plain = path
        .split('/')
        .all(|segment| !segment.is_empty() && segment != "." && kept(segment));
    if plain {
        Cow::Borrowed(path)
    } else {
        Cow::Owned(encode(&decode(path)))
    }
}

/// One path segment (a file or folder name) percent-encoded as [`encode`] does.
pub(crate) fn encode_segment(name: &[u8]) -> String {
    percent_encode(name, UNRESERVED_ONLY).to_string()
}

/// The relative file path of a URL path made by [`encode`] (its exact inverse: `%` itself is
/// encoded there, and `/` cannot be part of a name).
pub(crate) fn decode(path: &str) -> PathBuf {
    let bytes: Vec<u8> = percent_decode_str(path).collect();
    PathBuf::from(std::ffi::OsStr::from_bytes(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn encodes_each_segment() {
        assert_eq!(encode(Path::new("a b/c+d/ü.txt")), "a%20b/c%2Bd/%C3%BC.txt");
        assert_eq!(
            encode(Path::new(OsStr::from_bytes(b"bad\xffname"))),
            "bad%FFname"
        );
    }

    #[test]
    fn the_canonical_form_is_the_encoding_of_the_decoded_path() {
        for path in [
            "a/b.txt",
            "dir/sub/~x-y_z.html",
            "a//b",
            "./a",
            "a/./b",
            "a/../b",
            "a/",
            "/a",
            "a%20b/c",
            "a%2fb",
            "%41.txt",
            "a b",
            "ü.txt",
            "..",
            "x/..",
            "",
        ] {
            assert_eq!(canonical(path), encode(&decode(path)), "{path:?}");
        }
        assert!(matches!(
            canonical("a/b.txt"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn decoding_undoes_encoding() {
        for raw in [
            &b"a b/c+d/\xc3\xbc.txt"[..],
            b"bad\xffname",
            b"100%/%41%25.txt",
            b"dir/sub/~x-y_z.html",
            b"\x01\x7f/]]>&<'\"",
        ] {
            let rel = Path::new(OsStr::from_bytes(raw));
            assert_eq!(decode(&encode(rel)), rel, "{raw:?}");
        }
    }
}

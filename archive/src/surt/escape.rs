//! Percent-unescaping and re-escaping of paths and queries, and path normalisation.

/// `urllib.parse.unquote_to_bytes` until nothing changes.
pub(super) fn unescape_repeatedly(input: &[u8]) -> Vec<u8> {
    let mut current = input.to_vec();
    loop {
        let next = unquote(&current);
        if next == current {
            return current;
        }
        current = next;
    }
}

pub(super) fn unquote(input: &[u8]) -> Vec<u8> {
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        let decoded = match input.get(i..i + 3) {
            Some([b'%', h, l]) => hex(*h).zip(hex(*l)).map(|(h, l)| (h * 16 + l) as u8),
            _ => None,
        };
        match decoded {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(input[i]);
                i += 1;
            }
        }
    }
    out
}

/// `escapeOnce`: `quote_from_bytes` with every printable ASCII byte safe except `#` and `%`.
pub(super) fn escape_once(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    for &b in input {
        if (0x21..=0x7e).contains(&b) && b != b'#' && b != b'%' {
            out.push(b);
        } else {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        }
    }
    out
}

/// `normalizePath`: resolve `.` and `..` (a `..` above the root is kept), collapse empty
/// segments, keep a trailing `/`.
pub(super) fn normalize_path(path: &[u8]) -> Vec<u8> {
    if path.is_empty() {
        return b"/".to_vec();
    }
    let mut kept: Vec<&[u8]> = Vec::new();
    for segment in path.split(|&b| b == b'/').skip(1) {
        match segment {
            b"." => {}
            b".." if !kept.is_empty() => {
                kept.pop();
            }
            _ => kept.push(segment),
        }
    }
    let mut out = b"/".to_vec();
    if let Some((last, init)) = kept.split_last() {
        for segment in init.iter().filter(|s| !s.is_empty()) {
            out.extend_from_slice(segment);
            out.push(b'/');
        }
        out.extend_from_slice(last);
    }
    out
}

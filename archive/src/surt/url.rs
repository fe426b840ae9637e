//! Splitting a URL as handyurl does: Python's byte-string helpers, the default scheme, host and
//! port.

use super::SurtError;

/// Python's `bytes.strip()`: ASCII whitespace including `\x0b`, which `trim_ascii` keeps.
pub(super) fn trim_py(s: &[u8]) -> &[u8] {
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let start = s.iter().position(|b| !is_space(b)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|b| !is_space(b))
        .map_or(start, |i| i + 1);
    &s[start..end]
}

pub(super) fn trim_start_byte(s: &[u8], byte: u8) -> &[u8] {
    &s[s.iter().position(|&b| b != byte).unwrap_or(s.len())..]
}

pub(super) fn trim_end_byte(s: &[u8], byte: u8) -> &[u8] {
    &s[..s.iter().rposition(|&b| b != byte).map_or(0, |i| i + 1)]
}

/// The index of the first byte of `s` in `set`, or `s.len()`.
pub(super) fn find_any(s: &[u8], set: &[u8]) -> usize {
    s.iter().position(|b| set.contains(b)).unwrap_or(s.len())
}

/// The length of a leading `[a-zA-Z][a-zA-Z0-9+.-]*:` scheme, without its colon.
pub(super) fn scheme_len(url: &[u8]) -> Option<usize> {
    if !url.first()?.is_ascii_alphabetic() {
        return None;
    }
    let end = url
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))?;
    (url[end] == b':').then_some(end)
}

/// `addDefaultSchemeIfNeeded`: anything that looks like `scheme:` is kept, so `host:8080/x` has
/// the scheme `host`, as in the package.
pub(super) fn with_default_scheme(url: Vec<u8>) -> Vec<u8> {
    match scheme_len(&url) {
        Some(_) => url,
        None => [b"http://".as_slice(), &url].concat(),
    }
}

/// `^(https?://)+` replaced by its last repetition ("http://https/order.1and1.com").
pub(super) fn collapse_protocols(url: &[u8]) -> Vec<u8> {
    let (mut pos, mut last): (usize, &[u8]) = (0, b"");
    loop {
        let rest = &url[pos..];
        let prefix: &[u8] = if rest.starts_with(b"http://") {
            b"http://"
        } else if rest.starts_with(b"https://") {
            b"https://"
        } else {
            break;
        };
        pos += prefix.len();
        last = prefix;
    }
    [last, &url[pos..]].concat()
}

/// Python's `SplitResultBytes.hostname` and `.port`, then `port or None`.
pub(super) fn split_host_port(netloc: &[u8]) -> Result<(Option<Vec<u8>>, Option<u16>), SurtError> {
    let hostinfo = match netloc.iter().rposition(|&b| b == b'@') {
        Some(at) => &netloc[at + 1..],
        None => netloc,
    };
    let (hostname, port) = match hostinfo.iter().position(|&b| b == b'[') {
        Some(open) => {
            let bracketed = &hostinfo[open + 1..];
            let close = bracketed.iter().position(|&b| b == b']');
            let (name, after) = match close {
                Some(c) => (&bracketed[..c], &bracketed[c + 1..]),
                None => (bracketed, &bracketed[..0]),
            };
            let port = after
                .iter()
                .position(|&b| b == b':')
                .map(|c| &after[c + 1..]);
            (name, port.unwrap_or_default())
        }
        None => match hostinfo.iter().position(|&b| b == b':') {
            Some(c) => (&hostinfo[..c], &hostinfo[c + 1..]),
            None => (hostinfo, &hostinfo[..0]),
        },
    };
    let port = parse_port(port)?.filter(|&p| p != 0);
    if hostname.is_empty() {
        return Ok((None, port));
    }
    // A scoped IPv6 zone (`%eth0`) keeps its case.
    let zone = hostname
        .iter()
        .position(|&b| b == b'%')
        .unwrap_or(hostname.len());
    let mut host = hostname[..zone].to_ascii_lowercase();
    host.extend_from_slice(&hostname[zone..]);
    Ok((Some(host), port))
}

pub(super) fn parse_port(port: &[u8]) -> Result<Option<u16>, SurtError> {
    if port.is_empty() {
        return Ok(None);
    }
    let invalid = || SurtError::InvalidPort(String::from_utf8_lossy(port).into_owned());
    if !port.iter().all(u8::is_ascii_digit) {
        return Err(invalid());
    }
    let value = port.iter().try_fold(0u32, |n, &d| {
        let n = n * 10 + u32::from(d - b'0');
        (n <= 65535).then_some(n)
    });
    value
        .and_then(|v| u16::try_from(v).ok())
        .map(Some)
        .ok_or_else(invalid)
}

//! The host part of the Google canonicaliser: IDNA 2003, dots, IPv4 forms.

use std::cell::RefCell;
use std::sync::LazyLock;

use regex::bytes::Regex;

use super::escape::{escape_once, unescape_repeatedly};
use super::url::{trim_end_byte, trim_start_byte};

thread_local! {
    /// The last host canonicalised and its result: the URLs of one harvest share a host or a
    /// few, and IDNA and the IPv4 forms cost more than the rest of a key.
    static LAST: RefCell<(Vec<u8>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// The host part of `GoogleURLCanonicalizer.canonicalize`.
pub(super) fn canonical_host(host: &[u8]) -> Vec<u8> {
    LAST.with_borrow_mut(|(input, output)| {
        if input.as_slice() != host || input.is_empty() {
            *output = canonicalize(host);
            input.clear();
            input.extend_from_slice(host);
        }
        output.clone()
    })
}

fn canonicalize(host: &[u8]) -> Vec<u8> {
    let mut host = unescape_repeatedly(host);
    if !host.is_ascii() {
        if let Some(ascii) = idna_2003(&decode_utf8_ignore(&host)) {
            host = ascii.into_bytes();
        }
    }
    let host = replace_double_dots(&host);
    let host = trim_end_byte(trim_start_byte(&host, b'.'), b'.');
    match attempt_ip_formats(host) {
        Some(ip) => ip.into_bytes(),
        None => escape_once(&host.to_ascii_lowercase()),
    }
}

/// `bytes.decode('utf-8', 'ignore')`: invalid sequences are dropped.
pub(super) fn decode_utf8_ignore(bytes: &[u8]) -> String {
    bytes.utf8_chunks().map(|chunk| chunk.valid()).collect()
}

/// Python's `str.encode('idna')` (IDNA 2003): `None` where Python raises, which leaves the host
/// as it was. Nameprep is approximated by UTS 46 with the transitional mappings of the four
/// deviation characters, which is where IDNA 2003 and UTS 46 non-transitional differ most.
pub(super) fn idna_2003(host: &str) -> Option<String> {
    if host.is_empty() {
        return Some(String::new());
    }
    let mut labels: Vec<&str> = host
        .split(['.', '\u{3002}', '\u{ff0e}', '\u{ff61}'])
        .collect();
    let trailing_dot = labels.last().is_some_and(|l| l.is_empty());
    if trailing_dot {
        labels.pop();
    }
    let mut out = labels
        .into_iter()
        .map(idna_2003_label)
        .collect::<Option<Vec<_>>>()?
        .join(".");
    if trailing_dot {
        out.push('.');
    }
    Some(out)
}

pub(super) fn idna_2003_label(label: &str) -> Option<String> {
    let ascii = if label.is_ascii() {
        label.to_owned()
    } else {
        let mapped: String = label
            .chars()
            .filter(|c| !matches!(c, '\u{200c}' | '\u{200d}'))
            .map(|c| match c {
                '\u{3c2}' => "\u{3c3}".to_owned(),
                '\u{df}' => "ss".to_owned(),
                c => c.to_string(),
            })
            .collect();
        if mapped.is_empty() || mapped.to_ascii_lowercase().starts_with("xn--") {
            return None;
        }
        idna::uts46::Uts46::new()
            .to_ascii(
                mapped.as_bytes(),
                idna::uts46::AsciiDenyList::EMPTY,
                idna::uts46::Hyphens::Allow,
                idna::uts46::DnsLength::Ignore,
            )
            .ok()?
            .into_owned()
    };
    (!ascii.is_empty() && ascii.len() < 64 && !ascii.contains('.')).then_some(ascii)
}

/// `bytes.replace(b'..', b'.')`: one non-overlapping pass, so `...` becomes `..`.
pub(super) fn replace_double_dots(host: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(host.len());
    let mut i = 0;
    while i < host.len() {
        out.push(host[i]);
        i += if host[i..].starts_with(b"..") { 2 } else { 1 };
    }
    out
}

pub(super) static DECIMAL_IP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?-u)[1-9][0-9]*(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?$").unwrap());
pub(super) static OCTAL_IP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?-u)0[0-7]*(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?$").unwrap());

/// `attemptIPFormats`: an all-digit host is a 32-bit number (masked, as the package does); a
/// dotted decimal or octal host goes through `gethostbyname`, i.e. glibc's `inet_aton`. Hex
/// forms (`0x7f.1`) match neither pattern and stay host names, as in the package. A dotted host
/// that `inet_aton` rejects would fall through to a DNS lookup in Python, which fails for such
/// names; it stays a host name here.
pub(super) fn attempt_ip_formats(host: &[u8]) -> Option<String> {
    if !host.is_empty() && host.iter().all(u8::is_ascii_digit) {
        let value = host.iter().fold(0u32, |n, &d| {
            n.wrapping_mul(10).wrapping_add(u32::from(d - b'0'))
        });
        return Some(dotted_quad(value));
    }
    if DECIMAL_IP.is_match(host) || OCTAL_IP.is_match(host) {
        return inet_aton(host).map(dotted_quad);
    }
    None
}

/// glibc `inet_aton` on digits and dots: 1 to 4 parts, a leading `0` means octal, the last part
/// fills the remaining bytes.
pub(super) fn inet_aton(host: &[u8]) -> Option<u32> {
    let parts: Vec<&[u8]> = host.split(|&b| b == b'.').collect();
    let mut values = Vec::with_capacity(parts.len());
    for part in &parts {
        let (digits, radix) = match part.strip_prefix(b"0") {
            Some(rest) if !rest.is_empty() => (rest, 8),
            _ => (*part, 10),
        };
        let text = std::str::from_utf8(digits).ok()?;
        values.push(u32::from_str_radix(text, radix).ok()?);
    }
    let (last, leading) = values.split_last()?;
    if leading.len() > 3 || leading.iter().any(|&v| v > 0xff) {
        return None;
    }
    let max = [0xffff_ffff, 0xff_ffff, 0xffff, 0xff][leading.len()];
    if *last > max {
        return None;
    }
    let high = leading
        .iter()
        .enumerate()
        .fold(0u32, |acc, (i, &v)| acc | v << (24 - 8 * i));
    Some(high | last)
}

pub(super) fn dotted_quad(value: u32) -> String {
    std::net::Ipv4Addr::from(value).to_string()
}

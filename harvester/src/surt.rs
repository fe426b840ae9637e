//! SURT keys: the Internet Archive's URL canonicalisation, byte-compatible with the Python `surt`
//! package 0.3.1 (`surt.surt(url)` with default options), which pywb and cdxj-indexer use for CDXJ
//! keys.
//!
//! ```
//! use modoai_harvester::surt::{mementomap_key, surt};
//!
//! let key = surt("HTTP://WWW.Example.COM:80/A/B/Index.HTML?B=2&a=1#Frag")?;
//! assert_eq!(key, "com,example)/a/b/index.html?a=1&b=2");
//! assert_eq!(mementomap_key(&key), "com,example)/a/b/index.html");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The steps follow the package's own pipeline (handyurl parsing, then the Google and IA
//! canonicalisers), including its quirks: the scheme is dropped, the path and query are lowercased
//! (case-only differences collide), and the query is unescaped before it is split on `&`. The
//! differences that remain are documented in the differential test (`tests/surt.rs`).

use std::sync::LazyLock;

use regex::bytes::Regex;

/// Why a URL has no SURT (the Python package raises an exception for these).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SurtError {
    /// The URL holds only whitespace.
    #[error("url is blank")]
    Blank,
    /// The authority's port is not a decimal number in 0..=65535.
    #[error("invalid port {0:?}")]
    InvalidPort(String),
}

/// Returns the SURT key of `url`, as `surt.surt(url)` does.
///
/// The empty string gives `-`; input starting with `filedesc` passes through unchanged.
pub fn surt(url: &str) -> Result<String, SurtError> {
    if url.is_empty() {
        return Ok("-".to_owned());
    }
    if url.starts_with("filedesc") {
        return Ok(url.to_owned());
    }
    let mut parts = Parts::parse(url.as_bytes())?;
    parts.canonicalize_google();
    parts.canonicalize_ia();
    Ok(parts.into_key())
}

/// The MementoMap key of a SURT (archive.md §5.2): the query dropped, then leading and trailing
/// `/` and `,` removed, as the reference tool's `surt.split("?")[0].strip("/,")` does.
///
/// ```
/// use modoai_harvester::surt::mementomap_key;
/// assert_eq!(mementomap_key("com,example)/"), "com,example)");
/// assert_eq!(mementomap_key("com,example)/a/2.html?x=1"), "com,example)/a/2.html");
/// ```
pub fn mementomap_key(surt: &str) -> &str {
    let without_query = surt.split('?').next().unwrap_or_default();
    without_query.trim_matches(['/', ','])
}

/// A URL as handyurl holds it. Empty host, path and query mean "absent": the package only ever
/// tests them for truthiness.
struct Parts {
    scheme: Vec<u8>,
    host: Vec<u8>,
    port: Option<u16>,
    path: Vec<u8>,
    query: Vec<u8>,
}

impl Parts {
    /// `handyurl.parse`: clean up, add a default scheme, split with the RFC 2396 regex.
    fn parse(url: &[u8]) -> Result<Self, SurtError> {
        let cleaned: Vec<u8> = trim_py(url)
            .iter()
            .copied()
            .filter(|b| !matches!(b, b'\n' | b'\r' | b'\t'))
            .collect();
        if cleaned.is_empty() {
            // Python fails here with an AttributeError (no scheme to test).
            return Err(SurtError::Blank);
        }
        let url = collapse_protocols(&with_default_scheme(cleaned));
        let colon = scheme_len(&url).expect("a default scheme was added");
        let (scheme, rest) = (url[..colon].to_vec(), &url[colon + 1..]);

        let (netloc, rest) = match rest.strip_prefix(b"//") {
            Some(after) => after.split_at(find_any(after, b"/?#")),
            None => (&rest[..0], rest),
        };
        let (path, rest) = rest.split_at(find_any(rest, b"?#"));
        let query = match rest.strip_prefix(b"?") {
            Some(after) => &after[..find_any(after, b"#")],
            None => &rest[..0],
        };

        let netloc = trim_end_byte(netloc, b':');
        let (mut host, port) = split_host_port(netloc)?;
        let mut path = path.to_vec();
        // "http:////www.vikings.com": the host sits in the path (case-sensitive `startswith`).
        if scheme.starts_with(b"http") && host.is_none() && !path.is_empty() {
            let trimmed = trim_start_byte(&path, b'/');
            let slash = trimmed.iter().position(|&b| b == b'/');
            let (h, p) = match slash {
                Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
                None => (trimmed, &trimmed[..0]),
            };
            host = Some(h.to_vec());
            path = [b"/", p].concat();
        }
        Ok(Self {
            scheme,
            host: host.unwrap_or_default(),
            port,
            path,
            query: query.to_vec(),
        })
    }

    /// `GoogleURLCanonicalizer.canonicalize`: unescape and re-escape, IDNA, IPv4 forms, paths.
    fn canonicalize_google(&mut self) {
        if !self.query.is_empty() {
            self.query = escape_once(&unescape_repeatedly(&self.query));
        }
        if !self.host.is_empty() {
            self.host = canonical_host(&self.host);
        }
        let path = unescape_repeatedly(&self.path);
        let path = if self.host.is_empty() {
            path // a free-form path such as `dns:` or `urn:` carries
        } else {
            normalize_path(&path)
        };
        self.path = escape_once(&path);
    }

    /// `IAURLCanonicalizer.canonicalize` with its defaults.
    fn canonicalize_ia(&mut self) {
        self.host.make_ascii_lowercase();
        if !self.host.is_empty() && self.scheme != b"dns" {
            if let Some(m) = WWW.find(&self.host) {
                self.host.drain(..m.end());
            }
        }
        let default_port = match self.scheme.to_ascii_lowercase().as_slice() {
            b"http" => 80,
            b"https" => 443,
            _ => 0,
        };
        if self.port == Some(default_port) {
            self.port = None;
        }
        if !self.path.is_empty() {
            self.path.make_ascii_lowercase();
            self.path = strip_session_ids(&PATH_SESSION_IDS[..], &self.path, path_session_replace);
            if self.path.len() > 1 && self.path.ends_with(b"/") {
                self.path.pop();
            }
        }
        if !self.query.is_empty() {
            let query =
                strip_session_ids(&QUERY_SESSION_IDS[..], &self.query, query_session_replace);
            self.query = alpha_reorder_query(&query.to_ascii_lowercase());
        }
    }

    /// `handyurl.geturl_bytes(surt=True, with_scheme=False)`.
    fn into_key(self) -> String {
        let mut out = Vec::new();
        if self.host.is_empty() {
            out.extend_from_slice(&self.scheme);
            out.push(b':');
        } else {
            let labels: Vec<&[u8]> = self.host.split(|&b| b == b'.').rev().collect();
            out.extend_from_slice(&labels.join(&b','));
            if let Some(port) = self.port {
                out.extend_from_slice(format!(":{port}").as_bytes());
            }
            out.push(b')');
        }
        if !self.path.is_empty() {
            out.extend_from_slice(&self.path);
        } else if !self.query.is_empty() {
            out.push(b'/');
        }
        if !self.query.is_empty() {
            out.push(b'?');
            out.extend_from_slice(&self.query);
        }
        // Everything but the scheme was percent-escaped to ASCII, and the scheme is ASCII.
        String::from_utf8(out).expect("a SURT key is ASCII")
    }
}

/// Python's `bytes.strip()`: ASCII whitespace including `\x0b`, which `trim_ascii` keeps.
fn trim_py(s: &[u8]) -> &[u8] {
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let start = s.iter().position(|b| !is_space(b)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|b| !is_space(b))
        .map_or(start, |i| i + 1);
    &s[start..end]
}

fn trim_start_byte(s: &[u8], byte: u8) -> &[u8] {
    &s[s.iter().position(|&b| b != byte).unwrap_or(s.len())..]
}

fn trim_end_byte(s: &[u8], byte: u8) -> &[u8] {
    &s[..s.iter().rposition(|&b| b != byte).map_or(0, |i| i + 1)]
}

/// The index of the first byte of `s` in `set`, or `s.len()`.
fn find_any(s: &[u8], set: &[u8]) -> usize {
    s.iter().position(|b| set.contains(b)).unwrap_or(s.len())
}

/// The length of a leading `[a-zA-Z][a-zA-Z0-9+.-]*:` scheme, without its colon.
fn scheme_len(url: &[u8]) -> Option<usize> {
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
fn with_default_scheme(url: Vec<u8>) -> Vec<u8> {
    match scheme_len(&url) {
        Some(_) => url,
        None => [b"http://".as_slice(), &url].concat(),
    }
}

/// `^(https?://)+` replaced by its last repetition ("http://https/order.1and1.com").
fn collapse_protocols(url: &[u8]) -> Vec<u8> {
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
fn split_host_port(netloc: &[u8]) -> Result<(Option<Vec<u8>>, Option<u16>), SurtError> {
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

fn parse_port(port: &[u8]) -> Result<Option<u16>, SurtError> {
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

/// The host part of `GoogleURLCanonicalizer.canonicalize`.
fn canonical_host(host: &[u8]) -> Vec<u8> {
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
fn decode_utf8_ignore(bytes: &[u8]) -> String {
    bytes.utf8_chunks().map(|chunk| chunk.valid()).collect()
}

/// Python's `str.encode('idna')` (IDNA 2003): `None` where Python raises, which leaves the host
/// as it was. Nameprep is approximated by UTS 46 with the transitional mappings of the four
/// deviation characters, which is where IDNA 2003 and UTS 46 non-transitional differ most.
fn idna_2003(host: &str) -> Option<String> {
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

fn idna_2003_label(label: &str) -> Option<String> {
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
fn replace_double_dots(host: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(host.len());
    let mut i = 0;
    while i < host.len() {
        out.push(host[i]);
        i += if host[i..].starts_with(b"..") { 2 } else { 1 };
    }
    out
}

static DECIMAL_IP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?-u)[1-9][0-9]*(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?$").unwrap());
static OCTAL_IP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?-u)0[0-7]*(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?$").unwrap());

/// `attemptIPFormats`: an all-digit host is a 32-bit number (masked, as the package does); a
/// dotted decimal or octal host goes through `gethostbyname`, i.e. glibc's `inet_aton`. Hex
/// forms (`0x7f.1`) match neither pattern and stay host names, as in the package. A dotted host
/// that `inet_aton` rejects would fall through to a DNS lookup in Python, which fails for such
/// names; it stays a host name here.
fn attempt_ip_formats(host: &[u8]) -> Option<String> {
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
fn inet_aton(host: &[u8]) -> Option<u32> {
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

fn dotted_quad(value: u32) -> String {
    std::net::Ipv4Addr::from(value).to_string()
}

/// `urllib.parse.unquote_to_bytes` until nothing changes.
fn unescape_repeatedly(input: &[u8]) -> Vec<u8> {
    let mut current = input.to_vec();
    loop {
        let next = unquote(&current);
        if next == current {
            return current;
        }
        current = next;
    }
}

fn unquote(input: &[u8]) -> Vec<u8> {
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
fn escape_once(input: &[u8]) -> Vec<u8> {
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
fn normalize_path(path: &[u8]) -> Vec<u8> {
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

static WWW: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(?-u)www[0-9]*\.").unwrap());

static PATH_SESSION_IDS: LazyLock<[Regex; 2]> = LazyLock::new(|| {
    [
        r"^(?i-u)(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^?]+\.aspx.*)$",
        r"^(?i-u)(.*/)(\([0-9a-z]{24}\)/)([^?]+\.aspx.*)$",
    ]
    .map(|re| Regex::new(re).unwrap())
});

static QUERY_SESSION_IDS: LazyLock<[Regex; 5]> = LazyLock::new(|| {
    [
        r"^(?i-u)(.*)(?:jsessionid=[0-9a-z]{32})(?:&(.*))?$",
        r"^(?i-u)(.*)(?:phpsessid=[0-9a-z]{32})(?:&(.*))?$",
        r"^(?i-u)(.*)(?:sid=[0-9a-z]{32})(?:&(.*))?$",
        r"^(?i-u)(.*)(?:aspsessionid[a-z]{8}=[a-z]{24})(?:&(.*))?$",
        r"^(?i-u)(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$",
    ]
    .map(|re| Regex::new(re).unwrap())
});

/// Applies each pattern in turn, as `stripPathSessionID` / `stripQuerySessionID` do.
fn strip_session_ids(
    patterns: &[Regex],
    input: &[u8],
    replace: fn(&regex::bytes::Captures<'_>) -> Vec<u8>,
) -> Vec<u8> {
    let mut current = input.to_vec();
    for pattern in patterns {
        if let Some(caps) = pattern.captures(&current) {
            current = replace(&caps);
        }
    }
    current
}

fn group<'h>(caps: &regex::bytes::Captures<'h>, i: usize) -> &'h [u8] {
    caps.get(i).map_or(&[], |m| m.as_bytes())
}

fn path_session_replace(caps: &regex::bytes::Captures<'_>) -> Vec<u8> {
    [group(caps, 1), group(caps, 3)].concat()
}

fn query_session_replace(caps: &regex::bytes::Captures<'_>) -> Vec<u8> {
    [group(caps, 1), group(caps, 2)].concat()
}

/// `alphaReorderQuery`: sort the `&` arguments as Python sorts `(name,)` / `(name, value)`
/// tuples, so `a` < `a=` < `a=1`, and bare names compare by name only.
fn alpha_reorder_query(query: &[u8]) -> Vec<u8> {
    if query.len() <= 1 {
        return query.to_vec();
    }
    let mut args: Vec<(&[u8], Option<&[u8]>)> = query
        .split(|&b| b == b'&')
        .map(|arg| match arg.iter().position(|&b| b == b'=') {
            Some(eq) => (&arg[..eq], Some(&arg[eq + 1..])),
            None => (arg, None),
        })
        .collect();
    args.sort();
    let joined: Vec<Vec<u8>> = args
        .into_iter()
        .map(|(name, value)| match value {
            Some(value) => [name, b"=", value].concat(),
            None => name.to_vec(),
        })
        .collect();
    joined.join(&b'&')
}

//! The head of a record: a WARC version line and header fields (WARC 1.1 §4), or an ARC v1
//! header line (`URL IP-ADDRESS ARCHIVE-DATE CONTENT-TYPE LENGTH`).

/// Longest record head accepted.
pub(crate) const MAX_HEAD: usize = 1 << 20;

/// A WARC record's head: the version (`1.0`, `1.1`, …), the fields in order, the block length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WarcHead {
    pub(crate) version: String,
    pub(crate) fields: Vec<(String, String)>,
    pub(crate) length: u64,
}

/// The fields of an ARC v1 header line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ArcLine {
    pub(crate) url: String,
    pub(crate) ip: String,
    /// The 14 digits of the archive date.
    pub(crate) date: String,
    pub(crate) content_type: String,
    pub(crate) length: u64,
}

/// Why a head could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HeadError {
    /// A line that is neither a field nor a continuation.
    Line(String),
    /// No `Content-Length`, or one that is not a number.
    Length,
    /// An ARC line without five fields, a 14-digit date and a length.
    ArcLine(String),
}

impl std::fmt::Display for HeadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeadError::Line(l) => write!(f, "bad header line {l:?}"),
            HeadError::Length => f.write_str("no usable Content-Length"),
            HeadError::ArcLine(l) => write!(f, "bad ARC header line {l:?}"),
        }
    }
}

/// Whether `line` starts a WARC record (`WARC/` and a digit).
pub(crate) fn is_warc_start(bytes: &[u8]) -> bool {
    bytes.len() >= 6 && bytes.starts_with(b"WARC/") && bytes[5].is_ascii_digit()
}

/// The end of the head in `bytes` (just after its blank line), if it is there.
pub(crate) fn head_end(bytes: &[u8], from: usize) -> Option<usize> {
    // A line end is LF after any number of CRs (some producers write CR CR LF).
    let mut at = from.saturating_sub(3);
    while let Some(i) = memchr::memchr(b'\n', &bytes[at..]) {
        let mut next = at + i + 1;
        while bytes.get(next) == Some(&b'\r') {
            next += 1;
        }
        if bytes.get(next) == Some(&b'\n') {
            return Some(next + 1);
        }
        at = at + i + 1;
    }
    None
}

/// Parses a WARC head (version line, fields, blank line); lines may end in CRLF or LF, and a
/// line that starts with a space or tab continues the field before it (§4 allows folding).
pub(crate) fn parse_warc(head: &[u8]) -> Result<WarcHead, HeadError> {
    let mut lines = head.split(|&b| b == b'\n').map(trim_cr);
    let first = lines.next().unwrap_or_default();
    let version = String::from_utf8_lossy(&first[5..]).trim().to_owned();
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in lines {
        if line.is_empty() {
            break;
        }
        if line[0] == b' ' || line[0] == b'\t' {
            let Some((_, value)) = fields.last_mut() else {
                return Err(bad_line(line));
            };
            let more = String::from_utf8_lossy(line);
            value.push(' ');
            value.push_str(more.trim());
            continue;
        }
        let Some(colon) = memchr::memchr(b':', line) else {
            return Err(bad_line(line));
        };
        let name = String::from_utf8_lossy(&line[..colon]).trim().to_owned();
        if name.is_empty() || name.contains(' ') {
            return Err(bad_line(line));
        }
        let value = String::from_utf8_lossy(&line[colon + 1..])
            .trim()
            .to_owned();
        fields.push((name, value));
    }
    let length = fields
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("Content-Length"))
        .and_then(|(_, v)| v.parse::<u64>().ok())
        .ok_or(HeadError::Length)?;
    Ok(WarcHead {
        version,
        fields,
        length,
    })
}

/// Parses an ARC v1 header line (without its line end). The fields are read from the right, so
/// a URL with a space in it still parses.
pub(crate) fn parse_arc(line: &[u8]) -> Result<ArcLine, HeadError> {
    let bad = || HeadError::ArcLine(String::from_utf8_lossy(line).into_owned());
    let text = std::str::from_utf8(trim_cr(line)).map_err(|_| bad())?;
    let mut parts = text.rsplitn(5, ' ');
    let length = parts.next().ok_or_else(bad)?;
    let content_type = parts.next().ok_or_else(bad)?;
    let date = parts.next().ok_or_else(bad)?;
    let ip = parts.next().ok_or_else(bad)?;
    let url = parts.next().ok_or_else(bad)?.trim();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if url.is_empty() || url.contains(char::is_whitespace) && !url.contains("://") {
        return Err(bad());
    }
    if !digits(length) || !digits(date) || date.len() < 14 {
        return Err(bad());
    }
    Ok(ArcLine {
        url: url.to_owned(),
        ip: ip.to_owned(),
        date: date[..14].to_owned(),
        content_type: content_type.to_owned(),
        length: length.parse().map_err(|_| bad())?,
    })
}

/// Whether `line` looks like an ARC header line (a place to resynchronise in an ARC file).
pub(crate) fn is_arc_line(line: &[u8]) -> bool {
    line.contains(&b':') && parse_arc(line).is_ok()
}

fn trim_cr(line: &[u8]) -> &[u8] {
    let end = line.iter().rposition(|&b| b != b'\r').map_or(0, |i| i + 1);
    &line[..end]
}

fn bad_line(line: &[u8]) -> HeadError {
    let shown = &line[..line.len().min(80)];
    HeadError::Line(String::from_utf8_lossy(shown).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warc_heads_with_folding_and_lf_only_lines() {
        let head =
            b"WARC/1.0\r\nWARC-Type: response\r\nX-Folded: a\r\n  b\r\nContent-Length: 5\r\n\r\n";
        assert_eq!(head_end(head, 0), Some(head.len()));
        let WarcHead {
            version,
            fields,
            length,
        } = parse_warc(head).unwrap();
        assert_eq!((version.as_str(), length), ("1.0", 5));
        assert_eq!(fields[1], ("X-Folded".into(), "a b".into()));
        let lf = b"WARC/1.1\nContent-Length: 0\n\n";
        assert_eq!(head_end(lf, 0), Some(lf.len()));
        assert!(parse_warc(lf).is_ok());
        assert_eq!(
            parse_warc(b"WARC/1.1\r\nno colon\r\n\r\n"),
            Err(HeadError::Line("no colon".into()))
        );
        assert_eq!(
            parse_warc(b"WARC/1.1\r\nContent-Length: x\r\n\r\n"),
            Err(HeadError::Length)
        );
    }

    #[test]
    fn arc_lines() {
        let line =
            parse_arc(b"http://example.com/ 93.184.216.119 20140216050221 text/html 1591").unwrap();
        assert_eq!(line.url, "http://example.com/");
        assert_eq!(line.date, "20140216050221");
        assert_eq!(line.length, 1591);
        assert!(parse_arc(b"http://example.com/ 1.2.3.4 20140102000000 text/plain -1").is_err());
        assert!(parse_arc(b"http://example.com/ 1.2.3.4 20140102000000 text/plain abc").is_err());
        assert!(parse_arc(b"1 0 Bad Capture").is_err());
        assert!(is_arc_line(
            b"filedesc://bad.arc.gz 127.0.0.1 20140301000000 text/plain 76"
        ));
    }
}

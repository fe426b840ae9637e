//! The date forms of Memento: HTTP-dates (RFC 7089 §2.1.1, RFC 1123 in GMT) and 14-digit
//! timestamps in URI-Ms.

use time::macros::format_description;
use time::{OffsetDateTime, PrimitiveDateTime};

/// `yyyyMMddHHmmss` of a UTC time.
pub fn timestamp14(t: OffsetDateTime) -> String {
    modoai_archive::archive::timestamp14(t)
}

/// A 14-digit timestamp; shorter prefixes (`2024`, `202405`) are the start of their period, as
/// archives read them.
pub fn parse_timestamp14(digits: &str) -> Option<OffsetDateTime> {
    if digits.is_empty() || digits.len() > 14 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let padded = format!("{digits:0<14}");
    // A prefix pads month and day with zeros: make them the first.
    let mut b = padded.into_bytes();
    if &b[4..6] == b"00" {
        b[5] = b'1';
    }
    if &b[6..8] == b"00" {
        b[7] = b'1';
    }
    let s = String::from_utf8(b).ok()?;
    PrimitiveDateTime::parse(
        &s,
        format_description!("[year][month][day][hour][minute][second]"),
    )
    .ok()
    .map(PrimitiveDateTime::assume_utc)
}

/// An HTTP-date (`Tue, 20 Mar 2001 20:35:00 GMT`).
pub fn http_date(t: OffsetDateTime) -> String {
    httpdate::fmt_http_date(t.into())
}

/// Reads an `Accept-Datetime` value: an RFC 1123 date in GMT. Other forms are malformed.
pub fn parse_http_date(value: &str) -> Option<OffsetDateTime> {
    let value = value.trim();
    // RFC 1123's fixed form only (`Sun, 06 Nov 1994 08:49:37 GMT`), not RFC 850's or asctime's,
    // which HTTP parsers also accept.
    if value.len() != 29 || value.as_bytes()[3] != b',' || !value.ends_with(" GMT") {
        return None;
    }
    httpdate::parse_http_date(value)
        .ok()
        .map(OffsetDateTime::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        let t = parse_http_date("Tue, 20 Mar 2001 20:35:00 GMT").unwrap();
        assert_eq!(timestamp14(t), "20010320203500");
        assert_eq!(http_date(t), "Tue, 20 Mar 2001 20:35:00 GMT");
        for bad in [
            "2001-03-20",
            "Tue, 20 Mar 2001 20:35:00",
            "yesterday",
            "Tuesday, 20-Mar-01 20:35:00 GMT",
        ] {
            assert!(parse_http_date(bad).is_none(), "{bad}");
        }
        assert_eq!(
            timestamp14(parse_timestamp14("2024").unwrap()),
            "20240101000000"
        );
        assert_eq!(
            timestamp14(parse_timestamp14("20240502").unwrap()),
            "20240502000000"
        );
        assert!(parse_timestamp14("2024x").is_none());
        assert!(parse_timestamp14("20241399000000").is_none());
    }
}

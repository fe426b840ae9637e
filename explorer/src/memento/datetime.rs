//! The HTTP-dates of Memento (RFC 7089 §2.1.1, RFC 1123 in GMT): `Accept-Datetime`,
//! `Memento-Datetime` and the TimeMap's datetimes.

use time::OffsetDateTime;

/// An HTTP-date (`Tue, 20 Mar 2001 20:35:00 GMT`).
pub(crate) fn http_date(t: OffsetDateTime) -> String {
    httpdate::fmt_http_date(t.into())
}

/// Reads an `Accept-Datetime` value: an RFC 1123 date in GMT. Other forms are malformed.
pub(crate) fn parse_http_date(value: &str) -> Option<OffsetDateTime> {
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
    use modoai_archive::archive::timestamp14;

    use super::*;
    use crate::search::parse_timestamp14;

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

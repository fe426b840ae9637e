//! Values as a person reads them: sizes, times, languages, facet names.

use crate::search::{Facet, FacetValue};

/// `1.5 MiB`, `320 B`.
pub(super) fn size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// An RFC 3339 time as `2024-05-17 10:22:03 UTC`.
pub(super) fn when(rfc3339: &str) -> String {
    match rfc3339.strip_suffix('Z') {
        Some(t) => format!("{} UTC", t.replacen('T', " ", 1)),
        None => rfc3339.replacen('T', " ", 1),
    }
}

/// A 14-digit time (`YYYYMMDDhhmmss`, a WARC record's) for people, as [`when`] shows RFC 3339.
pub(super) fn when14(t: &str) -> String {
    match t.len() == 14 && t.bytes().all(|b| b.is_ascii_digit()) {
        true => format!(
            "{}-{}-{} {}:{}:{} UTC",
            &t[..4],
            &t[4..6],
            &t[6..8],
            &t[8..10],
            &t[10..12],
            &t[12..]
        ),
        false => t.to_owned(),
    }
}

/// An ISO 639-3 code with the language's English name (`English (eng)`), when known.
pub(super) fn language(code: &str) -> String {
    match whatlang::Lang::from_code(code) {
        Some(l) => format!("{} ({code})", l.eng_name()),
        None => code.to_owned(),
    }
}

/// A facet's name for people.
pub(super) fn facet_label(f: Facet) -> &'static str {
    match f {
        Facet::Year => "Year",
        Facet::Month => "Month",
        Facet::Day => "Day",
        Facet::Host => "Host",
        Facet::Mime => "MIME type",
        Facet::Set => "OAI set",
        Facet::Puid => "Format (PRONOM)",
        Facet::Jhove => "JHOVE",
        Facet::Lang => "Language",
        Facet::Endpoint => "Endpoint",
        Facet::Harvest => "Harvest",
        Facet::Archive => "Collection",
        Facet::Camera => "Camera",
        Facet::Kind => "Record",
        Facet::Sha1 => "SHA-1",
        Facet::Status => "HTTP status",
        Facet::Flag => "Problems",
    }
}

/// A facet value for people (languages named; the rest as they are).
pub(super) fn facet_value(f: Facet, value: &str) -> String {
    match f {
        Facet::Lang => language(value),
        _ => value.to_owned(),
    }
}

/// A facet's counted value for people: a PUID with its format name
/// (`JPEG File Interchange Format (fmt/43)`), a language named, the rest as they are.
pub(super) fn counted_value(f: Facet, v: &FacetValue) -> String {
    match &v.name {
        Some(name) => format!("{name} ({})", v.value),
        None => facet_value(f, &v.value),
    }
}

/// Thousands separated: `12,345`.
pub(super) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `s` cut after `max` characters, with `…` when it was longer.
pub(super) fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// `n thing` or `n things`.
pub(super) fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_well() {
        assert_eq!(size(320), "320 B");
        assert_eq!(size(1536), "1.5 KiB");
        assert_eq!(size(5 * 1024 * 1024), "5.0 MiB");
        assert_eq!(when("2024-05-17T10:22:03Z"), "2024-05-17 10:22:03 UTC");
        assert_eq!(language("eng"), "English (eng)");
        assert_eq!(language("xx"), "xx");
        assert_eq!(count(1234567), "1,234,567");
        assert_eq!(count(999), "999");
        assert_eq!(plural(1, "capture", "captures"), "1 capture");
        assert_eq!(plural(1000, "capture", "captures"), "1,000 captures");
    }
}

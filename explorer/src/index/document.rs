//! A capture as an index document.

use tantivy::indexer::UserOperation;
use tantivy::{DateTime, IndexWriter, TantivyDocument};
use time::macros::format_description;

use super::schema::{Fields, EXCERPT_CHARS};
use modoai_archive::any::Location;

use crate::capture::{tool_facts, Capture, Foreign};

/// A time as an index date. tantivy keeps nanoseconds in an i64, about 285 years either side
/// of 1970: times beyond are the nearest end (before or after every capture), never an overflow.
pub fn date_value(t: time::OffsetDateTime) -> DateTime {
    const LIMIT: i64 = 9_000_000_000;
    DateTime::from_timestamp_secs(t.unix_timestamp().clamp(-LIMIT, LIMIT))
}

/// Adds the documents of `captures` to `writer` as one batch: the writer's indexing thread
/// wakes once for them, not once a document.
pub(super) fn add_all(
    writer: &IndexWriter,
    f: &Fields,
    captures: &[Capture],
) -> tantivy::Result<()> {
    writer.run(captures.iter().map(|c| UserOperation::Add(document(f, c))))?;
    Ok(())
}

/// The document of `capture`.
pub fn document(f: &Fields, c: &Capture) -> TantivyDocument {
    let p = &c.planned;
    let mut d = TantivyDocument::new();
    d.add_text(f.id, &p.id);
    d.add_text(f.url, &p.url);
    d.add_text(f.surt, &p.surt);
    d.add_text(f.host, &p.host);
    d.add_text(f.path, &p.path);
    d.add_date(f.time, date_value(p.time));
    let day = p
        .time
        .format(format_description!("[year]-[month]-[day]"))
        .unwrap_or_default();
    d.add_text(f.year, &day[..4.min(day.len())]);
    d.add_text(f.month, &day[..7.min(day.len())]);
    d.add_text(f.day, &day);
    d.add_text(f.datestamp, &p.datestamp);
    d.add_text(f.mime, &p.mime);
    for s in with_ancestors(&p.sets) {
        d.add_text(f.set, s);
    }
    d.add_u64(f.size, c.size);
    d.add_text(f.sha1, &p.sha1);
    d.add_text(f.endpoint, &p.endpoint);
    d.add_text(f.harvest, &p.harvest);
    d.add_text(f.archive, &p.archive);
    d.add_text(f.identifier, &p.identifier);
    if let Some(pwid) = &p.pwid {
        d.add_text(f.pwid, pwid);
    }
    d.add_text(f.kind, p.kind.as_str());
    d.add_text(f.file, &p.record.file);
    d.add_u64(f.offset, p.record.offset);
    d.add_u64(f.length, p.record.length);
    if let Some(at) = &p.crate_record {
        d.add_text(f.crate_at, at.to_string());
    }
    d.add_text(f.title, &c.title);
    d.add_text(f.text, &c.text);
    for words in [&c.title, &c.text, &p.path] {
        d.add_text(f.words, words);
    }
    let excerpt_end = c
        .text
        .char_indices()
        .nth(EXCERPT_CHARS)
        .map_or(c.text.len(), |(i, _)| i);
    d.add_text(f.excerpt, &c.text[..excerpt_end]);
    let mut optional = |field, value: &Option<String>| {
        if let Some(v) = value {
            d.add_text(field, v);
        }
    };
    optional(f.lang, &c.lang);
    optional(f.puid, &c.findings.puid);
    optional(f.format, &c.findings.format);
    optional(f.jhove, &c.findings.jhove.map(|j| j.as_str().to_owned()));
    optional(f.exif_date, &c.findings.exif_date);
    optional(f.camera, &c.findings.camera);
    optional(f.gps, &c.findings.gps);
    optional(f.source, &c.findings.source);
    optional(f.problem, &c.problem);
    if !c.findings.tools.is_empty() {
        d.add_text(f.tools, tool_facts::encode(&c.findings.tools));
    }
    for k in &c.keywords {
        d.add_text(f.keyword, k);
    }
    if let Some(foreign) = &p.foreign {
        add_foreign(&mut d, f, foreign);
    }
    d
}

/// The fields only foreign captures have.
fn add_foreign(d: &mut TantivyDocument, f: &Fields, foreign: &Foreign) {
    let json = |l: &Location| serde_json::to_string(l).expect("a location serializes");
    d.add_text(f.location, json(&foreign.location));
    if let Some(at) = &foreign.payload {
        d.add_text(f.payload_at, json(at));
    }
    if let Some(class) = foreign.status.and_then(status_class) {
        d.add_text(f.status, class);
    }
    if let Some(to) = &foreign.redirect {
        d.add_text(f.redirect, to);
    }
    if let Some(id) = &foreign.record_id {
        d.add_text(f.record_id, id);
    }
    if foreign.digest_mismatch {
        d.add_text(f.flag, DIGEST_MISMATCH);
    }
    if foreign.is_unresolved() {
        d.add_text(f.flag, UNRESOLVED_REVISIT);
    }
}

/// The flag of a capture whose payload digest did not match.
pub const DIGEST_MISMATCH: &str = "digest-mismatch";
/// The flag of a revisit whose original was not found.
pub const UNRESOLVED_REVISIT: &str = "unresolved-revisit";

/// `2xx`, `3xx`, `4xx`, `5xx` (or `1xx`) of an HTTP status; none outside 100–599.
pub fn status_class(status: u16) -> Option<&'static str> {
    Some(match status {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        500..=599 => "5xx",
        _ => return None,
    })
}

/// Each set and every set above it (`a:b:c` is in `a:b` and `a`, OAI-PMH §2.7.2), once: a
/// provider's header may name only the deepest set of a hierarchy (a modoai folder set), and the
/// facet of a set counts the captures of the sets below it, as harvesting it would.
fn with_ancestors(sets: &[String]) -> std::collections::BTreeSet<&str> {
    sets.iter()
        .flat_map(|s| {
            std::iter::once(s.as_str()).chain(s.match_indices(':').map(move |(i, _)| &s[..i]))
        })
        .collect()
}

#[cfg(test)]
mod set_tests {
    #[test]
    fn statuses_have_their_class() {
        assert_eq!(super::status_class(200), Some("2xx"));
        assert_eq!(super::status_class(304), Some("3xx"));
        assert_eq!(super::status_class(599), Some("5xx"));
        assert_eq!(super::status_class(0), None);
    }

    #[test]
    fn a_set_brings_its_ancestors_once() {
        let sets = ["path:docs:reports", "mime", "mime:text", "conf:2019"].map(String::from);
        let all: Vec<&str> = super::with_ancestors(&sets).into_iter().collect();
        assert_eq!(
            all,
            [
                "conf",
                "conf:2019",
                "mime",
                "mime:text",
                "path",
                "path:docs",
                "path:docs:reports"
            ]
        );
    }
}

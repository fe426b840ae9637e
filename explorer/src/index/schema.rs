//! The index's fields: one document per capture.

use tantivy::schema::{
    DateOptions, DateTimePrecision, Field, IndexRecordOption, Schema, TextFieldIndexing,
    TextOptions, FAST, INDEXED, STORED, STRING,
};

use super::analyzer::{TEXT_ANALYZER, WORDS_ANALYZER};

/// Bumped when the fields change: an index of another version is rebuilt.
pub const SCHEMA_VERSION: u32 = 6;

/// Characters of the text stored for snippets (the whole text is indexed).
pub const EXCERPT_CHARS: usize = 4096;

/// The fields of a capture document.
#[derive(Clone, Copy, Debug)]
pub struct Fields {
    /// Capture id (exact).
    pub id: Field,
    /// The URL, exact.
    pub url: Field,
    /// SURT key, exact (the captures of a URL).
    pub surt: Field,
    /// Host, exact and a facet.
    pub host: Field,
    /// URL path, full text.
    pub path: Field,
    /// Capture time, a date (ranges, sorting).
    pub time: Field,
    /// `YYYY`, `YYYY-MM`, `YYYY-MM-DD` of the capture time: the calendar facets.
    pub year: Field,
    /// See `year`.
    pub month: Field,
    /// See `year`.
    pub day: Field,
    /// The OAI datestamp of the file.
    pub datestamp: Field,
    /// MIME type, a facet.
    pub mime: Field,
    /// OAI setSpecs, a facet (several per capture).
    pub set: Field,
    /// Payload bytes.
    pub size: Field,
    /// Payload SHA-1 (Base32): groups identical bytes.
    pub sha1: Field,
    /// OAI-PMH endpoint, a facet.
    pub endpoint: Field,
    /// Harvest name, a facet.
    pub harvest: Field,
    /// Archive name, a facet.
    pub archive: Field,
    /// The OAI identifier.
    pub identifier: Field,
    /// PWID.
    pub pwid: Field,
    /// `resource` or `revisit`.
    pub kind: Field,
    /// WARC file, offset and length of the payload record.
    pub file: Field,
    /// See `file`.
    pub offset: Field,
    /// See `file`.
    pub length: Field,
    /// WARC file, offset, length of the CRATE (metadata XML) record, as
    /// [`RecordAt`](crate::capture::RecordAt) writes and reads it.
    pub crate_at: Field,
    /// Title, full text and stored.
    pub title: Field,
    /// Text, full text (not stored).
    pub text: Field,
    /// Title, text and path again, as accent-folded words of any language (not stemmed, not
    /// stored): queries search it beside the stemmed fields.
    pub words: Field,
    /// The first characters of the text, stored for snippets.
    pub excerpt: Field,
    /// Language (ISO 639-3), a facet.
    pub lang: Field,
    /// PRONOM PUID, a facet.
    pub puid: Field,
    /// PRONOM format name.
    pub format: Field,
    /// JHOVE verdict, a facet.
    pub jhove: Field,
    /// EXIF capture date.
    pub exif_date: Field,
    /// Camera, a facet.
    pub camera: Field,
    /// GPS position.
    pub gps: Field,
    /// Where the findings came from (the CRATE, or the explorer with its tool).
    pub source: Field,
    /// The capture's most frequent words (word cloud).
    pub keyword: Field,
    /// Why text extraction failed.
    pub problem: Field,
    /// HTTP status class (`2xx` … `5xx`) of a foreign `response` or `revisit`, a facet.
    pub status: Field,
    /// Where a redirect points (stored).
    pub redirect: Field,
    /// A foreign capture's record location (the reader's `Location`, JSON; stored).
    pub location: Field,
    /// Where a foreign capture's payload is (its own record, or a revisit's original; JSON).
    pub payload_at: Field,
    /// `WARC-Record-ID` of a foreign capture (exact): revisits find their original by it.
    pub record_id: Field,
    /// What is wrong with a capture (`digest-mismatch`, `unresolved-revisit`), a facet.
    pub flag: Field,
    /// The explorer's own tool results for a capture without a CRATE (`index --tools`; JSON of
    /// [`tool_facts`](crate::capture::tool_facts); stored).
    pub tools: Field,
}

impl Fields {
    /// The schema and its fields.
    pub fn schema() -> (Schema, Fields) {
        let mut b = Schema::builder();
        let facet = STRING | FAST | STORED;
        let analyzed = |analyzer: &str, stored: bool| {
            let o = TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(analyzer)
                    .set_index_option(IndexRecordOption::WithFreqsAndPositions),
            );
            if stored {
                o.set_stored()
            } else {
                o
            }
        };
        let full_text = |stored: bool| analyzed(TEXT_ANALYZER, stored);
        let date = DateOptions::default()
            .set_indexed()
            .set_fast()
            .set_stored()
            .set_precision(DateTimePrecision::Seconds);
        let fields = Fields {
            id: b.add_text_field("id", STRING | STORED),
            url: b.add_text_field("url", STRING | STORED),
            surt: b.add_text_field("surt", STRING),
            host: b.add_text_field("host", facet.clone()),
            path: b.add_text_field("path", full_text(false)),
            time: b.add_date_field("time", date),
            year: b.add_text_field("year", STRING | FAST),
            month: b.add_text_field("month", STRING | FAST),
            day: b.add_text_field("day", STRING | FAST),
            datestamp: b.add_text_field("datestamp", STRING | STORED),
            mime: b.add_text_field("mime", facet.clone()),
            set: b.add_text_field("set", facet.clone()),
            size: b.add_u64_field("size", INDEXED | FAST | STORED),
            sha1: b.add_text_field("sha1", facet.clone()),
            endpoint: b.add_text_field("endpoint", facet.clone()),
            harvest: b.add_text_field("harvest", facet.clone()),
            archive: b.add_text_field("archive", facet.clone()),
            identifier: b.add_text_field("identifier", STRING | STORED),
            pwid: b.add_text_field("pwid", STRING | STORED),
            kind: b.add_text_field("kind", facet.clone()),
            file: b.add_text_field("file", STORED),
            offset: b.add_u64_field("offset", STORED),
            length: b.add_u64_field("length", STORED),
            crate_at: b.add_text_field("crate_at", STORED),
            title: b.add_text_field("title", full_text(true)),
            text: b.add_text_field("text", full_text(false)),
            words: b.add_text_field("words", analyzed(WORDS_ANALYZER, false)),
            excerpt: b.add_text_field("excerpt", STORED),
            lang: b.add_text_field("lang", facet.clone()),
            puid: b.add_text_field("puid", facet.clone()),
            format: b.add_text_field("format", STRING | STORED),
            jhove: b.add_text_field("jhove", facet.clone()),
            exif_date: b.add_text_field("exif_date", STORED),
            camera: b.add_text_field("camera", facet.clone()),
            gps: b.add_text_field("gps", STORED),
            source: b.add_text_field("source", STORED),
            keyword: b.add_text_field("keyword", STRING | FAST),
            problem: b.add_text_field("problem", STORED),
            status: b.add_text_field("status", facet.clone()),
            redirect: b.add_text_field("redirect", STORED),
            location: b.add_text_field("location", STORED),
            payload_at: b.add_text_field("payload_at", STORED),
            record_id: b.add_text_field("record_id", STRING | STORED),
            flag: b.add_text_field("flag", facet.clone()),
            tools: b.add_text_field("tools", STORED),
        };
        (b.build(), fields)
    }

    /// The fields of an existing index's schema, or `None` when one is missing (another
    /// version: the index is rebuilt).
    pub fn of(schema: &Schema) -> Option<Fields> {
        let (expected, fields) = Fields::schema();
        (schema == &expected).then_some(fields)
    }
}

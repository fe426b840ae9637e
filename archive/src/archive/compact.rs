//! The ledger's line form of an [`Entry`]: JSON without what the rest of the line says again,
//! about a third smaller than every field written out (`docs/archivists.md`, "Formats").
//!
//! A record's field is left out only when reading the line gives it back exactly:
//! - `file` after the first record (an item's records share one WARC file),
//! - `uri` when it is the item's `GetRecord` URL (endpoint, identifier and prefix give it),
//! - `date` when it is the item's `harvested` time in 14 digits,
//! - `indexed` when false.
//!
//! Lines with every field (written before) read the same way.

use modoai_protocol::form::request_url;
use modoai_protocol::Verb;
use serde::{Deserialize, Serialize, Serializer};

use super::ledger::{Entry, EntryKind, Written};
use crate::warc::RecordType;

/// The `GetRecord` URL of an item: the target of its metadata records. The harvest names its
/// records with it, and a ledger line leaves out a `uri` equal to it.
pub fn get_record_url(endpoint: &str, prefix: &str, identifier: &str) -> String {
    request_url(
        endpoint,
        Verb::GetRecord,
        &[("identifier", identifier), ("metadataPrefix", prefix)],
    )
}

/// `2024-05-01T12:03:09Z` as `20240501120309`: its digits, when there are 14 of them.
fn digits14(harvested: &str) -> Option<String> {
    let digits: String = harvested.chars().filter(char::is_ascii_digit).collect();
    (digits.len() == 14).then_some(digits)
}

/// An entry as written: borrowed, the repeated fields left out.
#[derive(Serialize)]
struct Line<'a> {
    endpoint: &'a str,
    prefix: &'a str,
    identifier: &'a str,
    datestamp: &'a str,
    deleted: bool,
    sets: &'a [String],
    harvested: &'a str,
    bytes: u64,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    fixity_errors: &'a [String],
    records: Vec<LineRecord<'a>>,
    #[serde(skip_serializing_if = "EntryKind::is_item")]
    kind: EntryKind,
}

#[derive(Serialize)]
struct LineRecord<'a> {
    #[serde(rename = "type")]
    kind: RecordType,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    offset: u64,
    length: u64,
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri: Option<&'a str>,
    mime: &'a str,
    digest: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    indexed: bool,
}

impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let get_record = get_record_url(&self.endpoint, &self.prefix, &self.identifier);
        let date = digits14(&self.harvested);
        let first_file = self.records.first().map(|r| r.file.as_str());
        let records = self
            .records
            .iter()
            .enumerate()
            .map(|(i, r)| LineRecord {
                kind: r.kind,
                file: (i == 0 || Some(r.file.as_str()) != first_file).then_some(r.file.as_str()),
                offset: r.offset,
                length: r.length,
                id: &r.id,
                uri: (r.uri != get_record).then_some(r.uri.as_str()),
                mime: &r.mime,
                digest: &r.digest,
                date: (date.as_deref() != Some(r.date.as_str())).then_some(r.date.as_str()),
                indexed: r.indexed,
            })
            .collect();
        Line {
            endpoint: &self.endpoint,
            prefix: &self.prefix,
            identifier: &self.identifier,
            datestamp: &self.datestamp,
            deleted: self.deleted,
            sets: &self.sets,
            harvested: &self.harvested,
            bytes: self.bytes,
            fixity_errors: &self.fixity_errors,
            records,
            kind: self.kind,
        }
        .serialize(serializer)
    }
}

/// An entry as read: the fields a line may leave out are optional.
#[derive(Deserialize)]
pub(super) struct StoredEntry {
    endpoint: String,
    prefix: String,
    identifier: String,
    datestamp: String,
    #[serde(default)]
    deleted: bool,
    #[serde(default)]
    sets: Vec<String>,
    harvested: String,
    #[serde(default)]
    bytes: u64,
    #[serde(default)]
    fixity_errors: Vec<String>,
    records: Vec<StoredRecord>,
    #[serde(default)]
    kind: EntryKind,
}

#[derive(Deserialize)]
struct StoredRecord {
    #[serde(rename = "type")]
    kind: RecordType,
    file: Option<String>,
    offset: u64,
    length: u64,
    id: String,
    uri: Option<String>,
    mime: String,
    digest: String,
    date: Option<String>,
    #[serde(default)]
    indexed: bool,
}

impl From<StoredEntry> for Entry {
    fn from(e: StoredEntry) -> Entry {
        let get_record = || get_record_url(&e.endpoint, &e.prefix, &e.identifier);
        let date = digits14(&e.harvested).unwrap_or_default();
        let first_file = e
            .records
            .first()
            .and_then(|r| r.file.clone())
            .unwrap_or_default();
        let records = e
            .records
            .into_iter()
            .map(|r| Written {
                kind: r.kind,
                file: r.file.unwrap_or_else(|| first_file.clone()),
                offset: r.offset,
                length: r.length,
                id: r.id,
                uri: r.uri.unwrap_or_else(get_record),
                mime: r.mime,
                digest: r.digest,
                date: r.date.unwrap_or_else(|| date.clone()),
                indexed: r.indexed,
            })
            .collect();
        Entry {
            endpoint: e.endpoint,
            prefix: e.prefix,
            identifier: e.identifier,
            datestamp: e.datestamp,
            deleted: e.deleted,
            sets: e.sets,
            harvested: e.harvested,
            bytes: e.bytes,
            fixity_errors: e.fixity_errors,
            records,
            kind: e.kind,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: RecordType, file: &str, uri: &str, date: &str, indexed: bool) -> Written {
        Written {
            kind,
            file: file.into(),
            offset: 524,
            length: 685,
            id: "<urn:uuid:83ae6182-377b-4325-84fd-e2d30fabe4ba>".into(),
            uri: uri.into(),
            mime: "application/xml".into(),
            digest: "sha1:23EJPP4CVN5XFCFVEDKJZ7VRGG6F6SB3".into(),
            date: date.into(),
            indexed,
        }
    }

    fn entry(records: Vec<Written>) -> Entry {
        Entry {
            endpoint: "http://127.0.0.1:8080/modoai".into(),
            prefix: "oai_dc".into(),
            identifier: "http://127.0.0.1:8080/a b.txt".into(),
            datestamp: "2026-11-26T22:17:22Z".into(),
            deleted: false,
            sets: vec!["mime".into()],
            harvested: "2026-11-26T22:18:38Z".into(),
            bytes: 567,
            fixity_errors: Vec::new(),
            records,
            kind: EntryKind::Item,
        }
    }

    const GET: &str = "http://127.0.0.1:8080/modoai?verb=GetRecord&identifier=http%3A%2F%2F127.0.0.1%3A8080%2Fa%20b.txt&metadataPrefix=oai_dc";

    #[test]
    fn repeated_fields_are_left_out_and_come_back() {
        let e = entry(vec![
            record(
                RecordType::Resource,
                "x.warc.gz",
                GET,
                "20261126221838",
                true,
            ),
            record(
                RecordType::Metadata,
                "x.warc.gz",
                GET,
                "20261126221838",
                false,
            ),
        ]);
        let line = serde_json::to_string(&e).unwrap();
        for gone in ["\"uri\"", "\"date\"", "\"indexed\":false"] {
            assert!(!line.contains(gone), "{gone} in {line}");
        }
        assert_eq!(line.matches("x.warc.gz").count(), 1, "{line}");
        assert_eq!(serde_json::from_str::<Entry>(&line).unwrap(), e);
    }

    #[test]
    fn fields_that_differ_are_kept() {
        let e = entry(vec![
            record(
                RecordType::Resource,
                "x.warc.gz",
                "http://127.0.0.1:8080/a%20b.txt",
                "20261126221839",
                true,
            ),
            record(
                RecordType::Metadata,
                "y.warc.gz",
                GET,
                "20261126221838",
                false,
            ),
        ]);
        let line = serde_json::to_string(&e).unwrap();
        assert!(
            line.contains("\"uri\":\"http://127.0.0.1:8080/a%20b.txt\""),
            "{line}"
        );
        assert!(line.contains("\"date\":\"20261126221839\""), "{line}");
        assert!(line.contains("y.warc.gz"), "{line}");
        assert_eq!(serde_json::from_str::<Entry>(&line).unwrap(), e);
    }

    #[test]
    fn lines_with_every_field_still_read() {
        let full = r#"{"endpoint":"http://127.0.0.1:8080/modoai","prefix":"oai_dc","identifier":"http://127.0.0.1:8080/a b.txt","datestamp":"2026-11-26T22:17:22Z","deleted":false,"sets":["mime"],"harvested":"2026-11-26T22:18:38Z","bytes":567,"records":[{"type":"resource","file":"x.warc.gz","offset":524,"length":685,"id":"<urn:uuid:83ae6182-377b-4325-84fd-e2d30fabe4ba>","uri":"http://127.0.0.1:8080/modoai?verb=GetRecord&identifier=http%3A%2F%2F127.0.0.1%3A8080%2Fa%20b.txt&metadataPrefix=oai_dc","mime":"application/xml","digest":"sha1:23EJPP4CVN5XFCFVEDKJZ7VRGG6F6SB3","date":"20261126221838","indexed":true}]}"#;
        let e = entry(vec![record(
            RecordType::Resource,
            "x.warc.gz",
            GET,
            "20261126221838",
            true,
        )]);
        assert_eq!(serde_json::from_str::<Entry>(full).unwrap(), e);
        assert!(serde_json::to_string(&e).unwrap().len() < full.len() * 3 / 4);
    }
}

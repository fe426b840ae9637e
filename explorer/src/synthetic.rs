//! Synthetic archives for the benchmark (`scripts/bench`, section `explorer`) and the library's
//! tests: made-up captures written through `modoai-archive` exactly as a harvest writes
//! them (a `resource` record per file, a CRATE record for images, a ledger line, the CDXJ
//! index), with realistic text lengths and mixed MIME types; and deletions of files, and files
//! back after them, as a harvest writes them.

use std::io::Write;
use std::path::Path;

use modoai_archive::archive::{written, Archive, ArchiveError, ArchiveOptions, Entry, EntryKind};
use modoai_archive::warc::{warc_date, RecordType, WarcFields};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use time::{Duration, OffsetDateTime};

/// What to make.
#[derive(Clone, Debug)]
pub struct Spec {
    /// Captures in all.
    pub captures: u64,
    /// Of which captures of one URL ([`HOT_URL`]), an hour apart.
    pub hot: u64,
    /// The first capture's number (to add captures to an archive made before).
    pub first: u64,
    /// Text bytes per text capture, at least and at most.
    pub text: (usize, usize),
    /// Seed of the random words.
    pub seed: u64,
}

/// The URL captured `hot` times.
pub const HOT_URL: &str = "http://h0.example.org/hot.html";
/// The endpoint the captures seem to come from.
pub const ENDPOINT: &str = "http://synthetic.example/modoai";

/// The kinds of file made, one in twenty each: 8 HTML, 5 plain text, 2 XML, 4 JPEG (with a
/// CRATE: FIDO and JHOVE), 1 JSON.
fn kind(i: u64) -> (&'static str, &'static str) {
    match i % 20 {
        0..=7 => ("text/html", "html"),
        8..=12 => ("text/plain", "txt"),
        13..=14 => ("application/xml", "xml"),
        15..=18 => ("image/jpeg", "jpg"),
        _ => ("application/json", "json"),
    }
}

/// Writes the captures of `spec` into the archive at `dir` (created when missing).
pub fn write(dir: &Path, spec: &Spec) -> Result<(), ArchiveError> {
    let mut archive = Archive::open(dir, options())?;
    let words = Words::new(spec.seed);
    let mut rng = StdRng::seed_from_u64(spec.seed ^ spec.first);
    let start = OffsetDateTime::from_unix_timestamp(1_420_070_400).expect("2015-01-01");
    for i in spec.first..spec.first + spec.captures {
        let (mime, ext) = kind(i);
        let hot = i < spec.hot;
        let (url, date) = if hot {
            (HOT_URL.to_owned(), start + Duration::hours(i as i64))
        } else {
            let secs = (i.wrapping_mul(2_654_435_761) % (11 * 365 * 86_400)) as i64;
            (
                format!("http://h{}.example.org/p/{}/{i}.{ext}", i % 40, i % 1000),
                start + Duration::seconds(secs),
            )
        };
        let body = body(mime, &words, &mut rng, spec.text);
        store(&mut archive, &url, mime, date, &body)?;
        if (i + 1) % 10_000 == 0 {
            archive.checkpoint()?;
        }
    }
    archive.close()?;
    Ok(())
}

/// Writes the deletion of `url` at `at` into the archive at `dir`, as a harvest writes a deleted
/// record: a warc-fields `metadata` record (`oai-status: deleted`) and a ledger line marked
/// deleted.
pub fn delete(dir: &Path, url: &str, at: OffsetDateTime) -> Result<(), ArchiveError> {
    let mut archive = Archive::open(dir, options())?;
    let get_record = format!("{ENDPOINT}?verb=GetRecord&metadataPrefix=oai_crate&identifier={url}");
    let records = archive
        .writer(info)
        .group(|w| {
            let mut fields = WarcFields::new();
            fields.field("oai-identifier", url)?;
            fields.field("oai-datestamp", &warc_date(at))?;
            fields.field("oai-status", "deleted")?;
            let mut spool = w.begin_payload();
            spool.write_all(fields.as_bytes())?;
            let kind = "application/warc-fields";
            let m = w.write_metadata_payload(&get_record, kind, at, None, spool)?;
            Ok(vec![written(&m, RecordType::Metadata, kind, false)])
        })
        .map_err(|error| ArchiveError::Io {
            path: dir.to_owned(),
            error,
        })?;
    archive.commit(&Entry {
        deleted: true,
        sets: Vec::new(),
        bytes: 0,
        records,
        ..entry(url, at)
    })?;
    archive.close()?;
    Ok(())
}

/// Writes a new capture of `url` (an HTML page, `body`) at `at` into the archive at `dir`: a
/// file back after its deletion.
pub fn restore(dir: &Path, url: &str, at: OffsetDateTime, body: &str) -> Result<(), ArchiveError> {
    let mut archive = Archive::open(dir, options())?;
    store(&mut archive, url, "text/html", at, body.as_bytes())?;
    archive.close()?;
    Ok(())
}

fn store(
    archive: &mut Archive,
    url: &str,
    mime: &str,
    date: OffsetDateTime,
    body: &[u8],
) -> Result<(), ArchiveError> {
    let dir = archive.dir().to_owned();
    let get_record = format!("{ENDPOINT}?verb=GetRecord&metadataPrefix=oai_crate&identifier={url}");
    let records = archive
        .writer(info)
        .group(|w| {
            let r = w.write_resource(url, mime, date, &[], body)?;
            let mut out = vec![written(&r, RecordType::Resource, mime, true)];
            if mime == "image/jpeg" {
                let mut spool = w.begin_payload();
                spool.write_all(crate_xml(url).as_bytes())?;
                let m = w.write_metadata_payload(
                    &get_record,
                    "application/xml",
                    date,
                    Some(&r),
                    spool,
                )?;
                out.push(written(&m, RecordType::Metadata, "application/xml", true));
            }
            Ok(out)
        })
        .map_err(|error| ArchiveError::Io { path: dir, error })?;
    let (top, sub) = mime.split_once('/').unwrap_or((mime, ""));
    archive.commit(&Entry {
        sets: vec![
            "mime".into(),
            format!("mime:{top}"),
            format!("mime:{top}:{sub}"),
        ],
        bytes: body.len() as u64,
        records,
        ..entry(url, date)
    })
}

/// The archive's options: its id and host.
fn options() -> ArchiveOptions {
    ArchiveOptions {
        archive_id: Some("synthetic.example".into()),
        host: Some("bench".into()),
        ..ArchiveOptions::default()
    }
}

/// The warcinfo of the WARC files.
fn info() -> WarcFields {
    let mut f = WarcFields::new();
    let _ = f.field("isPartOf", "synthetic");
    f
}

/// The ledger entry of `url` at `date`, without records.
fn entry(url: &str, date: OffsetDateTime) -> Entry {
    Entry {
        endpoint: ENDPOINT.into(),
        prefix: "oai_crate".into(),
        identifier: url.into(),
        datestamp: warc_date(date),
        deleted: false,
        sets: Vec::new(),
        harvested: warc_date(date),
        bytes: 0,
        fixity_errors: Vec::new(),
        records: Vec::new(),
        kind: EntryKind::Item,
    }
}

/// The CRATE of a JPEG, as `oai_crate` writes it (FIDO's CSV, JHOVE's XML), without Base64.
fn crate_xml(url: &str) -> String {
    let url = url.replace('&', "&amp;");
    format!(
        r#"<didl:DIDL xmlns:didl="urn:mpeg:mpeg21:2002:02-DIDL-NS" xmlns:crate="urn:modoai:crate:2026"><didl:Item>
<didl:Descriptor><didl:Statement><crate:plugin label="fido" version="1.6.1" status="ok"><crate:output encoding="text">OK,3,fmt/43,"JPEG File Interchange Format","JFIF 1.01",99,"f000001.jpg","image/jpeg","signature"</crate:output></crate:plugin></didl:Statement></didl:Descriptor>
<didl:Descriptor><didl:Statement><crate:plugin label="jhove" version="1.28.0" status="ok"><crate:output encoding="xml"><jhove xmlns="http://schema.openpreservation.org/ois/xml/ns/jhove"><repInfo uri="f000001.jpg"><format>JPEG</format><status>Well-Formed and valid</status></repInfo></jhove></crate:output></crate:plugin></didl:Statement></didl:Descriptor>
<didl:Component><didl:Resource mimeType="image/jpeg" ref="{url}"/></didl:Component></didl:Item></didl:DIDL>"#
    )
}

/// The bytes of one file.
fn body(mime: &str, words: &Words, rng: &mut StdRng, (min, max): (usize, usize)) -> Vec<u8> {
    let len = rng.random_range(min..=max.max(min));
    let text = |rng: &mut StdRng, n: usize| words.text(rng, n);
    match mime {
        "text/html" => {
            let title = text(rng, 40);
            format!("<!DOCTYPE html><html><head><title>{title}</title></head><body><h1>{title}</h1><p>{}</p></body></html>", text(rng, len)).into_bytes()
        }
        "application/xml" => format!(
            "<record><title>{}</title><description>{}</description></record>",
            text(rng, 40),
            text(rng, len)
        )
        .into_bytes(),
        "application/json" => format!(
            "{{\"title\": \"{}\", \"body\": \"{}\"}}",
            text(rng, 40),
            text(rng, len / 2)
        )
        .into_bytes(),
        "image/jpeg" => {
            let mut b = vec![0xFF, 0xD8, 0xFF, 0xE0];
            b.extend((0..rng.random_range(2000..6000)).map(|_| rng.random::<u8>()));
            b.extend([0xFF, 0xD9]);
            b
        }
        _ => text(rng, len).into_bytes(),
    }
}

/// A made-up vocabulary with Zipf-like frequencies (rank r weighs 1/r).
struct Words {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

impl Words {
    fn new(seed: u64) -> Words {
        const SYLLABLES: [&str; 24] = [
            "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "an", "el", "or", "us", "ba", "de",
            "fi", "go", "hu", "ji", "pe", "qu", "ri", "su", "ta", "zo",
        ];
        let mut rng = StdRng::seed_from_u64(seed);
        let mut words = Vec::new();
        let mut cumulative = Vec::new();
        let mut total = 0.0;
        for rank in 1..=20_000u32 {
            let n = rng.random_range(2..=4);
            words.push(
                (0..n)
                    .map(|_| SYLLABLES[rng.random_range(0..SYLLABLES.len())])
                    .collect(),
            );
            total += 1.0 / f64::from(rank);
            cumulative.push(total);
        }
        Words { words, cumulative }
    }

    /// About `bytes` bytes of words.
    fn text(&self, rng: &mut StdRng, bytes: usize) -> String {
        let mut out = String::with_capacity(bytes + 16);
        let total = *self.cumulative.last().expect("words");
        while out.len() < bytes {
            let x = rng.random::<f64>() * total;
            let i = self
                .cumulative
                .partition_point(|c| *c < x)
                .min(self.words.len() - 1);
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&self.words[i]);
        }
        out
    }
}

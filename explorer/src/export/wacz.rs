//! A WACZ 1.1.1 export: the WARC export ([`WarcExport`], the same bytes as `format=warc`) as
//! `archive/data.warc.gz` of a ZIP written as a stream, then its CDXJ index (ZipNum, sorted
//! once the WARC is whole), `pages/pages.jsonl` (the HTML captures) and a `datapackage.json`
//! whose description names the search (`modoai_archive::wacz::WaczStream`).

use std::io::{self, Write};

use modoai_archive::any::{open, RecordKind};
use modoai_archive::archive::timestamp14;
use modoai_archive::cdxj::CdxjLine;
use modoai_archive::surt::surt;
use modoai_archive::wacz::{is_html, WaczStream, DATA_WARC};
use modoai_archive::warc::warc_date;
use serde_json::Value;
use time::OffsetDateTime;

use super::warc::{Placed, WarcContext, WarcError, WarcExport};
use crate::search::{Item, Stored};

/// Writes a WACZ export to `W`, a page of captures at a time.
#[derive(Debug)]
pub struct WaczExport<W: Write> {
    warc: WarcExport,
    package: WaczStream<W>,
    description: String,
}

impl<W: Write> WaczExport<W> {
    /// An export of `context`'s search into `out`; its `warcinfo` record is written.
    pub fn new(context: WarcContext, out: W) -> Result<WaczExport<W>, WarcError> {
        let created = context.created.unwrap_or_else(OffsetDateTime::now_utc);
        let date = warc_date(created);
        let description = format!(
            "The captures found by the search {:?} of modoai-explorer, exported on {date}.",
            context.query
        );
        let software = concat!("modoai-explorer ", env!("CARGO_PKG_VERSION"));
        let title = format!("Search {}", context.query);
        let package = WaczStream::new(out, software, title.trim(), &date)
            .map_err(|e| failed("the package", e))?;
        let mut warc = WarcExport::new(WarcContext {
            created: Some(created),
            ..context
        })
        .keeping_places();
        let mut export = WaczExport {
            warc: WarcExport::new(WarcContext::default()),
            package,
            description,
        };
        warc.head(export.package.warc())?;
        export.warc = warc;
        export.index()?;
        Ok(export)
    }

    /// Writes the records of `captures` (each in the archive at its place in `places`), their
    /// index lines and their pages.
    pub fn page(&mut self, captures: &[(Item, Stored)], places: &[usize]) -> Result<(), WarcError> {
        self.warc.page(captures, places, self.package.warc())?;
        self.index()?;
        for (item, _) in captures {
            if is_html(&item.mime) {
                self.package
                    .page(&item.url, &item.timestamp)
                    .map_err(|e| failed(&item.id, e))?;
            }
        }
        self.package
            .warc()
            .flush()
            .map_err(|e| failed("the package", e))
    }

    /// Writes the index, the pages, `datapackage.json` and the ZIP's central directory; gives
    /// back the writer.
    pub fn finish(self) -> Result<W, WarcError> {
        let mut out = self
            .package
            .finish(Some(&self.description))
            .map_err(|e| failed("the package", e))?;
        out.flush().map_err(|e| failed("the package", e))?;
        Ok(out)
    }

    /// Indexes the records written since the last call.
    fn index(&mut self) -> Result<(), WarcError> {
        for placed in self.warc.take_placed() {
            let line = cdxj_line(&placed).map_err(|e| failed("the index", e))?;
            if let Some(line) = line {
                self.package
                    .index(line)
                    .map_err(|e| failed("the index", e))?;
            }
        }
        Ok(())
    }
}

/// The CDXJ line of a record written into the export (as cdxj-indexer writes it: every value a
/// string); `None` for records replay does not look up (`warcinfo`, `metadata`, `request`).
fn cdxj_line(placed: &Placed) -> io::Result<Option<CdxjLine>> {
    let opened = open(&placed.at)?;
    let f = &opened.fields;
    let mime = match &opened.kind {
        RecordKind::Revisit(_) => "warc/revisit".to_owned(),
        RecordKind::Response => (opened.http.as_ref())
            .and_then(|h| h.mime())
            .unwrap_or_else(|| "unk".into()),
        RecordKind::Resource => f.content_type.clone().unwrap_or_else(|| "unk".into()),
        _ => return Ok(None),
    };
    let (Some(url), Some(date)) = (&f.target_uri, f.date) else {
        return Ok(None);
    };
    let Ok(key) = surt(url) else {
        return Ok(None);
    };
    let mut fields = vec![
        ("url".to_owned(), Value::from(url.as_str())),
        ("mime".to_owned(), Value::from(mime)),
    ];
    if let Some(h) = &opened.http {
        fields.push(("status".to_owned(), Value::from(h.status.to_string())));
    }
    let digest = f.payload_digest.as_ref().or(f.block_digest.as_ref());
    if let Some(d) = digest {
        fields.push(("digest".to_owned(), Value::from(d.text.as_str())));
    }
    fields.extend([
        ("length".to_owned(), Value::from(placed.length.to_string())),
        ("offset".to_owned(), Value::from(placed.offset.to_string())),
        ("filename".to_owned(), Value::from(DATA_WARC)),
    ]);
    Ok(Some(CdxjLine {
        surt: key,
        timestamp: timestamp14(date),
        fields,
    }))
}

fn failed(what: &str, source: io::Error) -> WarcError {
    match source.kind() {
        io::ErrorKind::BrokenPipe => WarcError::Gone,
        _ => WarcError::Record {
            capture: what.to_owned(),
            source,
        },
    }
}

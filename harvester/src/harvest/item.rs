//! One parsed record into the archive: skipped if held already, its inline payloads named and
//! stored, or handed back to wait for its `ref` resources.

use modoai_archive::facts::Facts;
use modoai_archive::warc::{RecordType, Spool};

use super::context::Context;
use super::harvester::Harvester;
use super::parsing::Parsed;
use super::refs::{is_http, Deferred};
use super::store::{Item, Payload};
use super::{HarvestError, Summary};
use crate::parse::Header;

impl Harvester<'_> {
    /// Stores one record, or hands it back to wait for its `ref` resources.
    pub(super) fn item(
        &mut self,
        ctx: &Context,
        parsed: Parsed,
        summary: &mut Summary,
    ) -> Result<Option<Deferred>, HarvestError> {
        let Parsed {
            header,
            xml,
            resources,
            facts,
            wants_refs,
        } = parsed;
        summary.items += 1;
        ctx.site_root.see(&header.identifier);
        if header.identifier.is_empty() {
            summary.bad_records += 1;
            let msg = format!(
                "a record without identifier (datestamp {:?}) was skipped",
                header.datestamp_raw
            );
            tracing::warn!("{msg}");
            self.progress.warn(&msg);
            self.progress.item(0);
            return Ok(None);
        }
        if self.archive.contains(
            ctx.endpoint(),
            ctx.prefix(),
            &header.identifier,
            &header.datestamp_raw,
        ) {
            summary.skipped += 1;
            self.progress.item(0);
            return Ok(None);
        }
        if wants_refs {
            return Ok(Some(Deferred { header, facts, xml }));
        }
        let primary = primary_uri(&header, &facts, || ctx.get_record(&header));
        let payloads = resources
            .into_iter()
            .enumerate()
            .map(|(n, r)| {
                let mime = r
                    .mime_type
                    .clone()
                    .or_else(|| {
                        facts
                            .resources
                            .get(r.index)
                            .and_then(|f| f.mime_type.clone())
                    })
                    .unwrap_or_else(|| "application/octet-stream".into());
                Payload {
                    target_uri: nth_uri(&primary, n),
                    mime,
                    bytes: r.bytes,
                    md5: None,
                    source: "inline".into(),
                }
            })
            .collect();
        self.store(ctx, header, facts, xml, payloads, summary)
            .map(|()| None)
    }

    pub(super) fn store(
        &mut self,
        ctx: &Context,
        header: Header,
        facts: Facts,
        xml: Option<Spool>,
        payloads: Vec<Payload>,
        summary: &mut Summary,
    ) -> Result<(), HarvestError> {
        let item = Item {
            endpoint: ctx.endpoint(),
            prefix: ctx.prefix(),
            header: &header,
            get_record: ctx.get_record(&header),
            facts,
            xml,
            payloads,
        };
        let warcinfo = || ctx.warcinfo.clone();
        let stored = item.store(self.archive, &warcinfo)?;
        let e = &stored.entry;
        summary.archived += 1;
        summary.deleted += u64::from(e.deleted);
        summary.revisits += e
            .records
            .iter()
            .filter(|r| r.kind == RecordType::Revisit)
            .count() as u64;
        summary.bytes += e.bytes;
        summary.fixity_errors += e.fixity_errors.len() as u64;
        for f in &e.fixity_errors {
            self.progress.warn(&format!("{}: fixity {f}", e.identifier));
        }
        self.progress.item(e.bytes);
        Ok(())
    }
}

/// The URL a record's (first) inline payload is archived under: the OAI identifier if it is an
/// http(s) URL (modoai's identifiers are the files' URLs), else a DIDL identifier or `ref` that
/// is one, else the record's GetRecord URL.
fn primary_uri(header: &Header, facts: &Facts, get_record: impl FnOnce() -> String) -> String {
    std::iter::once(header.identifier.as_str())
        .chain(facts.identifiers.iter().map(String::as_str))
        .chain(
            facts
                .resources
                .iter()
                .filter_map(|r| r.reference.as_deref()),
        )
        .find(|u| is_http(u))
        .map_or_else(get_record, str::to_owned)
}

/// The URL of the `n`th inline payload of one record.
fn nth_uri(primary: &str, n: usize) -> String {
    if n == 0 {
        return primary.to_owned();
    }
    let sep = if primary.contains('?') { '&' } else { '?' };
    format!("{primary}{sep}didl-resource={n}")
}

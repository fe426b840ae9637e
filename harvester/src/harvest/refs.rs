//! `didl:Resource/@ref` URLs of records that carry no inline resource: fetched after the page
//! into spools, with their MD5 and served Content-Type.

use std::collections::HashSet;
use std::io::{self, Write};

use md5::{Digest, Md5};
use modoai_archive::archive::{Archive, ArchiveError};
use modoai_archive::facts::Facts;
use modoai_archive::warc::{Spool, DEFAULT_SPOOL_THRESHOLD};

use super::context::Context;
use super::harvester::Harvester;
use super::store::Payload;
use super::{HarvestError, Summary};
use crate::parse::Header;

/// A record waiting for its `ref` resources, fetched after the page (the page's connection holds
/// the host's politeness slot until it ends).
pub(super) struct Deferred {
    pub(super) header: Header,
    pub(super) facts: Facts,
    pub(super) xml: Option<Spool>,
}

impl Harvester<'_> {
    /// Fetches the `ref` resources of a deferred record, then stores it. A resource that cannot
    /// be fetched leaves the item unrecorded, so the next run tries it again.
    pub(super) fn fetch_refs(
        &mut self,
        ctx: &Context,
        d: Deferred,
        summary: &mut Summary,
    ) -> Result<(), HarvestError> {
        let mut payloads = Vec::new();
        let refs: Vec<_> = d
            .facts
            .resources
            .iter()
            .filter_map(|r| {
                Some((
                    r.reference.clone().filter(|u| is_http(u))?,
                    r.mime_type.clone(),
                ))
            })
            .collect();
        let mut seen = HashSet::new();
        for (url, mime) in refs {
            if !seen.insert(url.clone()) {
                continue;
            }
            match self.fetch(&url) {
                Ok((bytes, md5, served)) => payloads.push(Payload {
                    target_uri: url.clone(),
                    mime: mime
                        .or(served)
                        .unwrap_or_else(|| "application/octet-stream".into()),
                    bytes,
                    md5: Some(md5),
                    source: url,
                }),
                Err(e) => {
                    summary.bad_records += 1;
                    let msg = format!("{}: resource {url} not archived: {e}", d.header.identifier);
                    tracing::warn!("{msg}");
                    self.progress.warn(&msg);
                    if let FetchFailure::Archive(a) = e {
                        return Err(a.into());
                    }
                    // The item is not recorded, so the next run tries it again.
                    return Ok(());
                }
            }
        }
        self.store(ctx, d.header, d.facts, d.xml, payloads, summary)
    }

    /// GETs `url` into a spool, with its MD5 and served Content-Type.
    fn fetch(&mut self, url: &str) -> Result<(Spool, String, Option<String>), FetchFailure> {
        let response = self
            .handle
            .block_on(self.client.get(url))
            .map_err(|e| FetchFailure::Fetch(e.to_string()))?;
        let served = response
            .headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut reader = response.into_reader(&self.handle);
        let mut spool = Spool::new(self.archive.layout().spool(), DEFAULT_SPOOL_THRESHOLD);
        let mut md5 = Md5::new();
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = match io::Read::read(&mut reader, &mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(FetchFailure::Fetch(e.to_string())),
            };
            md5.update(&buf[..n]);
            spool
                .write_all(&buf[..n])
                .map_err(|source| FetchFailure::Archive(spool_error(self.archive, source)))?;
        }
        Ok((spool, hex::encode(md5.finalize()), served))
    }
}

enum FetchFailure {
    Fetch(String),
    Archive(ArchiveError),
}

impl std::fmt::Display for FetchFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchFailure::Fetch(e) => f.write_str(e),
            FetchFailure::Archive(e) => e.fmt(f),
        }
    }
}

pub(super) fn spool_error(archive: &Archive, error: io::Error) -> ArchiveError {
    ArchiveError::io(&archive.layout().spool(), error)
}

/// Whether `url` is an http(s) URL (scheme case-insensitive).
pub(super) fn is_http(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

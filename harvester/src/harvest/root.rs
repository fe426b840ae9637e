//! The site's root page `/`, captured once per harvest when the endpoint's identifiers are URLs
//! of its own site: it is the first URL anybody asks a replay for, and no OAI record holds it.

use std::io::Read;

use modoai_archive::archive::{written, Entry, EntryKind, Written};
use modoai_archive::warc::{warc_date, RecordType, DEFAULT_SPOOL_THRESHOLD};
use time::OffsetDateTime;

use super::context::Context;
use super::harvester::Harvester;
use crate::client::FetchError;

impl Harvester<'_> {
    /// GETs the site's root page and archives it (a `resource` record, or a `revisit` of an
    /// identical payload, with its CDXJ line), once per harvest. A site without one (404) or
    /// one that fails is skipped with a note in the log: the harvest itself is complete.
    pub(super) fn capture_site_root(&mut self, ctx: &Context) {
        let Some(url) = ctx.site_root.to_capture().map(str::to_owned) else {
            return;
        };
        match self.fetch_root(ctx, &url) {
            Ok(()) => {}
            Err(RootError::Fetch(FetchError::Status { status, .. })) if status == 404 => {
                tracing::debug!(%url, "the site serves no root page");
            }
            Err(e) => tracing::warn!(%url, "the site's root page was not archived: {e}"),
        }
    }

    fn fetch_root(&mut self, ctx: &Context, url: &str) -> Result<(), RootError> {
        let response = self.handle.block_on(self.client.get(url))?;
        let mime = response
            .headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("application/octet-stream")
            .to_owned();
        let mut reader = response.into_reader(&self.handle);
        let mut spool = modoai_archive::warc::Spool::new(
            self.archive.layout().spool(),
            DEFAULT_SPOOL_THRESHOLD,
        );
        std::io::copy(&mut reader.by_ref(), &mut spool)?;
        let original = match spool.is_empty() {
            true => None,
            false => self.archive.original(&spool.digest())?,
        };
        let date = OffsetDateTime::now_utc();
        let bytes = spool.len();
        let warcinfo = || ctx.warcinfo.clone();
        let record: Written = self.archive.write_group(warcinfo, |w| match &original {
            Some(orig) => w
                .write_revisit(url, date, orig, &[])
                .map(|r| written(&r, RecordType::Revisit, "warc/revisit", true)),
            None => w
                .finish_payload(url, &mime, date, &[], spool)
                .map(|r| written(&r, RecordType::Resource, &mime, true)),
        })?;
        self.archive.commit(&Entry {
            endpoint: ctx.endpoint().to_owned(),
            prefix: ctx.prefix().to_owned(),
            identifier: url.to_owned(),
            datestamp: String::new(),
            deleted: false,
            sets: Vec::new(),
            harvested: warc_date(date),
            bytes,
            fixity_errors: Vec::new(),
            records: vec![record],
            kind: EntryKind::SitePage,
        })?;
        Ok(self.archive.checkpoint()?)
    }
}

#[derive(Debug, thiserror::Error)]
enum RootError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Archive(#[from] modoai_archive::archive::ArchiveError),
}

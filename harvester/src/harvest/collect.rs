//! The [`MetadataSink`] of a harvest: a record's metadata XML and its decoded DIDL resources go
//! to spools (memory up to a threshold, then unnamed temporary files). The MD5 of a fixity check
//! is computed later, only for a record that announces one ([`super::store`]).

use std::io::{self, Write};

use modoai_archive::warc::Spool;

use crate::parse::{MetadataSink, ResourceInfo};

/// One decoded inline resource.
#[derive(Debug)]
pub(crate) struct Decoded {
    pub(crate) index: usize,
    pub(crate) mime_type: Option<String>,
    pub(crate) bytes: Spool,
}

/// Collects one record's metadata at a time.
pub(crate) struct Collector<'a> {
    new_spool: &'a dyn Fn() -> Spool,
    pub(crate) xml: Option<Spool>,
    pub(crate) resources: Vec<Decoded>,
    current: Option<Decoded>,
}

impl<'a> Collector<'a> {
    pub(crate) fn new(new_spool: &'a dyn Fn() -> Spool) -> Self {
        Collector {
            new_spool,
            xml: None,
            resources: Vec::new(),
            current: None,
        }
    }

    /// Hands over what was collected for the record just parsed and starts afresh.
    pub(crate) fn take(&mut self) -> (Option<Spool>, Vec<Decoded>) {
        self.current = None;
        (self.xml.take(), std::mem::take(&mut self.resources))
    }
}

impl MetadataSink for Collector<'_> {
    fn xml(&mut self, piece: &[u8]) -> io::Result<()> {
        let spool = self.xml.get_or_insert_with(|| (self.new_spool)());
        spool.write_all(piece)
    }

    fn resource_start(&mut self, resource: &ResourceInfo) -> io::Result<()> {
        self.current = Some(Decoded {
            index: resource.index,
            mime_type: resource.mime_type.clone(),
            bytes: (self.new_spool)(),
        });
        Ok(())
    }

    fn resource_bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        let decoded = self
            .current
            .as_mut()
            .ok_or_else(|| io::Error::other("resource bytes outside a resource"))?;
        decoded.bytes.write_all(bytes)
    }

    fn resource_end(&mut self) -> io::Result<()> {
        let decoded = self
            .current
            .take()
            .ok_or_else(|| io::Error::other("resource end outside a resource"))?;
        self.resources.push(decoded);
        Ok(())
    }
}

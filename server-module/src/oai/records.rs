//! One record (or header) of a response: the header, then `oai_dc` written at once or
//! `oai_didl`/`oai_crate` streamed through a [`Sink`].

use std::sync::Arc;

use modoai_tools::PluginResult;

use super::response::{Halt, Sink};
use super::Repository;
use crate::formats::{write_dc, write_didl, Fetched};
use crate::index::Entry;
use crate::xml::Xml;

pub(super) fn write_header(repo: &Repository, x: &mut Xml, e: &Entry) {
    x.start(
        "header",
        if e.deleted {
            &[("status", "deleted")]
        } else {
            &[]
        },
    );
    x.leaf("identifier", &[], &repo.identifier(e));
    x.leaf("datestamp", &[], &e.datestamp.to_string());
    for spec in e.set_specs() {
        x.leaf("setSpec", &[], &spec);
    }
    x.end("header");
}

pub(super) fn write_record_dc(repo: &Repository, x: &mut Xml, e: &Entry) {
    x.start("record", &[]);
    write_header(repo, x, e);
    if !e.deleted {
        x.start("metadata", &[]);
        write_dc(x, e, &repo.identifier(e));
        x.end("metadata");
    }
    x.end("record");
}

pub(super) async fn write_record_didl(
    repo: &Repository,
    sink: &mut Sink,
    e: &Entry,
    fetched: Option<Fetched>,
    plugins: Option<&[Arc<PluginResult>]>,
) -> Result<(), Halt> {
    sink.xml.start("record", &[]);
    write_header(repo, &mut sink.xml, e);
    if let Some(fetched) = fetched {
        sink.xml.start("metadata", &[]);
        write_didl(sink, e, &repo.identifier(e), fetched, plugins).await?;
        sink.xml.end("metadata");
    }
    sink.xml.end("record");
    sink.flush().await
}

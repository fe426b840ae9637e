//! What every page of a list shares: the list's key, the policy for `ref` resources and the
//! warcinfo fields, and the request URLs built from them.

use modoai_archive::archive::{get_record_url, ListKey, Running};
use modoai_archive::warc::WarcFields;
use modoai_protocol::form::request_url;
use modoai_protocol::Verb;

use super::origin::SiteRoot;
use super::HarvestOptions;
use crate::client::Client;
use crate::parse::Header;

/// What every page of a list shares.
pub(super) struct Context {
    /// The list: endpoint, format and set.
    pub(super) key: ListKey,
    pub(super) fetch_refs: bool,
    pub(super) warcinfo: WarcFields,
    /// What the identifiers say about the endpoint's site root (captured after the list).
    pub(super) site_root: SiteRoot,
}

impl Context {
    pub(super) fn new(o: &HarvestOptions, prefix: String, client: &Client) -> Self {
        let warcinfo = warcinfo(o, &prefix, client);
        Context {
            key: ListKey {
                endpoint: o.endpoint.clone(),
                prefix,
                set: o.set.clone(),
            },
            fetch_refs: o.fetch_refs,
            warcinfo,
            site_root: SiteRoot::new(&o.endpoint),
        }
    }

    pub(super) fn endpoint(&self) -> &str {
        &self.key.endpoint
    }

    pub(super) fn prefix(&self) -> &str {
        &self.key.prefix
    }

    /// The request of a list's first page.
    pub(super) fn first_url(&self, running: &Running) -> String {
        let mut args = vec![("metadataPrefix", self.prefix())];
        for (name, v) in [
            ("from", &running.from),
            ("until", &running.until),
            ("set", &self.key.set),
        ] {
            if let Some(v) = v {
                args.push((name, v.as_str()));
            }
        }
        request_url(self.endpoint(), Verb::ListRecords, &args)
    }

    /// The request of the page after `token` (only the verb and the token: OAI-PMH §3.5).
    pub(super) fn next_url(&self, token: &str) -> String {
        next_url(self.endpoint(), token)
    }

    /// The GetRecord URL of a record in this format.
    pub(super) fn get_record(&self, header: &Header) -> String {
        get_record_url(self.endpoint(), self.prefix(), &header.identifier)
    }
}

/// The request of the page after `token` at `endpoint`.
pub(super) fn next_url(endpoint: &str, token: &str) -> String {
    request_url(endpoint, Verb::ListRecords, &[("resumptionToken", token)])
}

fn warcinfo(o: &HarvestOptions, prefix: &str, client: &Client) -> WarcFields {
    let mut f = WarcFields::new();
    let mut description = format!("OAI-PMH harvest of {} metadataPrefix={prefix}", o.endpoint);
    if let Some(s) = &o.set {
        description.push_str(&format!(" set={s}"));
    }
    // Names and URLs come from the command line; a control character would fail the field.
    let _ = f.field("isPartOf", &o.name);
    let _ = f.field("description", &description);
    let _ = f.field("http-header-user-agent", &client.config().user_agent);
    let _ = f.field(
        "conformsTo",
        "http://www.openarchives.org/OAI/2.0/openarchivesprotocol.htm",
    );
    f
}

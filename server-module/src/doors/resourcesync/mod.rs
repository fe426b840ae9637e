//! ResourceSync (ANSI/NISO Z39.99-2017) over the site index: the same records, the same
//! datestamp rule and the same deletions as OAI-PMH, as Sitemap documents a ResourceSync client
//! (such as `resync`) reads to copy the site and keep the copy in step.
//!
//! | path | document |
//! |---|---|
//! | `/.well-known/resourcesync` | Source Description: the one Capability List |
//! | `ROUTE/resourcesync/capabilitylist.xml` | Capability List: the Resource List and the Change List |
//! | `ROUTE/resourcesync/resourcelist.xml` | Resource List Index: parts of at most 50,000 files |
//! | `ROUTE/resourcesync/resourcelist.xml?start=P&end=Q` | a part: the files from path `P` to before `Q` |
//! | `ROUTE/resourcesync/changelist.xml` | Change List Index: pages of at most 50,000 changes |
//! | `ROUTE/resourcesync/changelist.xml?from=T[&seq=N]` | a page: the changes from time `T` (change `N`) on |
//! | `ROUTE/resourcesync/capabilitylist.xml?set=S` | the Capability List of the named set `S`: its Resource List |
//! | `ROUTE/resourcesync/resourcelist.xml?set=S[&start=P&end=Q]` | the Resource List Index of `S`, or a part |
//! | `/robots.txt`, when the site has none | `Sitemap:` the Resource List Index |
//!
//! A part is fixed by its two paths and a page by its first change, so a file added or deleted
//! while a client reads the lists never makes an entry appear twice. Every document streams in
//! bounded memory.

mod changes;
mod resources;
mod sitemap;

use std::sync::Arc;

use http::{Method, Response, StatusCode};
use modoai_protocol::form;

use crate::oai::response::{self, http_error};
use crate::oai::{OaiBody, Repository};
use sitemap::Root;

/// Where the Source Description is (at the root of the host, as the specification asks).
pub(crate) const WELL_KNOWN: &str = "/.well-known/resourcesync";

/// The ResourceSync documents modoai serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Document {
    /// The Source Description.
    Description,
    /// The Capability List.
    Capabilities,
    /// The Resource List Index, or one of its parts.
    Resources,
    /// The Change List Index, or one of its pages.
    Changes,
}

impl Document {
    /// The document at `rest`, a path below `ROUTE/resourcesync/`.
    pub(crate) fn below_route(rest: &str) -> Option<Document> {
        match rest {
            "capabilitylist.xml" => Some(Document::Capabilities),
            "resourcelist.xml" => Some(Document::Resources),
            "changelist.xml" => Some(Document::Changes),
            _ => None,
        }
    }
}

/// The URLs of the documents of one repository.
pub(crate) struct Urls {
    pub(crate) description: String,
    pub(crate) capabilities: String,
    pub(crate) resources: String,
    pub(crate) changes: String,
}

impl Urls {
    /// The Capability List of the named set `spec`.
    pub(crate) fn set_capabilities(&self, spec: &str) -> String {
        format!("{}?set={}", self.capabilities, form::encode(spec))
    }

    /// The Resource List Index of the named set `spec`.
    pub(crate) fn set_resources(&self, spec: &str) -> String {
        format!("{}?set={}", self.resources, form::encode(spec))
    }

    /// The documents' URLs: the Source Description at the site's origin, the others below the
    /// OAI route.
    pub(crate) fn of(repo: &Repository) -> Urls {
        let site = &repo.config.base_url;
        let origin = format!(
            "{}://{}",
            site.scheme_str().unwrap_or("http"),
            site.authority().map_or("localhost", |a| a.as_str())
        );
        let dir = format!("{}/resourcesync", repo.base_url);
        Urls {
            description: format!("{origin}{WELL_KNOWN}"),
            capabilities: format!("{dir}/capabilitylist.xml"),
            resources: format!("{dir}/resourcelist.xml"),
            changes: format!("{dir}/changelist.xml"),
        }
    }
}

/// Answers a GET or HEAD of a ResourceSync document; 400 for arguments it does not take, 404 for
/// a part or page beyond the lists, 503 while the first index is built.
pub(crate) async fn answer(
    repo: &Arc<Repository>,
    doc: Document,
    method: &Method,
    query: Option<&str>,
) -> Response<OaiBody> {
    if let Some(refusal) = super::refuse_unless_read(method) {
        return refusal;
    }
    let args = match form::parse(query.unwrap_or("")) {
        Ok(args) => args,
        Err(_) => return http_error(StatusCode::BAD_REQUEST, "the query is not a valid form\n"),
    };
    if !repo.index.is_ready() {
        return response::indexing();
    }
    let urls = Urls::of(repo);
    let set = match arg(&args, "set") {
        Ok(set) => set.map(str::to_owned),
        Err(why) => return http_error(StatusCode::BAD_REQUEST, why),
    };
    if set
        .as_deref()
        .is_some_and(|s| repo.index.definitions().find(s).is_none())
    {
        return http_error(
            StatusCode::NOT_FOUND,
            "no named set has this spec; the Source Description lists their Capability Lists\n",
        );
    }
    let rest: Vec<(String, String)> = args.into_iter().filter(|(k, _)| k != "set").collect();
    match (doc, rest.is_empty(), set) {
        (Document::Description, true, None) => description(repo, &urls),
        (Document::Capabilities, true, None) => capabilities(repo, &urls),
        (Document::Capabilities, true, Some(s)) => set_capabilities(&urls, &s),
        (Document::Resources, true, set) => resources::index(repo, &urls, set).await,
        (Document::Resources, false, set) => resources::part(repo, &urls, &rest, set).await,
        (Document::Changes, true, None) => changes::index(repo, &urls).await,
        (Document::Changes, false, None) => changes::page(repo, &urls, &rest).await,
        (Document::Changes | Document::Description, _, Some(_)) => http_error(
            StatusCode::BAD_REQUEST,
            "a named set has a Capability List and a Resource List only\n",
        ),
        (Document::Description | Document::Capabilities, false, _) => http_error(
            StatusCode::BAD_REQUEST,
            "this document takes no arguments\n",
        ),
    }
}

/// The Capability List of a named set: its Resource List.
fn set_capabilities(urls: &Urls, spec: &str) -> Response<OaiBody> {
    let mut x = sitemap::open(
        Root::List,
        &[("up", &urls.description)],
        &[("capability", "capabilitylist")],
    );
    sitemap::url(
        &mut x,
        &urls.set_resources(spec),
        None,
        &[("capability", "resourcelist")],
    );
    sitemap::complete(x, Root::List)
}

/// The Source Description: this site's Capability List, then one per named set, described by
/// the OAI-PMH Identify.
fn description(repo: &Repository, urls: &Urls) -> Response<OaiBody> {
    let identify = format!("{}?verb=Identify", repo.base_url);
    let mut x = sitemap::open(
        Root::List,
        &[("describedby", &identify)],
        &[("capability", "description")],
    );
    sitemap::url(
        &mut x,
        &urls.capabilities,
        None,
        &[("capability", "capabilitylist")],
    );
    for set in repo.index.definitions().named() {
        sitemap::url(
            &mut x,
            &urls.set_capabilities(set.spec()),
            None,
            &[("capability", "capabilitylist")],
        );
    }
    sitemap::complete(x, Root::List)
}

/// The Capability List: a Resource List and a Change List, with where the Change List's kept
/// history starts (`from`).
fn capabilities(repo: &Repository, urls: &Urls) -> Response<OaiBody> {
    let from = changes::history_start(repo).to_string();
    let mut x = sitemap::open(
        Root::List,
        &[("up", &urls.description)],
        &[("capability", "capabilitylist")],
    );
    sitemap::url(
        &mut x,
        &urls.resources,
        None,
        &[("capability", "resourcelist")],
    );
    let md = [("capability", "changelist"), ("from", from.as_str())];
    sitemap::url(&mut x, &urls.changes, None, &md);
    sitemap::complete(x, Root::List)
}

/// The site's `robots.txt` when it has none: everything allowed, and the Resource List Index as
/// its sitemap, so crawlers that read robots.txt find the lists.
pub(crate) fn robots(repo: &Repository) -> Response<OaiBody> {
    let urls = Urls::of(repo);
    sitemap::text(format!(
        "# This site has no robots.txt of its own; modoai answers with this one.\n\
         User-agent: *\nDisallow:\n\nSitemap: {}\n",
        urls.resources
    ))
}

/// The single value of argument `name`; an error text for a repeated one.
fn arg<'a>(args: &'a [(String, String)], name: &str) -> Result<Option<&'a str>, &'static str> {
    let mut found = args
        .iter()
        .filter(|(k, _)| k == name)
        .map(|(_, v)| v.as_str());
    match (found.next(), found.next()) {
        (v, None) => Ok(v),
        (Some(_), Some(_)) => Err("an argument is repeated\n"),
        (None, Some(_)) => unreachable!("a second value needs a first"),
    }
}

/// Refuses arguments other than `known`.
fn only(args: &[(String, String)], known: &[&str]) -> Result<(), &'static str> {
    match args.iter().all(|(k, _)| known.contains(&k.as_str())) {
        true => Ok(()),
        false => Err("unknown argument; see the index document for the URLs of the lists\n"),
    }
}

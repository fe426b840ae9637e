//! The front doors beside OAI-PMH, all over the one site index: OAI-PMH for people (an HTML view
//! chosen by content negotiation, with the XML at a route of its own), FAIR Signposting
//! (`Link` headers on every file that is a record, and a Linkset per file) and ResourceSync
//! (Sitemap lists of the files and of their changes: `resourcesync`).
//!
//! The paths the layer answers, below the OAI route (default `/modoai`):
//!
//! | path | answer |
//! |---|---|
//! | `/modoai` | OAI-PMH XML; HTML when the browser prefers it ([`prefers_html`]) |
//! | `/modoai/xml` | OAI-PMH XML, always |
//! | `/modoai/linkset?uri=ID` | the file's Linkset, `application/linkset` |
//! | `/modoai/linkset.json?uri=ID` | the file's Linkset, `application/linkset+json` |
//! | `/modoai/resourcesync/…`, `/.well-known/resourcesync` | ResourceSync (`resourcesync`) |
//! | `/modoai/modoai.xsd` | the schema of modoai's own elements (Identify's description) |
//! | `/robots.txt` | the site's, or one naming the Resource List when the site has none |

pub(crate) mod html;
mod negotiate;
pub(crate) mod resourcesync;
mod settings;
mod signpost;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, VARY};
use http::{HeaderValue, Method, Response, StatusCode};
use http_body_util::{BodyExt, Full};

pub use negotiate::prefers_html;
pub(crate) use settings::Doors;
pub use settings::FrontDoorsSection;
pub(crate) use signpost::Signposts;

use crate::formats::Format;
use crate::index::url_path;
use crate::oai::{response, OaiBody, Repository};

/// Which of the layer's doors a request path opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Door {
    /// The OAI-PMH route: XML, or the HTML view by negotiation.
    Oai,
    /// The route that always answers OAI-PMH XML.
    OaiXml,
    /// A file's Linkset.
    Linkset(LinksetKind),
    /// A ResourceSync document.
    ResourceSync(resourcesync::Document),
    /// The site's robots.txt, or ours when the site has none.
    Robots,
    /// The schema of modoai's own namespace.
    Schema,
    /// Anything else: the site.
    Site,
}

/// The two media types of a Linkset (RFC 9264 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LinksetKind {
    /// `application/linkset`
    Text,
    /// `application/linkset+json`
    Json,
}

impl Door {
    /// The door of `path` on a layer whose OAI route is `route`.
    pub(crate) fn of(path: &str, route: &str) -> Door {
        match path {
            resourcesync::WELL_KNOWN => {
                return Door::ResourceSync(resourcesync::Document::Description)
            }
            "/robots.txt" => return Door::Robots,
            _ => {}
        }
        let Some(rest) = path.strip_prefix(route) else {
            return Door::Site;
        };
        match rest {
            "" => Door::Oai,
            "/xml" => Door::OaiXml,
            "/linkset" => Door::Linkset(LinksetKind::Text),
            "/linkset.json" => Door::Linkset(LinksetKind::Json),
            "/modoai.xsd" => Door::Schema,
            _ => rest
                .strip_prefix("/resourcesync/")
                .and_then(resourcesync::Document::below_route)
                .map_or(Door::Site, Door::ResourceSync),
        }
    }
}

/// The value of the `Link` header for a plain GET or HEAD of `path`, when it is the URL path of
/// a live record (a folder's URL, served as its index.html, is not: `cite-as` must name what it
/// is on).
pub(crate) fn signposts_for(repo: &Repository, method: &Method, path: &str) -> Option<HeaderValue> {
    if !matches!(*method, Method::GET | Method::HEAD) || !repo.index.is_ready() {
        return None;
    }
    let base = repo.config.base_url.path();
    let rel = path
        .strip_prefix(base.trim_end_matches('/'))?
        .strip_prefix('/')?;
    if rel.is_empty() || rel.ends_with('/') {
        return None;
    }
    let canonical = url_path::canonical(rel);
    let entry = repo.index.latest(&canonical).filter(|e| !e.deleted)?;
    let formats: Vec<Format> = Format::available(repo.config.plugins.is_some()).collect();
    let identifier = repo.identifier(&entry);
    let header = signpost::link_header(&identifier, &entry.mime, &repo.base_url, &formats);
    HeaderValue::from_maybe_shared(Bytes::from(header)).ok()
}

fn signposts(repo: &Repository, identifier: &str, mime: &str) -> Signposts {
    let formats: Vec<Format> = Format::available(repo.config.plugins.is_some()).collect();
    Signposts::new(identifier, mime, &repo.base_url, &formats)
}

/// Answers `GET /modoai/linkset[.json]?uri=ID`: the Linkset of the live record whose identifier
/// is `ID`; 404 with a short text for anything else, so nothing outside the index is described.
pub(crate) fn linkset(
    repo: &Repository,
    kind: LinksetKind,
    method: &Method,
    query: Option<&str>,
) -> Response<OaiBody> {
    if let Some(refusal) = refuse_unless_read(method) {
        return refusal;
    }
    let pairs = modoai_protocol::form::parse_bytes(query.unwrap_or("").as_bytes());
    let uri = pairs
        .ok()
        .and_then(|p| p.into_iter().find(|(k, _)| k == "uri").map(|(_, v)| v));
    let Some(uri) = uri else {
        return response::http_error(
            StatusCode::BAD_REQUEST,
            "give the file's identifier: ?uri=URL\n",
        );
    };
    let entry = match repo.entry(&uri) {
        Ok(e) if !e.deleted => e,
        _ => return response::http_error(StatusCode::NOT_FOUND, "no record has this identifier\n"),
    };
    let s = signposts(repo, &uri, &entry.mime);
    let (body, media_type) = match kind {
        LinksetKind::Text => (s.linkset_text(), signpost::LINKSET_TEXT),
        LinksetKind::Json => (s.linkset_json().to_string(), signpost::LINKSET_JSON),
    };
    let mut res = Response::new(
        Full::new(Bytes::from(body))
            .map_err(|e| match e {})
            .boxed_unsync(),
    );
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(media_type));
    res
}

/// The schema of `urn:modoai:ns:2026`, which Identify's description names in its
/// `xsi:schemaLocation` so that any validator can check that element (the OAI-PMH schema's
/// description wildcard is strict).
pub(crate) const SCHEMA: &str = include_str!("../../../schemas/modoai.xsd");

/// Answers `GET ROUTE/modoai.xsd`.
pub(crate) fn schema(method: &Method) -> Response<OaiBody> {
    if let Some(refusal) = refuse_unless_read(method) {
        return refusal;
    }
    let mut res = Response::new(
        Full::new(Bytes::from_static(SCHEMA.as_bytes()))
            .map_err(|e| match e {})
            .boxed_unsync(),
    );
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/xml"));
    res
}

/// 405 with `Allow` for anything but GET and HEAD, the only methods of the documents the doors
/// serve.
fn refuse_unless_read(method: &Method) -> Option<Response<OaiBody>> {
    if matches!(*method, Method::GET | Method::HEAD) {
        return None;
    }
    let mut res = response::http_error(StatusCode::METHOD_NOT_ALLOWED, "use GET or HEAD\n");
    res.headers_mut()
        .insert(http::header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    Some(res)
}

/// Marks a response of the negotiating route as depending on `Accept` (RFC 9110 §12.5.5).
pub(crate) fn vary_on_accept(res: &mut Response<OaiBody>) {
    res.headers_mut()
        .append(VARY, HeaderValue::from_static("accept"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doors_are_sub_paths_of_the_route_only() {
        assert_eq!(Door::of("/modoai", "/modoai"), Door::Oai);
        assert_eq!(Door::of("/modoai/xml", "/modoai"), Door::OaiXml);
        assert_eq!(
            Door::of("/modoai/linkset.json", "/modoai"),
            Door::Linkset(LinksetKind::Json)
        );
        assert_eq!(Door::of("/modoai/other", "/modoai"), Door::Site);
        assert_eq!(
            Door::of("/modoai/resourcesync/changelist.xml", "/modoai"),
            Door::ResourceSync(resourcesync::Document::Changes)
        );
        assert_eq!(
            Door::of("/.well-known/resourcesync", "/modoai"),
            Door::ResourceSync(resourcesync::Document::Description)
        );
        assert_eq!(
            Door::of("/modoai/resourcesync/x.xml", "/modoai"),
            Door::Site
        );
        assert_eq!(Door::of("/robots.txt", "/modoai"), Door::Robots);
        assert_eq!(Door::of("/modoai/modoai.xsd", "/modoai"), Door::Schema);
        assert_eq!(Door::of("/modoaix", "/modoai"), Door::Site);
        assert_eq!(Door::of("/about.html", "/modoai"), Door::Site);
    }
}

//! The Sitemap documents ResourceSync is made of: a `<urlset>` (a list) or a `<sitemapindex>`
//! (an index of lists), each with its `rs:ln` links and its one `rs:md` first, then one child per
//! resource, in the element order of the specification's examples.

use bytes::Bytes;
use http::header::{CACHE_CONTROL, CONTENT_TYPE};
use http::{HeaderValue, Response};
use http_body_util::{BodyExt, Full};
use modoai_protocol::Datestamp;

use crate::oai::OaiBody;
use crate::xml::Xml;

/// The Sitemap namespace.
pub(super) const SITEMAP: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";
/// The ResourceSync namespace of `rs:md` and `rs:ln`.
pub(super) const RS: &str = "http://www.openarchives.org/rs/terms/";
/// Entries of one list at most (the Sitemap protocol's limit).
pub(super) const MAX_ENTRIES: usize = 50_000;
/// The Content-Type of every ResourceSync document.
const XML: &str = "application/xml";

/// The root element of a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Root {
    /// A list: `<urlset>`.
    List,
    /// An index of lists: `<sitemapindex>`.
    Index,
}

impl Root {
    fn name(self) -> &'static str {
        match self {
            Root::List => "urlset",
            Root::Index => "sitemapindex",
        }
    }
}

/// Opens a document: the declaration, the root with both namespaces, the `rs:ln` links
/// (`(rel, href)`) and the document's `rs:md` attributes.
pub(super) fn open(root: Root, links: &[(&str, &str)], md: &[(&str, &str)]) -> Xml {
    let mut x = Xml::new();
    x.declaration();
    x.start(root.name(), &[("xmlns", SITEMAP), ("xmlns:rs", RS)]);
    for (rel, href) in links {
        x.empty("rs:ln", &[("rel", rel), ("href", href)]);
    }
    x.empty("rs:md", md);
    x
}

/// Ends a list.
pub(super) fn close_list(x: &mut Xml) {
    x.end(Root::List.name());
}

/// Ends an index.
pub(super) fn close_index(x: &mut Xml) {
    x.end(Root::Index.name());
}

/// One `<url>`: its location, the resource's last modification when known, its `rs:md`.
pub(super) fn url(x: &mut Xml, loc: &str, lastmod: Option<Datestamp>, md: &[(&str, &str)]) {
    x.start("url", &[]);
    x.leaf("loc", &[], loc);
    if let Some(t) = lastmod {
        x.leaf("lastmod", &[], &t.to_string());
    }
    if !md.is_empty() {
        x.empty("rs:md", md);
    }
    x.end("url");
}

/// One `<sitemap>` of an index: the list's location and its `rs:md`.
pub(super) fn sitemap(x: &mut Xml, loc: &str, md: &[(&str, &str)]) {
    x.start("sitemap", &[]);
    x.leaf("loc", &[], loc);
    x.empty("rs:md", md);
    x.end("sitemap");
}

/// A small document, complete.
pub(super) fn complete(mut x: Xml, root: Root) -> Response<OaiBody> {
    match root {
        Root::List => close_list(&mut x),
        Root::Index => close_index(&mut x),
    }
    let body = Full::new(x.take()).map_err(|e| match e {}).boxed_unsync();
    typed(Response::new(body))
}

/// `res` with the Content-Type of ResourceSync documents; they change with the site, so caches
/// must ask again.
pub(super) fn typed(mut res: Response<OaiBody>) -> Response<OaiBody> {
    let h = res.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(XML));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res
}

/// A plain-text answer (robots.txt).
pub(super) fn text(body: String) -> Response<OaiBody> {
    let mut res = Response::new(
        Full::new(Bytes::from(body))
            .map_err(|e| match e {})
            .boxed_unsync(),
    );
    res.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_has_its_links_and_metadata_before_its_entries() {
        let mut x = open(
            Root::List,
            &[("up", "http://h/cap.xml")],
            &[("capability", "resourcelist")],
        );
        url(
            &mut x,
            "http://h/a%20b.txt",
            Some(Datestamp::from_unix(0)),
            &[("length", "3")],
        );
        close_list(&mut x);
        let s = String::from_utf8(x.take().to_vec()).unwrap();
        let ln = s.find("<rs:ln rel=\"up\"").unwrap();
        let md = s.find("<rs:md capability=\"resourcelist\"/>").unwrap();
        let entry = s.find("<url><loc>http://h/a%20b.txt</loc>").unwrap();
        assert!(ln < md && md < entry, "{s}");
        assert!(s.contains("<lastmod>1970-01-01T00:00:00Z</lastmod><rs:md length=\"3\"/></url>"));
        assert!(s.ends_with("</urlset>"));
    }
}

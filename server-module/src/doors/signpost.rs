//! FAIR Signposting (signposting.org/FAIR): the typed links from a record's file to its metadata
//! and back. Level 1 as `Link` headers on the file (RFC 8288), Level 2 as a Linkset of the file
//! (RFC 9264) in both of its media types.
//!
//! A file of the site has no landing page of its own: the file is the object. So it links
//! `cite-as` to its identifier (the URL it is served at, which dereferences to the file itself),
//! `describedby` to its GetRecord in every format offered, `type` to a schema.org class, and
//! `linkset` to its two Linksets. Each GetRecord target `describes` the file in the Linkset.

use std::fmt::{self, Write as _};

use modoai_protocol::ns;
use percent_encoding::utf8_percent_encode;
use serde_json::{json, Map, Value};

use crate::formats::Format;
use crate::index::url_path::UNRESERVED_ONLY;

/// The media type of the text Linkset (RFC 9264 §4.1).
pub(crate) const LINKSET_TEXT: &str = "application/linkset";
/// The media type of the JSON Linkset (RFC 9264 §4.2).
pub(crate) const LINKSET_JSON: &str = "application/linkset+json";

/// One typed link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) href: String,
    pub(crate) rel: &'static str,
    pub(crate) media_type: Option<&'static str>,
    pub(crate) profile: Option<&'static str>,
}

/// The signposts of one file.
#[derive(Clone, Debug)]
pub(crate) struct Signposts {
    /// The file's identifier: the URL it is served at.
    file: String,
    links: Vec<Link>,
    /// Each GetRecord target, which `describes` the file.
    described_by: Vec<String>,
}

impl Signposts {
    /// The signposts of the file with this identifier and MIME type, on a repository whose
    /// OAI-PMH base URL is `oai_base` and which offers `formats`.
    pub(crate) fn new(identifier: &str, mime: &str, oai_base: &str, formats: &[Format]) -> Self {
        let mut links = Vec::new();
        Sources::new(identifier, mime, oai_base, formats).each_link(
            |href, rel, media_type, profile| {
                links.push(link(href.to_string(), rel, media_type, profile));
            },
        );
        let described_by = links
            .iter()
            .filter(|l| l.rel == "describedby")
            .map(|l| l.href.clone())
            .collect();
        Signposts {
            file: identifier.to_owned(),
            links,
            described_by,
        }
    }

    /// The value of the `Link` header: every link, comma-separated (RFC 8288 §3).
    #[cfg(test)]
    pub(crate) fn header(&self) -> String {
        let mut out = String::new();
        for l in &self.links {
            if !out.is_empty() {
                out.push_str(", ");
            }
            write_link(&mut out, format_args!("{}", l.href), l, None);
        }
        out
    }

    /// The Linkset in `application/linkset` (RFC 9264 §4.1): every link with its anchor, one
    /// per line.
    pub(crate) fn linkset_text(&self) -> String {
        let mut lines: Vec<String> = self
            .links_of_file()
            .map(|l| serialize(l, Some(&self.file)))
            .collect();
        for target in &self.described_by {
            let back = link(self.file.clone(), "describes", None, None);
            lines.push(serialize(&back, Some(target)));
        }
        let mut text = lines.join(",\n");
        text.push('\n');
        text
    }

    /// The Linkset in `application/linkset+json` (RFC 9264 §4.2): one context object for the
    /// file, and one per metadata target with its `describes` link. Extension target attributes
    /// (`profile`) are arrays, as §4.2.4.3 requires.
    pub(crate) fn linkset_json(&self) -> Value {
        let mut file = Map::new();
        file.insert("anchor".into(), json!(self.file));
        for l in self.links_of_file() {
            let mut target = Map::new();
            target.insert("href".into(), json!(l.href));
            if let Some(t) = l.media_type {
                target.insert("type".into(), json!(t));
            }
            if let Some(p) = l.profile {
                target.insert("profile".into(), json!([p]));
            }
            let entry = file.entry(l.rel).or_insert_with(|| json!([]));
            if let Value::Array(targets) = entry {
                targets.push(Value::Object(target));
            }
        }
        let mut contexts = vec![Value::Object(file)];
        contexts.extend(
            self.described_by
                .iter()
                .map(|target| json!({"anchor": target, "describes": [{"href": self.file}]})),
        );
        json!({ "linkset": contexts })
    }

    /// The links of the file itself, without the `linkset` links (a Linkset does not list
    /// itself).
    fn links_of_file(&self) -> impl Iterator<Item = &Link> {
        self.links.iter().filter(|l| l.rel != "linkset")
    }
}

/// The value of the `Link` header of the file with this identifier and MIME type, as
/// `Signposts::new(…).header()` gives it, written straight into one string: every plain GET
/// sends it.
pub(crate) fn link_header(
    identifier: &str,
    mime: &str,
    oai_base: &str,
    formats: &[Format],
) -> String {
    let mut out = String::with_capacity(256 + 160 * (formats.len() + 2));
    Sources::new(identifier, mime, oai_base, formats).each_link(
        |href, rel, media_type, profile| {
            if !out.is_empty() {
                out.push_str(", ");
            }
            write_link(
                &mut out,
                href,
                &link(String::new(), rel, media_type, profile),
                None,
            );
        },
    );
    out
}

/// What a file's links are made of: its identifier and MIME type, the repository's OAI-PMH base
/// URL and the formats it offers.
struct Sources<'a> {
    identifier: &'a str,
    mime: &'a str,
    oai_base: &'a str,
    formats: &'a [Format],
}

impl<'a> Sources<'a> {
    fn new(identifier: &'a str, mime: &'a str, oai_base: &'a str, formats: &'a [Format]) -> Self {
        Sources {
            identifier,
            mime,
            oai_base,
            formats,
        }
    }

    /// Calls `f` with each link of the file (target, relation, media type, profile), in the
    /// order they are listed: `cite-as`, `type`, a `describedby` per format, the two `linkset`s.
    fn each_link(
        &self,
        mut f: impl FnMut(fmt::Arguments<'_>, &'static str, Option<&'static str>, Option<&'static str>),
    ) {
        let Sources {
            identifier,
            mime,
            oai_base,
            formats,
        } = *self;
        let id = utf8_percent_encode(identifier, UNRESERVED_ONLY).to_string();
        f(format_args!("{identifier}"), "cite-as", None, None);
        f(
            format_args!("{}", schema_org_type(mime)),
            "type",
            None,
            None,
        );
        for format in formats {
            f(
                format_args!(
                    "{oai_base}?verb=GetRecord&metadataPrefix={}&identifier={id}",
                    format.prefix()
                ),
                "describedby",
                Some("text/xml"),
                Some(profile(*format)),
            );
        }
        for (suffix, media_type) in [("", LINKSET_TEXT), (".json", LINKSET_JSON)] {
            f(
                format_args!("{oai_base}/linkset{suffix}?uri={id}"),
                "linkset",
                Some(media_type),
                None,
            );
        }
    }
}

fn link(
    href: String,
    rel: &'static str,
    media_type: Option<&'static str>,
    profile: Option<&'static str>,
) -> Link {
    Link {
        href,
        rel,
        media_type,
        profile,
    }
}

/// `<href>; rel="…"; [anchor="…";] type="…"; profile="…"` (RFC 8288 §3), the target `href`
/// and the rest from `l`. Every part is ASCII: identifiers are percent-encoded URLs.
fn write_link(out: &mut String, href: fmt::Arguments<'_>, l: &Link, anchor: Option<&str>) {
    let _ = write!(out, "<{href}>; rel=\"{}\"", l.rel);
    if let Some(a) = anchor {
        let _ = write!(out, "; anchor=\"{a}\"");
    }
    if let Some(t) = l.media_type {
        let _ = write!(out, "; type=\"{t}\"");
    }
    if let Some(p) = l.profile {
        let _ = write!(out, "; profile=\"{p}\"");
    }
}

/// One link as [`write_link`] writes it.
fn serialize(l: &Link, anchor: Option<&str>) -> String {
    let mut s = String::new();
    write_link(&mut s, format_args!("{}", l.href), l, anchor);
    s
}

/// The format's profile URI: its XML namespace; a CRATE's own namespace for `oai_crate`, so
/// that a client can tell it from `oai_didl`.
fn profile(format: Format) -> &'static str {
    match format {
        Format::Crate => ns::CRATE,
        f => f.namespace(),
    }
}

/// The schema.org class of a file of this MIME type (FAIR Signposting's `type`).
fn schema_org_type(mime: &str) -> &'static str {
    match mime.split('/').next().unwrap_or("") {
        "image" => "https://schema.org/ImageObject",
        "audio" => "https://schema.org/AudioObject",
        "video" => "https://schema.org/VideoObject",
        _ if mime == "text/html" => "https://schema.org/WebPage",
        _ => "https://schema.org/DigitalDocument",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Signposts {
        let formats = [Format::Dc, Format::Didl];
        let id = "https://files.example.org/data/a%20b.pdf";
        Signposts::new(
            id,
            "application/pdf",
            "https://files.example.org/modoai",
            &formats,
        )
    }

    #[test]
    fn header_links_the_file_to_its_metadata_and_linksets() {
        let h = report().header();
        let gr = "https://files.example.org/modoai?verb=GetRecord&metadataPrefix=oai_dc&identifier=https%3A%2F%2Ffiles.example.org%2Fdata%2Fa%2520b.pdf";
        assert!(h.starts_with("<https://files.example.org/data/a%20b.pdf>; rel=\"cite-as\", <https://schema.org/DigitalDocument>; rel=\"type\""), "{h}");
        assert!(h.contains(&format!("<{gr}>; rel=\"describedby\"; type=\"text/xml\"; profile=\"http://www.openarchives.org/OAI/2.0/oai_dc/\"")), "{h}");
        assert!(
            h.contains("profile=\"urn:mpeg:mpeg21:2002:02-DIDL-NS\""),
            "{h}"
        );
        assert!(h.contains("<https://files.example.org/modoai/linkset.json?uri=https%3A%2F%2Ffiles.example.org%2Fdata%2Fa%2520b.pdf>; rel=\"linkset\"; type=\"application/linkset+json\""), "{h}");
        assert!(h.is_ascii());
    }

    #[test]
    fn the_header_written_at_once_is_the_one_of_the_links() {
        let id = "https://files.example.org/data/a%20b.pdf";
        for formats in [
            &[Format::Dc][..],
            &[Format::Dc, Format::Didl, Format::Crate],
        ] {
            for mime in ["application/pdf", "image/png", "text/html"] {
                let base = "https://files.example.org/modoai";
                assert_eq!(
                    link_header(id, mime, base, formats),
                    Signposts::new(id, mime, base, formats).header()
                );
            }
        }
    }

    #[test]
    fn json_linkset_has_anchors_arrays_and_back_links() {
        let v = report().linkset_json();
        let contexts = v["linkset"].as_array().unwrap();
        assert_eq!(contexts.len(), 3);
        assert_eq!(
            contexts[0]["anchor"],
            "https://files.example.org/data/a%20b.pdf"
        );
        assert_eq!(
            contexts[0]["describedby"][1]["profile"],
            json!(["urn:mpeg:mpeg21:2002:02-DIDL-NS"])
        );
        assert!(contexts[0].get("linkset").is_none());
        assert_eq!(contexts[2]["describes"][0]["href"], contexts[0]["anchor"]);
    }

    #[test]
    fn text_linkset_gives_every_link_an_anchor() {
        let text = report().linkset_text();
        assert_eq!(text.lines().count(), 6);
        assert!(text.lines().all(|l| l.contains("; anchor=\"")), "{text}");
    }
}

//! [`Facts`]: one record's metadata XML read back, DIDL, HTTP headers and CRATE results.

use std::io::{BufReader, Read};
use std::sync::LazyLock;

use memchr::memmem::Finder;

use modoai_protocol::crate_vocab::{attr as vocab, element, OutputEncoding, PluginStatus};
use modoai_protocol::ns;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;

use super::leaves::{predefined, Leaves};

/// One `crate:plugin` result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PluginFacts {
    /// `label`.
    pub label: String,
    /// `version`.
    pub version: String,
    /// `status` (`ok`, `error`, `timeout`, `missing`, …); `None` when it is missing or not a
    /// value of the schema.
    pub status: Option<PluginStatus>,
    /// `cached`.
    pub cached: String,
    /// `durationMs`.
    pub duration_ms: String,
    /// `note`.
    pub note: String,
    /// The text of a `crate:output encoding="text"`, trimmed; empty for XML or Base64 output.
    pub text: String,
    /// The leaf elements of a `crate:output encoding="xml"` as `(name as written, text)`, in
    /// document order (JHOVE's `status`, ExifTool's `IFD0:Model`…); at most 256, values cut at
    /// 512 characters. Empty for text output.
    pub fields: Vec<(String, String)>,
}

impl PluginFacts {
    /// Whether the tool ran and succeeded (`status="ok"`).
    pub fn is_ok(&self) -> bool {
        self.status == Some(PluginStatus::Ok)
    }

    /// The status as the CRATE names it; `unknown` when it is missing or not the schema's.
    pub fn status_name(&self) -> &'static str {
        self.status.map_or("unknown", PluginStatus::as_str)
    }
}

/// One `didl:Resource`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceFacts {
    /// Position among the record's resources: how many `didl:Resource` elements came before it.
    pub index: usize,
    /// `mimeType`.
    pub mime_type: Option<String>,
    /// `ref`.
    pub reference: Option<String>,
    /// `encoding`.
    pub encoding: Option<String>,
}

/// The facts of one record's metadata.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// The root element is `didl:DIDL`.
    pub didl: bool,
    /// `dii:Identifier` values.
    pub identifiers: Vec<String>,
    /// `modoai:httpResponse/@status`.
    pub http_status: Option<String>,
    /// `modoai:header` name/value pairs, in order.
    pub http_headers: Vec<(String, String)>,
    /// `crate:crate/@uid`.
    pub crate_uid: Option<String>,
    /// `crate:crate/@created`.
    pub crate_created: Option<String>,
    /// Every `crate:plugin`.
    pub plugins: Vec<PluginFacts>,
    /// Every `didl:Resource`.
    pub resources: Vec<ResourceFacts>,
}

/// The namespaces of every element [`Facts`] reads.
const NAMESPACES: [&str; 4] = [ns::DIDL, ns::DII, ns::MODOAI, ns::CRATE];

impl Facts {
    /// Whether `xml` can hold a fact: false when it names none of the DIDL, DII, modoai and
    /// CRATE namespaces and has no character reference that could spell one. Reading an
    /// `oai_dc` record back is then skipped.
    ///
    /// ```
    /// use modoai_archive::facts::Facts;
    ///
    /// assert!(!Facts::may_hold(br#"<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"/>"#));
    /// assert!(Facts::may_hold(br#"<DIDL xmlns="urn:mpeg:mpeg21:2002:02-DIDL-NS"/>"#));
    /// assert!(Facts::may_hold(br#"<DIDL xmlns="urn&#58;mpeg:mpeg21:2002:02-DIDL-NS"/>"#));
    /// ```
    pub fn may_hold(xml: &[u8]) -> bool {
        // Built once: a searcher costs more to build than to run over a small record.
        static CHAR_REF: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("&#"));
        static URN: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("urn:"));
        // All four begin with `urn:`, which most other formats never write.
        debug_assert!(NAMESPACES.iter().all(|n| n.starts_with("urn:")));
        let has = |finder: &Finder<'_>| finder.find(xml).is_some();
        has(&CHAR_REF) || (has(&URN) && NAMESPACES.iter().any(|n| has(&Finder::new(n))))
    }

    /// Reads the facts; XML the parser already checked, so errors only end the reading early.
    pub fn read(xml: impl Read) -> Facts {
        let mut facts = Facts::default();
        let mut reader = NsReader::from_reader(BufReader::new(xml));
        let mut buf = Vec::new();
        let mut depth = 0usize;
        // What the text being read belongs to.
        let mut text_target: Option<Target> = None;
        let mut text = String::new();
        // The XML output of a plugin being read.
        let mut leaves: Option<Leaves> = None;
        loop {
            buf.clear();
            let event = match reader.read_resolved_event_into(&mut buf) {
                Ok(e) => e,
                Err(_) => break,
            };
            if let Some(l) = leaves.as_mut() {
                if !l.feed(&event.1) {
                    continue;
                }
                let fields = leaves.take().map(Leaves::into_fields).unwrap_or_default();
                if let Some(p) = facts.plugins.last_mut() {
                    p.fields = fields;
                }
                depth = depth.saturating_sub(1);
                continue;
            }
            match event {
                (ResolveResult::Bound(ns), ref ev @ (Event::Start(_) | Event::Empty(_))) => {
                    let (Event::Start(e) | Event::Empty(e)) = ev else {
                        unreachable!("the outer match admits only Start and Empty")
                    };
                    let empty = matches!(ev, Event::Empty(_));
                    let uri = String::from_utf8_lossy(ns.0).into_owned();
                    let local = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
                    if depth == 0 && uri == ns::DIDL && local == "DIDL" {
                        facts.didl = true;
                    }
                    let target = facts.open(&uri, &local, e);
                    if !empty && uri == ns::CRATE && local == element::OUTPUT && is_xml(e) {
                        leaves = Some(Leaves::default());
                    }
                    if !empty {
                        depth += 1;
                        if target.is_some() {
                            text_target = target;
                            text.clear();
                        }
                    }
                }
                (_, Event::Start(_)) => depth += 1,
                (_, Event::End(_)) => {
                    depth = depth.saturating_sub(1);
                    if let Some(t) = text_target.take() {
                        facts.close(t, text.trim());
                    }
                }
                (_, Event::Text(t)) if text_target.is_some() => {
                    if let Ok(s) = t.xml10_content() {
                        text.push_str(&s);
                    }
                }
                (_, Event::CData(t)) if text_target.is_some() => {
                    text.push_str(&String::from_utf8_lossy(&t));
                }
                (_, Event::GeneralRef(r)) if text_target.is_some() => {
                    if let Ok(Some(c)) = r.resolve_char_ref() {
                        text.push(c);
                    } else {
                        text.push_str(predefined(&String::from_utf8_lossy(&r)));
                    }
                }
                (_, Event::Eof) => break,
                _ => {}
            }
        }
        facts
    }

    /// The text output of the first `ok` plugin with this label.
    pub fn plugin_text(&self, label: &str) -> Option<&str> {
        self.plugins
            .iter()
            .find(|p| p.label == label && p.is_ok() && !p.text.is_empty())
            .map(|p| p.text.as_str())
    }

    /// A header of the HTTP response the CRATE describes (case-insensitive).
    pub fn http_header(&self, name: &str) -> Option<&str> {
        self.http_headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn open(&mut self, uri: &str, local: &str, e: &BytesStart<'_>) -> Option<Target> {
        let attr = |name: &str| -> Option<String> {
            e.attributes()
                .flatten()
                .find(|a| a.key.as_ref() == name.as_bytes())
                .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
        };
        match (uri, local) {
            (ns::DII, "Identifier") => Some(Target::Identifier),
            (ns::MODOAI, "httpResponse") => {
                self.http_status = attr("status");
                None
            }
            (ns::MODOAI, "header") => Some(Target::Header(attr("name").unwrap_or_default())),
            (ns::CRATE, element::CRATE) => {
                self.crate_uid = attr("uid");
                self.crate_created = attr("created");
                None
            }
            (ns::CRATE, element::PLUGIN) => {
                self.plugins.push(PluginFacts {
                    label: attr(vocab::LABEL).unwrap_or_default(),
                    version: attr(vocab::VERSION).unwrap_or_default(),
                    status: attr(vocab::STATUS).and_then(|s| s.parse().ok()),
                    cached: attr(vocab::CACHED).unwrap_or_default(),
                    duration_ms: attr(vocab::DURATION_MS).unwrap_or_default(),
                    note: attr(vocab::NOTE).unwrap_or_default(),
                    text: String::new(),
                    fields: Vec::new(),
                });
                None
            }
            (ns::CRATE, element::OUTPUT)
                if attr(vocab::ENCODING).as_deref() == Some(OutputEncoding::Text.as_str()) =>
            {
                Some(Target::PluginText)
            }
            (ns::DIDL, "Resource") => {
                self.resources.push(ResourceFacts {
                    index: self.resources.len(),
                    mime_type: attr("mimeType"),
                    reference: attr("ref"),
                    encoding: attr("encoding"),
                });
                None
            }
            _ => None,
        }
    }

    fn close(&mut self, target: Target, text: &str) {
        match target {
            Target::Identifier => self.identifiers.push(text.to_owned()),
            Target::Header(name) => self.http_headers.push((name, text.to_owned())),
            Target::PluginText => {
                if let Some(p) = self.plugins.last_mut() {
                    p.text = text.to_owned();
                }
            }
        }
    }
}

/// Whether a `crate:output` holds XML.
fn is_xml(e: &BytesStart<'_>) -> bool {
    e.attributes().flatten().any(|a| {
        a.key.as_ref() == vocab::ENCODING.as_bytes()
            && a.value.as_ref() == OutputEncoding::Xml.as_str().as_bytes()
    })
}

enum Target {
    Identifier,
    Header(String),
    PluginText,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_crate() {
        let xml = r#"<didl:DIDL xmlns:didl="urn:mpeg:mpeg21:2002:02-DIDL-NS" xmlns:dii="urn:mpeg:mpeg21:2002:01-DII-NS" xmlns:modoai="urn:modoai:ns:2026"><didl:Item>
<didl:Descriptor><didl:Statement><dii:Identifier>http://h/a.txt</dii:Identifier></didl:Statement></didl:Descriptor>
<didl:Descriptor><didl:Statement><modoai:httpResponse status="200"><modoai:header name="content-type">text/plain</modoai:header><modoai:header name="etag">&quot;x&quot;</modoai:header></modoai:httpResponse></didl:Statement></didl:Descriptor>
<didl:Descriptor><didl:Statement><crate:crate xmlns:crate="urn:modoai:crate:2026" uid="u1" created="2026-01-01T00:00:00Z"/></didl:Statement></didl:Descriptor>
<didl:Descriptor><didl:Statement><crate:plugin xmlns:crate="urn:modoai:crate:2026" label="md5" version="v" status="ok" cached="false" durationMs="1"><crate:output encoding="text">abc &amp; def</crate:output></crate:plugin></didl:Statement></didl:Descriptor>
<didl:Descriptor><didl:Statement><crate:plugin xmlns:crate="urn:modoai:crate:2026" label="jhove" status="ok"><crate:output encoding="xml"><jhove><x>t</x></jhove></crate:output></crate:plugin></didl:Statement></didl:Descriptor>
<didl:Component><didl:Resource mimeType="text/plain" encoding="base64"/></didl:Component>
<didl:Component><didl:Resource mimeType="text/plain" ref="http://h/a.txt"/></didl:Component>
</didl:Item></didl:DIDL>"#;
        let f = Facts::read(xml.as_bytes());
        assert!(f.didl);
        assert_eq!(f.identifiers, ["http://h/a.txt"]);
        assert_eq!(f.http_status.as_deref(), Some("200"));
        assert_eq!(f.http_header("ETag"), Some("\"x\""));
        assert_eq!(f.crate_uid.as_deref(), Some("u1"));
        assert_eq!(f.plugin_text("md5"), Some("abc & def"));
        assert_eq!(f.plugins[1].label, "jhove");
        assert_eq!(f.plugins[1].text, "");
        assert_eq!(f.plugins[1].fields, [("x".to_owned(), "t".to_owned())]);
        assert!(f.plugins[0].fields.is_empty());
        assert_eq!(f.resources.len(), 2);
        assert_eq!(f.resources[1].reference.as_deref(), Some("http://h/a.txt"));
        assert_eq!(f.resources[0].encoding.as_deref(), Some("base64"));
    }

    #[test]
    fn other_formats_are_not_didl() {
        let f = Facts::read(
            &br#"<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"/>"#[..],
        );
        assert!(!f.didl);
        assert!(f.resources.is_empty());
    }
}

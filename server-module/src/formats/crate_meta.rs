//! The CRATE part of `oai_crate`: one DIDL descriptor per plugin, holding a `crate:plugin`
//! element with the tool's label, version, command, status and output (see `schemas/crate.xsd`).
//!
//! Tool output is embedded so that it can never break the document: tools' text output may hold
//! C0 controls, `]]>` and bytes that are not UTF-8 (`docs/plugins.md`, "Tool facts"), so:
//! - declared `xml` and really well-formed (UTF-8, one root, no DOCTYPE, only XML 1.0 characters,
//!   only predefined entities, every prefix declared): embedded as a subtree, declaration dropped;
//! - otherwise UTF-8 text: escaped, characters XML forbids replaced by U+FFFD;
//! - otherwise (bytes that are not UTF-8): Base64, with `encoding="base64"`.
//!
//! Never a raw CDATA section: tool outputs contain `]]>`.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use modoai_protocol::{is_xml_char, ns, Datestamp};
use quick_xml::events::Event;
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;

use crate::plugins::PluginResult;
use crate::xml::Xml;

/// The CRATE-UID statement: the resource URL plus the dissemination instant.
pub(crate) fn write_uid(x: &mut Xml, identifier: &str, now: Datestamp) {
    let uid = format!("{identifier}#crate-{now}");
    statement(x, |x| {
        x.empty(
            "crate:crate",
            &[
                ("xmlns:crate", ns::CRATE),
                ("uid", &uid),
                ("created", &now.to_string()),
            ],
        )
    });
}

/// One descriptor per plugin result.
pub(crate) fn write_plugins(x: &mut Xml, results: &[std::sync::Arc<PluginResult>]) {
    for r in results {
        statement(x, |x| write_plugin(x, r));
    }
}

fn statement(x: &mut Xml, body: impl FnOnce(&mut Xml)) {
    x.start("didl:Descriptor", &[]);
    x.start(
        "didl:Statement",
        &[("mimeType", "application/xml; charset=utf-8")],
    );
    body(x);
    x.end("didl:Statement");
    x.end("didl:Descriptor");
}

/// One plugin's `crate:plugin` element. A result is written the same way every time, so its
/// bytes are made once and kept with it (a warm page copies them).
fn write_plugin(x: &mut Xml, r: &PluginResult) {
    let bytes = r.element.get_or_init(|| {
        let mut own = Xml::new();
        plugin_element(&mut own, r);
        own.take()
    });
    x.raw(bytes);
}

fn plugin_element(x: &mut Xml, r: &PluginResult) {
    let run = &r.run;
    let exit = run.exit_code.map(|c| c.to_string());
    let ms = run.duration_ms.to_string();
    let mut attrs = vec![
        ("xmlns:crate", ns::CRATE),
        ("label", r.label.as_str()),
        ("version", r.version.as_str()),
        ("command", r.command.as_str()),
        ("status", run.status.as_str()),
        ("durationMs", ms.as_str()),
        ("cached", if r.cached { "true" } else { "false" }),
    ];
    if let Some(e) = &exit {
        attrs.push(("exitCode", e));
    }
    if run.truncated {
        attrs.push(("truncated", "true"));
    }
    if let Some(n) = &run.note {
        attrs.push(("note", n));
    }
    x.start("crate:plugin", &attrs);
    if let Some(root) = &r.xml_root {
        x.start("crate:output", &[("encoding", "xml")]);
        x.raw(&run.stdout[root.clone()]);
        x.end("crate:output");
    } else if !run.stdout.is_empty() {
        write_output(x, "crate:output", &run.stdout);
    }
    if !run.stderr.is_empty() {
        write_output(x, "crate:stderr", &run.stderr);
    }
    x.end("crate:plugin");
}

/// Output that is not embedded as XML: escaped text, or Base64 when it is not UTF-8.
fn write_output(x: &mut Xml, name: &str, bytes: &[u8]) {
    if let Ok(text) = std::str::from_utf8(bytes) {
        x.leaf(name, &[("encoding", "text")], text);
    } else {
        x.leaf(name, &[("encoding", "base64")], &B64.encode(bytes));
    }
}

/// The bytes from the root element's start to its end, if `bytes` is a document that can be
/// embedded as it is.
pub(crate) fn embeddable(bytes: &[u8]) -> Option<&[u8]> {
    let text = std::str::from_utf8(bytes).ok()?;
    if !text.chars().all(is_xml_char) {
        return None;
    }
    let mut reader = NsReader::from_reader(bytes);
    reader.config_mut().check_end_names = true;
    let mut buf = Vec::new();
    let (mut depth, mut start, mut end, mut roots) = (0usize, 0usize, 0usize, 0usize);
    loop {
        let before = reader.buffer_position() as usize;
        let (resolved, event) = reader.read_resolved_event_into(&mut buf).ok()?;
        if matches!(resolved, ResolveResult::Unknown(_)) {
            return None;
        }
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                for a in e.attributes() {
                    let a = a.ok()?;
                    if let (ResolveResult::Unknown(_), _) = reader.resolve_attribute(a.key) {
                        return None;
                    }
                }
                if depth == 0 {
                    roots += 1;
                    start = before;
                }
                if matches!(event, Event::Start(_)) {
                    depth += 1;
                } else if depth == 0 {
                    end = reader.buffer_position() as usize;
                }
            }
            Event::End(_) => {
                depth -= 1;
                if depth == 0 {
                    end = reader.buffer_position() as usize;
                }
            }
            Event::DocType(_) => return None,
            Event::GeneralRef(r) => match r.resolve_char_ref().ok()? {
                Some(c) if is_xml_char(c) => {}
                Some(_) => return None,
                None => {
                    quick_xml::escape::resolve_predefined_entity(&r.decode().ok()?).map(|_| ())?
                }
            },
            Event::Text(t) if depth == 0 && !t.iter().all(u8::is_ascii_whitespace) => return None,
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    (roots == 1 && depth == 0).then(|| &bytes[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_documents_embed_without_declaration() {
        let doc = b"<?xml version='1.0'?>\n<!-- c -->\n<a xmlns='urn:x' xmlns:p='urn:p'><p:b k='&amp;'>&#233; ]]&gt;</p:b></a>\n";
        assert_eq!(
            embeddable(doc),
            Some(&b"<a xmlns='urn:x' xmlns:p='urn:p'><p:b k='&amp;'>&#233; ]]&gt;</p:b></a>"[..])
        );
        assert_eq!(embeddable(b"<a/>"), Some(&b"<a/>"[..]));
    }

    #[test]
    fn anything_doubtful_is_not_embedded() {
        for bad in [
            &b"<a>\x01</a>"[..],
            b"<a>&#1;</a>",
            b"<a>&bogus;</a>",
            b"<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>",
            b"<a></b>",
            b"<a/><b/>",
            b"text <a/>",
            b"<p:a/>",
            b"<a p:k='1'/>",
            b"<a>\xff</a>",
            b"<a>",
            b"",
            b"plain text",
        ] {
            assert_eq!(embeddable(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }
}

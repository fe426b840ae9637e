//! Whether a tool's `xml` output can be embedded in a CRATE as it is: UTF-8, one root, no
//! DOCTYPE, only XML 1.0 characters, only predefined entities, every prefix declared. Tools' text
//! output may hold C0 controls, `]]>` and bytes that are not UTF-8 (`docs/plugins.md`, "Tool
//! facts"); what fails this check is written as text or Base64 instead.

use modoai_protocol::is_xml_char;
use quick_xml::events::Event;
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;

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
